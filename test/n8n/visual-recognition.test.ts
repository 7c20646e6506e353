import type { INodeExecutionData } from 'n8n-workflow';
import { startSandbox, type RunningSandbox } from '../../sandbox';
import { startFixtureServer, type FixtureServer } from '../support/fixture-server';
import { astronautFaceOfSize, decode, faceApiSample, faceOfSize, gradientJpeg, rectOf, truncatedJpeg } from '../support/images';
import { fetchToken, send, visionHeaders } from '../support/vision-http';
import { cleanUpEngine, Engine, packageUnderTest, HOOK_NODE, loadPackage, readBinary, setHook, type LoadedPackage, type NodeSpec, type SourceItem } from './support/engine';
import { CredentialStore } from './support/credentials-helper';

// Every operation of the Visual Recognition node, run by n8n's own engine against the sandbox; run
// again against the n8n Cloud package by test/cloud/action-nodes.test.ts.

const KIND = packageUnderTest();

const SECRET = 'n8n-test-secret-value';
let sandbox: RunningSandbox;
let fixtures: FixtureServer;
let pkg: LoadedPackage;
let VR: string;
const img: Record<'astro' | 'astroSmall' | 'other' | 'noFace', Buffer> = {} as never;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, clientSecret: SECRET, collectionLimit: 5, eagerModel: true });
  img.astro = astronautFaceOfSize(200);
  img.astroSmall = astronautFaceOfSize(160);
  img.noFace = gradientJpeg();
  // Another person: one face of face-api's group photo, found by the sandbox itself.
  const group = faceApiSample(1);
  const token = await fetchToken(sandbox.url, undefined, { id: sandbox.clientId, secret: SECRET });
  const found = await send(`${sandbox.url}/v1/detect_faces`, { method: 'POST', headers: { ...visionHeaders(token), 'content-type': 'image/jpeg' }, body: group });
  img.other = faceOfSize(group, rectOf((found.json as { faces: { location: never }[] }).faces[0].location), 200);
  fixtures = await startFixtureServer({
    '/astro.jpg': { body: img.astro, contentType: 'image/jpeg' },
    '/astro-small.jpg': { body: img.astroSmall, contentType: 'image/jpeg' },
    '/other.jpg': { body: img.other, contentType: 'image/jpeg' },
  });
  pkg = await loadPackage(KIND);
  VR = `${pkg.packageName}.visualRecognition`;
}, 180_000);

afterAll(async () => {
  await fixtures?.stop();
  await sandbox?.stop();
  cleanUpEngine();
});

/** A fresh worker (engine) over a credential store holding the sandbox credential as id 'cred'. */
function worker(store = new CredentialStore()): Engine {
  if (!hasCredential(store)) {
    store.set('cred', { clientId: sandbox.clientId, clientSecret: SECRET, authUrl: sandbox.url, visionUrl: sandbox.url, sfuUrl: sandbox.url });
  }
  return new Engine(pkg, store);
}

function hasCredential(store: CredentialStore): boolean {
  try {
    store.get('cred');
    return true;
  } catch {
    return false;
  }
}

/** The node's credential, under the package's credential type. */
const cred = () => ({ [pkg.credentialType]: { id: 'cred', name: 'Sandbox' } });

function vr(name: string, parameters: NodeSpec['parameters'], extra: Partial<NodeSpec> = {}): NodeSpec {
  return { name, type: VR, parameters, credentials: cred(), ...extra };
}

function file(data: Buffer, name = 'photo.jpg'): SourceItem['binary'] {
  return { data: { data, fileName: name, mimeType: 'image/jpeg' } };
}

function jsonOf(items: INodeExecutionData[]): Record<string, unknown>[] {
  return items.map((i) => i.json as Record<string, unknown>);
}

async function runOk(engine: Engine, items: SourceItem[], nodes: NodeSpec[]) {
  const result = await engine.runChain(items, nodes);
  if (result.error) throw result.error;
  return result;
}

