import { startSandbox, type RunningSandbox } from '../../sandbox';
import { startFixtureServer, type FixtureServer } from '../support/fixture-server';
import {
  ASTRONAUT_FACE,
  astronautFaceOfSize,
  astronautJpeg,
  decode,
  encodePng,
  faceApiSample,
  faceOfSize,
  gradientJpeg,
  mirrorJpeg,
  rectOf,
  truncatedJpeg,
} from '../support/images';
import { type ReadResponse, type Token, fetchToken, multipart, send, visionHeaders } from '../support/vision-http';

// Real face model on real images: the public-domain astronaut, and face-api's demo photos read from
// node_modules. Images are prepared once; the sandbox's digest cache keeps repeated ones cheap.

interface Location {
  left: number;
  top: number;
  right: number;
  bottom: number;
}
interface Face {
  direction: string;
  location: Location;
}

let sandbox: RunningSandbox;
let fixtures: FixtureServer;
let token: Token;
const img: Record<string, Buffer> = {};

const post = (path: string, body: Buffer | string, contentType: string): Promise<ReadResponse> =>
  send(sandbox.url + path, { method: 'POST', headers: { ...visionHeaders(token), 'content-type': contentType }, body });
const postJson = (path: string, value: unknown) => post(path, JSON.stringify(value), 'application/json');
const postParts = async (path: string, parts: Record<string, Buffer | string>) => {
  const form = await multipart(parts);
  return post(path, form.body, form.contentType);
};
const detectFaces = async (image: Buffer): Promise<Face[]> => {
  const res = await post('/v1/detect_faces', image, 'image/jpeg');
  expect(res.status).toBe(200);
  return (res.json as { faces: Face[] }).faces;
};

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, facesPerCollection: 2 });
  token = await fetchToken(sandbox.url);
  img.astronaut = astronautJpeg();
  img.same200 = astronautFaceOfSize(200);
  img.same240 = astronautFaceOfSize(240);
  img.tooSmall = astronautFaceOfSize(80);
  img.tooLarge = astronautFaceOfSize(400);
  img.noFace = gradientJpeg();
  img.truncated = truncatedJpeg();
  // Two other people, taken from one group photo (so certainly different from each other and from the astronaut).
  const group = faceApiSample(1);
  const groupFaces = await detectFaces(group);
  expect(groupFaces.length).toBeGreaterThanOrEqual(2);
  img.otherA = faceOfSize(group, rectOf(groupFaces[0].location), 200);
  img.otherB = faceOfSize(group, rectOf(groupFaces[1].location), 200);
  fixtures = await startFixtureServer({
    '/astronaut.jpg': { body: img.astronaut, contentType: 'image/jpeg' },
    '/same200.jpg': { body: img.same200, contentType: 'image/jpeg' },
    '/other.jpg': { body: img.otherA, contentType: 'image/jpeg' },
  });
});

afterAll(async () => {
  await fixtures?.stop();
  await sandbox?.stop();
});

