import { ApiError } from '../../shared/errors';
import type { Location } from '../../shared/vision';
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
  rectOf,
} from '../support/images';
import { caught, startHarness, type Harness } from './harness';

/** Every endpoint of the vision spec through the client, in both input modes, against the sandbox. */
describe('vision client contract', () => {
  let h: Harness;
  let files: FixtureServer;
  const img = {} as Record<'astronaut' | 'astronautPng' | 'astro200' | 'astro170' | 'other' | 'noFace', Buffer>;

  beforeAll(async () => {
    h = await startHarness();
    img.astronaut = astronautJpeg();
    img.astronautPng = encodePng(decode(img.astronaut));
    img.astro200 = astronautFaceOfSize(200);
    img.astro170 = astronautFaceOfSize(170);
    img.noFace = gradientJpeg();
    // A second person: the largest face of a group photo, cropped and scaled into the 120..280 px range.
    const group = faceApiSample(1);
    const faces = await h.client.detectFaces(group);
    expect(faces.length).toBeGreaterThan(1);
    const largest = [...faces].sort((a, b) => area(b.location) - area(a.location))[0];
    img.other = faceOfSize(group, rectOf(largest.location), 200);
    files = await startFixtureServer({
      '/astronaut.jpg': { body: img.astronaut, contentType: 'image/jpeg' },
      '/astronaut.png': { body: img.astronautPng, contentType: 'image/png' },
      '/astro200.jpg': { body: img.astro200, contentType: 'image/jpeg' },
      '/astro170.jpg': { body: img.astro170, contentType: 'image/jpeg' },
      '/other.jpg': { body: img.other, contentType: 'image/jpeg' },
    });
  }, 120_000);
  afterAll(async () => {
    await files?.stop();
    await h?.stop();
  });

  describe('detection', () => {
    it('detectFaces finds the astronaut, with a direction and a box near the known face', async () => {
      const faces = await h.client.detectFaces(img.astronaut);
      expect(faces).toHaveLength(1);
      const [face] = faces;
      expect(['front', 'left', 'right']).toContain(face.direction);
      const cx = (face.location.left + face.location.right) / 2;
      const cy = (face.location.top + face.location.bottom) / 2;
      expect(Math.abs(cx - (ASTRONAUT_FACE.x + ASTRONAUT_FACE.width / 2))).toBeLessThan(40);
      expect(Math.abs(cy - (ASTRONAUT_FACE.y + ASTRONAUT_FACE.height / 2))).toBeLessThan(40);
    });

    it('detectFaces gives the same answer for PNG bytes, base64, a data URL and an http URL', async () => {
      const reference = await h.client.detectFaces(img.astronaut);
      const b64 = img.astronaut.toString('base64');
      expect(await h.client.detectFaces(b64)).toEqual(reference);
      expect(await h.client.detectFaces(`data:image/jpeg;base64,${b64}`)).toEqual(reference);
      expect(await h.client.detectFaces(new Uint8Array(img.astronaut))).toEqual(reference);
      const before = files.hits.get('/astronaut.jpg') ?? 0;
      expect(await h.client.detectFaces(files.urlOf('/astronaut.jpg'))).toEqual(reference);
      // URL mode: the service fetched the image itself.
      expect(files.hits.get('/astronaut.jpg')).toBe(before + 1);
      const fromPng = await h.client.detectFaces(img.astronautPng);
      expect(fromPng).toHaveLength(1);
      expect(await h.client.detectFaces(files.urlOf('/astronaut.png'))).toHaveLength(1);
    });

    it('detectFaces returns an empty list for an image without a face', async () => {
      expect(await h.client.detectFaces(img.noFace)).toEqual([]);
    });

    it('detectHumans finds heads with scores from 0.1 to 1 (bytes and URL)', async () => {
      for (const input of [img.astronaut, files.urlOf('/astronaut.jpg')]) {
        const humans = await h.client.detectHumans(input);
        expect(humans.length).toBeGreaterThanOrEqual(1);
        for (const human of humans) {
          expect(human.score).toBeGreaterThanOrEqual(0.1);
          expect(human.score).toBeLessThanOrEqual(1);
          expect(human.location.right).toBeGreaterThan(human.location.left);
          expect(human.location.bottom).toBeGreaterThan(human.location.top);
        }
      }
      const group = await h.client.detectHumans(faceApiSample(1));
      expect(group.length).toBeGreaterThan(1);
    });
  });

  describe('two-image comparison', () => {
    it('scores the same person above two different people (multipart)', async () => {
      const same = await h.client.compareFaces(img.astro200, img.astro170);
      const different = await h.client.compareFaces(img.astro200, img.other);
      for (const r of [same, different]) {
        expect(r.score).toBeGreaterThanOrEqual(0);
        expect(r.score).toBeLessThanOrEqual(1);
        expect(r.source.location.right).toBeGreaterThan(r.source.location.left);
        expect(r.target.location.bottom).toBeGreaterThan(r.target.location.top);
      }
      expect(same.score).toBeGreaterThan(different.score);
    });

    it('sends two URLs as JSON and gets the same score as with bytes', async () => {
      const bytes = await h.client.compareFaces(img.astro200, img.astro170);
      const hits = files.hits.get('/astro200.jpg') ?? 0;
      const urls = await h.client.compareFaces(files.urlOf('/astro200.jpg'), files.urlOf('/astro170.jpg'));
      expect(files.hits.get('/astro200.jpg')).toBe(hits + 1);
      expect(urls.score).toBeCloseTo(bytes.score, 3);
    });

    it('downloads the URL of a mixed pair and sends both as files', async () => {
      const bytes = await h.client.compareFaces(img.astro200, img.astro170);
      const hits = files.hits.get('/astro170.jpg') ?? 0;
      const mixed = await h.client.compareFaces(img.astro200, files.urlOf('/astro170.jpg'));
      expect(files.hits.get('/astro170.jpg')).toBe(hits + 1);
      expect(mixed.score).toBeCloseTo(bytes.score, 3);
    });
  });

  describe('face collections', () => {
    beforeEach(async () => {
      await h.resetAndWarm();
    });

    it('runs the whole life cycle: create, add, list, compare, remove, delete', async () => {
      expect(await h.client.listCollections()).toEqual([]);
      const { collectionId } = await h.client.createCollection();
      expect(collectionId).toEqual(expect.any(String));
      expect(await h.client.listCollections()).toEqual([{ collectionId }]);

      const astro = await h.client.addFace(collectionId, img.astro200);
      expect(astro.faceId).toEqual(expect.any(String));
      expect(astro.location.right).toBeGreaterThan(astro.location.left);
      const other = await h.client.addFace(collectionId, files.urlOf('/other.jpg'));
      const listed = await h.client.listFaces(collectionId);
      expect(listed.map((f) => f.faceId).sort()).toEqual([astro.faceId, other.faceId].sort());

      const result = await h.client.compareWithCollection(collectionId, img.astro170);
      expect(result.target.collectionId).toBe(collectionId);
      expect(result.source.location.right).toBeGreaterThan(result.source.location.left);
      expect(result.target.faces).toHaveLength(2);
      for (const f of result.target.faces) {
        expect(typeof f.score).toBe('number');
        expect(f.score).toBeGreaterThanOrEqual(0);
        expect(f.score).toBeLessThanOrEqual(1);
      }
      expect(result.target.faces[0].faceId).toBe(astro.faceId);
      expect(result.target.faces[0].score).toBeGreaterThan(result.target.faces[1].score);

      const top1 = await h.client.compareWithCollection(collectionId, files.urlOf('/astro170.jpg'), { maxResults: 1 });
      expect(top1.target.faces).toEqual([result.target.faces[0]]);
      const top1Bytes = await h.client.compareWithCollection(collectionId, img.astro170, { maxResults: 1 });
      expect(top1Bytes.target.faces).toEqual([result.target.faces[0]]);

      await h.client.removeFace(collectionId, other.faceId);
      expect(await h.client.listFaces(collectionId)).toEqual([{ faceId: astro.faceId }]);
      await h.client.deleteCollection(collectionId);
      expect(await h.client.listCollections()).toEqual([]);
      const gone = await caught(() => h.client.listFaces(collectionId));
      expect(gone).toBeInstanceOf(ApiError);
      expect(gone).toMatchObject({ status: 404, code: 'resource_not_found', retryable: false });
    });

    it('returns at most 10 faces when maxResults is omitted (the service default)', async () => {
      const { collectionId } = await h.client.createCollection();
      for (let i = 0; i < 11; i += 1) await h.client.addFace(collectionId, i % 2 ? img.astro200 : img.astro170);
      const result = await h.client.compareWithCollection(collectionId, img.astro200);
      expect(result.target.faces).toHaveLength(10);
      const scores = result.target.faces.map((f) => f.score);
      expect(scores).toEqual([...scores].sort((a, b) => b - a));
    });

    it('reports the per-client collection limit as a typed, non-retryable error', async () => {
      await h.client.createCollection();
      const err = await caught(() => h.client.createCollection());
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({ status: 400, code: 'collection_limit_exceeded', retryable: false, operation: 'createCollection' });
    });

    it('reports an image whose face is outside 120..280 px as a typed error', async () => {
      const { collectionId } = await h.client.createCollection();
      const err = await caught(() => h.client.addFace(collectionId, astronautFaceOfSize(80)));
      expect(err).toMatchObject({ name: 'ApiError', status: 400, retryable: false });
      expect((err as ApiError).code).toMatch(/face_size_out_of_range|face_not_found/);
    });
  });
});

function area(l: Location): number {
  return (l.right - l.left) * (l.bottom - l.top);
}