describe('Image', () => {
  test('detect faces from a binary property and from a URL', async () => {
    const items: SourceItem[] = [
      { binary: file(img.astro), json: { url: fixtures.urlOf('/astro.jpg') } },
      { binary: file(img.noFace), json: { url: fixtures.urlOf('/other.jpg') } },
    ];
    const result = await runOk(worker(), items, [
      vr('Binary', { resource: 'image', operation: 'detectFaces' }),
      vr('Url', { resource: 'image', operation: 'detectFaces', imageInputMode: 'url', imageUrl: '={{ $("Source").item.json.url }}' }),
    ]);
    for (const node of ['Binary', 'Url']) {
      const out = result.output(node);
      expect(out.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
      const first = out[0].json as { count: number; faces: { direction: string; left: number; width: number }[] };
      expect(first.count).toBe(1);
      expect(first.faces[0]).toEqual(expect.objectContaining({ direction: 'front', left: expect.any(Number) }));
      expect(first.faces[0].width).toBeGreaterThan(150);
    }
    expect(result.output('Binary')[1].json).toEqual({ count: 0, faces: [] });
    expect((result.output('Url')[1].json as { count: number }).count).toBe(1);
  });

  test('detect faces by URL gives the raw shape when Simplify is off', async () => {
    const result = await runOk(worker(), [{ json: { url: fixtures.urlOf('/astro.jpg') } }], [
      vr('Url', { resource: 'image', operation: 'detectFaces', imageInputMode: 'url', imageUrl: '={{ $json.url }}', simplify: false }),
    ]);
    const [item] = result.output('Url');
    expect(item.json).toEqual({ faces: [{ direction: 'front', location: expect.objectContaining({ left: expect.any(Number), bottom: expect.any(Number) }) }] });
    expect(fixtures.hits.get('/astro.jpg')).toBeGreaterThan(0);
  });

  test('detect humans from binary and URL', async () => {
    const result = await runOk(worker(), [{ binary: file(img.astro), json: { url: fixtures.urlOf('/astro.jpg') } }], [
      vr('Binary', { resource: 'image', operation: 'detectHumans' }),
      vr('Url', { resource: 'image', operation: 'detectHumans', imageInputMode: 'url', imageUrl: '={{ $("Source").item.json.url }}' }),
    ]);
    for (const node of ['Binary', 'Url']) {
      const json = result.output(node)[0].json as { count: number; humans: { score: number; left: number; right: number }[] };
      expect(json.count).toBe(1);
      expect(typeof json.humans[0].score).toBe('number');
      expect(json.humans[0].right).toBeGreaterThan(json.humans[0].left);
    }
  });
});

(KIND === 'cloud' ? test : test.skip)('n8n Cloud package: a workflow that asks for Image With Boxes keeps its JSON output and gets no drawn image', async () => {
  const result = await runOk(worker(), [{ binary: file(img.astro) }], [vr('Binary', { resource: 'image', operation: 'detectFaces', options: { drawBoxes: true } })]);
  const [item] = result.output('Binary');
  expect(Object.keys(item.binary ?? {})).toEqual(['data']);
  expect((item.json as { faces: unknown[] }).faces.length).toBeGreaterThan(0);
});

// Drawing needs an image library: the n8n Cloud package has none, so only the main one draws.
(KIND === 'main' ? test : test.skip)('Image With Boxes: the boxes drawn on the image, for binary and URL input, the input binary kept', async () => {
  const result = await runOk(worker(), [{ binary: file(img.astro) }], [
    vr('Binary', { resource: 'image', operation: 'detectFaces', options: { drawBoxes: true } }),
    vr('Url', { resource: 'image', operation: 'detectHumans', imageInputMode: 'url', imageUrl: fixtures.urlOf('/astro.jpg'), options: { drawBoxes: true, boxesProperty: 'drawn' } }),
  ]);
  const [binaryItem] = result.output('Binary');
  expect(Object.keys(binaryItem.binary ?? {}).sort()).toEqual(['boxes', 'data']);
  const face = (binaryItem.json as { faces: { left: number; top: number; bottom: number }[] }).faces[0];
  const drawn = decode(await readBinary(binaryItem.binary!.boxes));
  const original = decode(img.astro);
  expect([drawn.width, drawn.height]).toEqual([original.width, original.height]);
  // The box's left edge, half way down, is the drawing colour (green), which the photo is not there.
  const at = (im: typeof drawn) => { const o = (Math.round((face.top + face.bottom) / 2) * im.width + face.left) * 4; return [im.data[o], im.data[o + 1], im.data[o + 2]]; };
  const [r, g, b] = at(drawn);
  expect(g).toBeGreaterThan(150);
  expect(r).toBeLessThan(100);
  expect(b).toBeLessThan(170);
  expect(at(original)).not.toEqual(at(drawn));
  const [urlItem] = result.output('Url');
  expect(urlItem.binary?.drawn.mimeType).toBe('image/jpeg');
  expect(decode(await readBinary(urlItem.binary!.drawn)).width).toBe(original.width);
});

describe('Face', () => {
  test('compare two binaries, two URLs, and a mixed pair', async () => {
    const items: SourceItem[] = [
      { binary: { data: file(img.astro)!.data, target: { data: img.astroSmall, mimeType: 'image/jpeg' } } },
      { binary: { data: file(img.astro)!.data, target: { data: img.other, mimeType: 'image/jpeg' } } },
    ];
    const result = await runOk(worker(), items, [
      vr('Binary', { resource: 'face', operation: 'compare' }),
      vr('Urls', {
        resource: 'face', operation: 'compare',
        sourceInputMode: 'url', sourceUrl: fixtures.urlOf('/astro.jpg'),
        targetInputMode: 'url', targetUrl: fixtures.urlOf('/astro-small.jpg'),
      }),
      vr('Mixed', { resource: 'face', operation: 'compare', sourceInputMode: 'binary', targetInputMode: 'url', targetUrl: fixtures.urlOf('/other.jpg') }),
    ]);
    const [same, different] = jsonOf(result.output('Binary')) as { score: number; source: { width: number } }[];
    expect(same.score).toBeGreaterThan(0.9);
    expect(different.score).toBeLessThan(0.3);
    expect(same.source.width).toBeGreaterThan(100);
    expect((result.output('Urls')[0].json as { score: number }).score).toBeGreaterThan(0.9);
    const mixed = jsonOf(result.output('Mixed')) as { score: number }[];
    expect(mixed).toHaveLength(2);
    expect(mixed[0].score).toBeLessThan(0.3);
  });
});

describe('Face Collection and Collection Face', () => {
  test('create, add (binary and URL), list, compare (binary and URL), remove, delete', async () => {
    const engine = worker();
    const created = await runOk(engine, [{}], [vr('Create', { resource: 'faceCollection', operation: 'create' })]);
    const collectionId = (created.output('Create')[0].json as { collectionId: string }).collectionId;
    expect(collectionId).toMatch(/^[0-9a-f-]{36}$/);

    const added = await runOk(engine, [{ binary: file(img.astro) }, { binary: file(img.other) }], [
      vr('Add', { resource: 'collectionFace', operation: 'add', collectionId }),
      vr('Add by URL', { resource: 'collectionFace', operation: 'add', collectionId, imageInputMode: 'url', imageUrl: fixtures.urlOf('/astro-small.jpg') }),
    ]);
    const faces = jsonOf(added.output('Add')) as { faceId: string; collectionId: string; width: number }[];
    expect(faces).toHaveLength(2);
    expect(faces[0]).toEqual(expect.objectContaining({ collectionId, faceId: expect.any(String), width: expect.any(Number) }));
    const byUrl = jsonOf(added.output('Add by URL')) as { faceId: string }[];
    expect(byUrl).toHaveLength(2);

    const listed = await runOk(engine, [{}], [
      vr('Collections', { resource: 'faceCollection', operation: 'getAll' }),
      vr('Faces', { resource: 'collectionFace', operation: 'getAll', collectionId }),
    ]);
    const collections = listed.output('Collections')[0].json as { count: number; collections: { collectionId: string }[] };
    expect(collections.collections.map((c) => c.collectionId)).toContain(collectionId);
    const list = listed.output('Faces')[0].json as { count: number; faces: { faceId: string }[] };
    expect(list.count).toBe(4);

    const compared = await runOk(engine, [{ binary: file(img.astroSmall) }], [
      vr('Compare', { resource: 'faceCollection', operation: 'compare', collectionId, maxResults: 3 }),
      vr('Compare URL', { resource: 'faceCollection', operation: 'compare', collectionId, imageInputMode: 'url', imageUrl: fixtures.urlOf('/other.jpg'), simplify: false }),
    ]);
    const best = compared.output('Compare')[0].json as { bestFaceId: string; bestScore: number; matches: { faceId: string; score: number }[] };
    expect(best.matches).toHaveLength(3);
    for (const m of best.matches) expect(typeof m.score).toBe('number');
    expect(best.matches.map((m) => m.score)).toEqual([...best.matches.map((m) => m.score)].sort((a, b) => b - a));
    expect([faces[0].faceId, ...byUrl.map((f) => f.faceId)]).toContain(best.bestFaceId);
    expect(best.bestScore).toBeGreaterThan(0.9);
    const raw = compared.output('Compare URL')[0].json as { target: { collectionId: string; faces: { faceId: string; score: number }[] } };
    expect(raw.target.collectionId).toBe(collectionId);
    expect(raw.target.faces[0].faceId).toBe(faces[1].faceId);

    const removed = await runOk(engine, [{}], [
      vr('Remove', { resource: 'collectionFace', operation: 'remove', collectionId, faceId: faces[0].faceId }),
      vr('Faces', { resource: 'collectionFace', operation: 'getAll', collectionId }),
      vr('Delete', { resource: 'faceCollection', operation: 'delete', collectionId }),
    ]);
    expect(removed.output('Remove')[0].json).toEqual({ removed: true, collectionId, faceId: faces[0].faceId });
    expect((removed.output('Faces')[0].json as { count: number }).count).toBe(3);
    expect(removed.output('Delete')[0].json).toEqual({ deleted: true, collectionId });

    const after = await engine.runChain([{}], [vr('Faces', { resource: 'collectionFace', operation: 'getAll', collectionId })]);
    expect(after.error).toEqual(expect.objectContaining({ name: 'NodeApiError', httpCode: '404' }));
  });
});

describe('Tokens', () => {
  test('one token serves several executions and workers; a token expired mid-workflow is renewed once', async () => {
    const store = new CredentialStore();
    const first = worker(store);
    const before = sandbox.stats().tokensIssued;
    await runOk(first, [{ binary: file(img.astro) }], [vr('Detect', { resource: 'image', operation: 'detectFaces' })]);
    // A second worker (queue mode) reads the stored token instead of asking for one.
    const second = worker(store);
    await runOk(second, [{ binary: file(img.astro) }], [vr('Detect', { resource: 'image', operation: 'detectHumans' })]);
    expect(sandbox.stats().tokensIssued - before).toBe(1);
    expect(store.preAuthentications).toEqual({ total: 1, renewals: 0 });

    setHook('expire', () => sandbox.expireTokens());
    const result = await runOk(second, [{ binary: file(img.astro) }, { binary: file(img.other) }], [
      vr('Before', { resource: 'image', operation: 'detectFaces' }),
      { name: 'Expire', type: HOOK_NODE, parameters: { key: 'expire' } },
      vr('After', { resource: 'face', operation: 'compare', targetBinaryProperty: 'data' }),
    ]);
    expect(jsonOf(result.output('After')).map((j) => j.score)).toEqual([expect.any(Number), expect.any(Number)]);
    expect(sandbox.stats().tokensIssued - before).toBe(2);
    expect(store.preAuthentications).toEqual({ total: 2, renewals: 1 });
  });

  test('a wrong client secret fails with a clear message that does not contain it', async () => {
    const store = new CredentialStore();
    store.set('cred', { clientId: sandbox.clientId, clientSecret: 'wrong-secret-123', authUrl: sandbox.url, visionUrl: sandbox.url, sfuUrl: sandbox.url });
    const result = await worker(store).runChain([{ binary: file(img.astro) }], [vr('Detect', { resource: 'image', operation: 'detectFaces' })]);
    expect(result.error?.name).toBe('NodeApiError');
    expect(result.error?.message).toMatch(/client id or client secret was rejected/);
    expect(JSON.stringify(result.run)).not.toContain('wrong-secret-123');
  });
});

describe('Errors', () => {
  test('continue on fail: one item per input, errors as items, the good ones answered', async () => {
    const items: SourceItem[] = [{ binary: file(img.astro) }, { binary: file(img.noFace) }, { json: {} }, { binary: file(truncatedJpeg()) }];
    const requestsBefore = sandbox.stats().requests;
    const result = await runOk(worker(), items, [
      vr('Add', { resource: 'face', operation: 'compare', targetBinaryProperty: 'data' }, { onError: 'continueRegularOutput' }),
    ]);
    const out = result.output('Add');
    expect(out.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }, { item: 3 }]);
    expect(out[0].json.score).toEqual(expect.any(Number));
    expect(out[1].json).toEqual(expect.objectContaining({ httpCode: '400', error: expect.stringMatching(/face_not_found|no face/i) }));
    expect(out[2].json.error).toMatch(/binary/i);
    expect(out[3].json.error).toMatch(/truncated/);
    expect(out[3].json.description).toMatch(/Source Image/);
    // Items 2 and 3 were refused before anything was sent; item 0 and 1 sent one request each (+ a token).
    expect(sandbox.stats().requests - requestsBefore).toBeLessThanOrEqual(3);
  });

  test('without continue on fail the first bad item stops the node with NodeApiError and the HTTP status', async () => {
    const result = await worker().runChain([{ binary: file(img.noFace) }], [vr('Add', { resource: 'collectionFace', operation: 'add', collectionId: '00000000-0000-4000-8000-000000000000' })]);
    expect(result.error).toEqual(expect.objectContaining({ name: 'NodeApiError', httpCode: '404' }));
    expect(result.error?.message).toMatch(/does not exist/);
  });

  test('bad input is a NodeOperationError naming the parameter and the limit', async () => {
    const result = await worker().runChain([{}], [vr('Compare', { resource: 'faceCollection', operation: 'compare', collectionId: 'x', imageInputMode: 'url', imageUrl: 'ftp://example.com/a.jpg' })]);
    expect(result.error?.name).toBe('NodeOperationError');
    expect(result.error?.message).toMatch(/ftp/);
    expect((result.error as { description?: string }).description).toMatch(/Image Binary Property \/ Image URL/);
  });

  test('no secret, token or API key appears in any output or error', async () => {
    const store = new CredentialStore();
    const engine = worker(store);
    const runs = [
      await engine.runChain([{ binary: file(img.astro) }], [vr('Detect', { resource: 'image', operation: 'detectFaces' })]),
      await engine.runChain([{ binary: file(img.noFace) }, {}], [vr('Compare', { resource: 'face', operation: 'compare', targetBinaryProperty: 'data' }, { onError: 'continueRegularOutput' })]),
      await engine.runChain([{ binary: file(img.noFace) }], [vr('Compare', { resource: 'face', operation: 'compare', targetBinaryProperty: 'data' })]),
    ];
    const stored = store.get('cred');
    const secrets = [SECRET, String(stored.accessToken), String(stored.apiKey)];
    expect(secrets.every((s) => s.length > 8)).toBe(true);
    for (const run of runs) {
      const text = JSON.stringify(run.run) + JSON.stringify(run.error ?? {}) + String((run.error as Error | undefined)?.stack ?? '');
      for (const secret of secrets) expect(text).not.toContain(secret);
    }
  });
});