describe('detection', () => {
  test('detect_faces finds the astronaut looking to the front, where her face is', async () => {
    const faces = await detectFaces(img.astronaut);
    expect(faces).toHaveLength(1);
    expect(faces[0].direction).toBe('front');
    const box = rectOf(faces[0].location);
    expect(Math.abs(box.x - ASTRONAUT_FACE.x)).toBeLessThan(25);
    expect(Math.abs(box.y - ASTRONAUT_FACE.y)).toBeLessThan(25);
    expect(Math.abs(box.width - ASTRONAUT_FACE.width)).toBeLessThan(30);
  });

  test('detect_humans returns a head box around the face with a score in 0.1..1', async () => {
    const res = await post('/v1/detect_humans', img.astronaut, 'image/jpeg');
    expect(res.status).toBe(200);
    const humans = (res.json as { humans: { score: number; location: Location }[] }).humans;
    expect(humans).toHaveLength(1);
    expect(humans[0].score).toBeGreaterThanOrEqual(0.1);
    expect(humans[0].score).toBeLessThanOrEqual(1);
    const [face] = await detectFaces(img.astronaut);
    expect(humans[0].location.left).toBeLessThanOrEqual(face.location.left);
    expect(humans[0].location.top).toBeLessThan(face.location.top);
    expect(humans[0].location.right).toBeGreaterThanOrEqual(face.location.right);
    expect(humans[0].location.bottom).toBeGreaterThanOrEqual(face.location.bottom);
  });

  test('PNG bodies are read as well as JPEG', async () => {
    const res = await post('/v1/detect_faces', encodePng(decode(img.astronaut)), 'image/png');
    expect(res.status).toBe(200);
    expect((res.json as { faces: Face[] }).faces).toHaveLength(1);
  });

  test('an image without a face gives empty lists', async () => {
    expect(await detectFaces(img.noFace)).toEqual([]);
    expect((await post('/v1/detect_humans', img.noFace, 'image/jpeg')).json).toEqual({ humans: [] });
  });

  test('a truncated or non-image body is 400 invalid_image', async () => {
    for (const body of [img.truncated, Buffer.from('not an image at all')]) {
      const res = await post('/v1/detect_faces', body, 'image/jpeg');
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ error: { code: 'invalid_image' } });
    }
  });

  test('direction: a turned face keeps its side when cropped and flips when mirrored', async () => {
    const group = faceApiSample(5);
    const turned = (await detectFaces(group)).find((f) => f.direction !== 'front');
    expect(turned).toBeDefined();
    const side = turned!.direction;
    const opposite = side === 'left' ? 'right' : 'left';
    const crop = faceOfSize(group, rectOf(turned!.location), 200);
    expect((await detectFaces(crop))[0].direction).toBe(side);
    expect((await detectFaces(mirrorJpeg(crop)))[0].direction).toBe(opposite);
  });
});

describe('URL input', () => {
  test('the sandbox downloads the image named in {image}', async () => {
    const res = await postJson('/v1/detect_faces', { image: fixtures.urlOf('/astronaut.jpg') });
    expect(res.status).toBe(200);
    expect((res.json as { faces: Face[] }).faces).toHaveLength(1);
    expect(fixtures.hits.get('/astronaut.jpg')).toBeGreaterThanOrEqual(1);
  });

  test('compare_faces takes {source, target} URLs', async () => {
    const res = await postJson('/v1/compare_faces', { source: fixtures.urlOf('/same200.jpg'), target: fixtures.urlOf('/other.jpg') });
    expect(res.status).toBe(200);
    expect((res.json as { score: number }).score).toBeLessThan(0.5);
  });

  test('a URL that fails to download is 400 image_download_failed naming the field', async () => {
    const res = await postJson('/v1/detect_faces', { image: fixtures.urlOf('/missing.jpg') });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ error: { code: 'image_download_failed' } });
    expect((res.json as { error: { message: string } }).error.message).toContain('HTTP 404');
    expect((res.json as { error: { message: string } }).error.message).not.toContain('missing.jpg');
  });

  test('a non-http URL or a missing field is 400 invalid_parameter', async () => {
    expect((await postJson('/v1/detect_faces', { image: 'file:///etc/passwd' })).json).toMatchObject({ error: { code: 'invalid_parameter' } });
    expect((await postJson('/v1/compare_faces', { source: fixtures.urlOf('/same200.jpg') })).json).toMatchObject({
      error: { code: 'invalid_parameter', message: 'The field "target" is missing.' },
    });
  });
});

describe('comparison', () => {
  const compare = (source: Buffer, target: Buffer) => postParts('/v1/compare_faces', { source, target });

  test('the same person at two scales scores high; different people score low', async () => {
    const same = await compare(img.same200, img.same240);
    expect(same.status).toBe(200);
    const body = same.json as { score: number; source: { location: Location }; target: { location: Location } };
    expect(body.score).toBeGreaterThan(0.9);
    expect(Object.keys(body.source.location).sort()).toEqual(['bottom', 'left', 'right', 'top']);

    for (const [a, b] of [[img.same200, img.otherA], [img.same200, img.otherB], [img.otherA, img.otherB]]) {
      const res = await compare(a, b);
      expect(res.status).toBe(200);
      expect((res.json as { score: number }).score).toBeLessThan(0.3);
    }
  });

  test('a face outside 120..280 px is 400 face_size_out_of_range', async () => {
    for (const odd of [img.tooSmall, img.tooLarge]) {
      const res = await compare(odd, img.same200);
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ error: { code: 'face_size_out_of_range' } });
      expect((res.json as { error: { message: string } }).error.message).toContain('120x120 to 280x280');
    }
  });

  test('an image without a face is 400 face_not_found naming which image', async () => {
    const res = await compare(img.same200, img.noFace);
    expect(res).toMatchObject({ status: 400, json: { error: { code: 'face_not_found', message: 'No face was found in the target image.' } } });
  });

  test('a missing multipart part is 400 naming it', async () => {
    const res = await postParts('/v1/compare_faces', { source: img.same200 });
    expect(res).toMatchObject({ status: 400, json: { error: { code: 'invalid_parameter', message: 'The multipart part "target" is missing.' } } });
  });
});

describe('collections with faces', () => {
  test('add, list, compare (decimal-string scores, most similar first), limits, remove', async () => {
    const created = await send(sandbox.url + '/v1/face_collections', {
      method: 'POST',
      headers: { ...visionHeaders(token), 'content-type': 'application/json' },
    });
    expect(created.status).toBe(201);
    const id = (created.json as { collection_id: string }).collection_id;
    const facesPath = `/v1/face_collections/${id}/faces`;

    const added = await postParts(facesPath, { image: img.same200 });
    expect(added.status).toBe(201);
    const astronautFace = added.json as { face_id: string; location: Location };
    expect(astronautFace.face_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(astronautFace.location.right).toBeGreaterThan(astronautFace.location.left);

    const other = await postJson(facesPath, { image: fixtures.urlOf('/other.jpg') });
    expect(other.status).toBe(201);
    const otherFace = other.json as { face_id: string };

    const full = await postParts(facesPath, { image: img.otherB });
    expect(full).toMatchObject({ status: 400, json: { error: { code: 'face_limit_exceeded' } } });

    const refused = await postParts(facesPath, { image: img.tooSmall });
    expect(refused.status).toBe(400);

    const listed = await send(sandbox.url + facesPath, { headers: visionHeaders(token) });
    expect(listed.json).toEqual({ faces: [{ face_id: astronautFace.face_id }, { face_id: otherFace.face_id }] });

    const compared = await postParts(`/v1/compare_faces/${id}`, { image: img.same240 });
    expect(compared.status).toBe(200);
    const result = compared.json as { source: { location: Location }; target: { collection_id: string; faces: { face_id: string; score: string }[] } };
    expect(result.target.collection_id).toBe(id);
    expect(result.target.faces.map((f) => f.face_id)).toEqual([astronautFace.face_id, otherFace.face_id]);
    for (const face of result.target.faces) expect(face.score).toMatch(/^(0\.\d{4}|1\.0000)$/);
    expect(Number(result.target.faces[0].score)).toBeGreaterThan(0.9);
    expect(Number(result.target.faces[1].score)).toBeLessThan(0.3);

    const one = await postParts(`/v1/compare_faces/${id}`, { image: img.same240, max_results: '1' });
    expect((one.json as typeof result).target.faces).toHaveLength(1);
    const viaUrl = await postJson(`/v1/compare_faces/${id}`, { image: fixtures.urlOf('/other.jpg'), max_results: 1 });
    expect((viaUrl.json as typeof result).target.faces[0].face_id).toBe(otherFace.face_id);

    const removePath = `${sandbox.url}${facesPath}/${otherFace.face_id}`;
    expect((await send(removePath, { method: 'DELETE', headers: visionHeaders(token) })).status).toBe(204);
    expect(await send(removePath, { method: 'DELETE', headers: visionHeaders(token) })).toMatchObject({
      status: 404,
      json: { error: { code: 'resource_not_found' } },
    });
    expect((await postParts(facesPath, { image: img.otherB })).status).toBe(201);

    expect((await send(`${sandbox.url}/v1/face_collections/${id}`, { method: 'DELETE', headers: visionHeaders(token) })).status).toBe(204);
    expect((await postParts(`/v1/compare_faces/${id}`, { image: img.same240 })).status).toBe(404);
  });
});
