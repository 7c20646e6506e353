import collectionNode from '../../node-red/collection';
import compareNode from '../../node-red/compare';
import configNode from '../../node-red/config';
import detectNode from '../../node-red/detect';
import sharp from 'sharp';
import type { RunningSandbox } from '../../sandbox';
import { astronautFaceOfSize, astronautJpeg, gradientJpeg } from '../support/images';
import { configCredentials, configNode as sandboxConfig, helper, inject, nextMessage, sandboxForTests, useNodeRedHelper } from './support/runtime';

const NODES = [configNode, detectNode, compareNode, collectionNode];

let sandbox: RunningSandbox;
let face: Buffer;
let otherFace: Buffer;

beforeAll(async () => {
  sandbox = await sandboxForTests();
  face = astronautFaceOfSize(160);
  otherFace = astronautFaceOfSize(200);
});
afterAll(() => sandbox?.stop());
afterEach(() => sandbox.reset());
useNodeRedHelper();

/** A flow of one node under test wired to `out`, with a Catch node wired to `caught`. */
function flow(node: Record<string, unknown>): object[] {
  return [
    { id: 'f1', type: 'tab', label: 'test' },
    sandboxConfig(sandbox),
    { id: 'n', z: 'f1', service: 'svc', wires: [['out']], ...node },
    { id: 'out', z: 'f1', type: 'helper' },
    { id: 'catcher', z: 'f1', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
    { id: 'caught', z: 'f1', type: 'helper' },
  ];
}

async function load(node: Record<string, unknown>, secret?: string): Promise<void> {
  await helper.load(NODES, flow(node), configCredentials(sandbox, secret));
}

describe('detect node', () => {
  it('finds the face in a Buffer payload, keeps the rest of the message, and counts', async () => {
    await load({ type: 'vision-streaming-detect', detect: 'faces' });
    const out = nextMessage('out');
    inject('n', { payload: astronautJpeg(), topic: 'door', _keep: 42 });
    const msg = await out;
    expect(msg.topic).toBe('door');
    expect(msg._keep).toBe(42);
    expect(msg.count).toBe(1);
    const faces = msg.payload as { direction: string; location: { left: number; right: number } }[];
    expect(faces).toHaveLength(1);
    expect(faces[0].direction).toBe('front');
    expect(faces[0].location.right).toBeGreaterThan(faces[0].location.left);
  });

  it('reads a serialized Buffer, base64 and a data URL from a configured property; msg.detect switches to heads', async () => {
    await load({ type: 'vision-streaming-detect', detect: 'faces', image: 'camera.frame' });
    const bytes = astronautJpeg();
    const inputs: unknown[] = [bytes.toJSON(), bytes.toString('base64'), `data:image/jpeg;base64,${bytes.toString('base64')}`];
    for (const frame of inputs) {
      const out = nextMessage('out');
      inject('n', { camera: { frame }, detect: 'humans' });
      const msg = await out;
      const heads = msg.payload as { score: number }[];
      expect(heads).toHaveLength(1);
      expect(heads[0].score).toBeGreaterThan(0.1);
    }
  });

  it('hands bad input to a Catch node with the typed error fields, before any request', async () => {
    await load({ type: 'vision-streaming-detect' });
    const before = sandbox.stats();
    const caught = nextMessage('caught');
    inject('n', { payload: 'ftp://example.com/a.jpg' });
    const msg = await caught;
    const error = msg.error as { message: string; code: string; source: { type: string }; cause: Record<string, unknown> };
    expect(error.code).toBe('invalid_input');
    expect(error.cause).toMatchObject({ name: 'InputError', field: 'image' });
    expect(error.source.type).toBe('vision-streaming-detect');
    expect(sandbox.stats()).toEqual(before);
  });

  it('draws the boxes on the input image when asked (node setting or msg.drawBoxes)', async () => {
    await load({ type: 'vision-streaming-detect', drawBoxes: true });
    const photo = astronautJpeg();
    let out = nextMessage('out');
    inject('n', { payload: photo });
    const boxed = (await out).image as Buffer;
    expect(boxed.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    expect(boxed.equals(photo)).toBe(false);
    const size = await sharp(boxed).metadata();
    expect([size.width, size.height]).toEqual([512, 512]);
    out = nextMessage('out');
    inject('n', { payload: photo, drawBoxes: false });
    expect((await out).image).toBeUndefined();
  });

  it('an image without a face gives an empty list', async () => {
    await load({ type: 'vision-streaming-detect' });
    const out = nextMessage('out');
    inject('n', { payload: gradientJpeg() });
    expect((await out).payload).toEqual([]);
  });
});

describe('compare node', () => {
  it('compares msg.payload with msg.target', async () => {
    await load({ type: 'vision-streaming-compare' });
    const out = nextMessage('out');
    inject('n', { payload: face, target: otherFace });
    const msg = await out;
    expect(msg.score).toBeGreaterThan(0.9);
    expect(msg.payload).toMatchObject({ source: { location: expect.any(Object) }, target: { location: expect.any(Object) } });
  });

  it('a service error (no face in the target) reaches the Catch node with status and code', async () => {
    await load({ type: 'vision-streaming-compare', source: 'a', target: 'b' });
    const caught = nextMessage('caught');
    inject('n', { a: face, b: gradientJpeg() });
    const error = (await caught).error as { code: string; cause: Record<string, unknown> };
    expect(error.code).toBe('face_not_found');
    expect(error.cause).toMatchObject({ name: 'ApiError', status: 400, retryable: false, operation: 'compareFaces' });
  });
});

describe('collection node', () => {
  /** Runs one operation through the node and returns the message that came out. */
  async function op(msg: Record<string, unknown>): Promise<Record<string, unknown>> {
    const out = nextMessage('out');
    inject('n', msg);
    return out;
  }

  it('creates a collection, adds a face, lists, compares, removes and deletes: message properties pick the operation', async () => {
    await load({ type: 'vision-streaming-collection', operation: 'listCollections' });
    const created = await op({ operation: 'createCollection' });
    const collectionId = created.collectionId as string;
    expect(created.payload).toEqual({ collectionId });

    expect((await op({})).payload).toEqual([{ collectionId }]);

    const added = await op({ operation: 'addFace', collectionId, payload: face });
    const faceId = added.faceId as string;
    expect(added.payload).toMatchObject({ faceId, location: expect.any(Object) });

    expect((await op({ operation: 'listFaces', collectionId })).payload).toEqual([{ faceId }]);

    const compared = await op({ operation: 'compare', collectionId, payload: otherFace.toString('base64'), maxResults: 5, drawBoxes: true });
    expect(compared.match).toMatchObject({ faceId });
    expect((compared.image as Buffer).subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    expect((compared.match as { score: number }).score).toBeGreaterThan(0.9);

    expect((await op({ operation: 'removeFace', collectionId, faceId })).payload).toEqual({ collectionId, faceId, removed: true });
    expect((await op({ operation: 'listFaces', collectionId })).payload).toEqual([]);
    expect((await op({ operation: 'deleteCollection', collectionId })).payload).toEqual({ collectionId, deleted: true });
    expect((await op({})).payload).toEqual([]);
  });

  it('uses the node settings when the message has none; an unknown collection is a 404 at the Catch node', async () => {
    await load({ type: 'vision-streaming-collection', operation: 'listFaces', collectionId: 'no-such-collection' });
    const caught = nextMessage('caught');
    inject('n', {});
    const error = (await caught).error as { code: string; message: string; cause: Record<string, unknown> };
    expect(error.cause).toMatchObject({ status: 404, code: 'resource_not_found' });
    expect(error.message).toContain('no-such-collection');
  });

  it('refuses a bad maxResults before sending, naming the field', async () => {
    await load({ type: 'vision-streaming-collection', operation: 'compare', collectionId: 'c1', maxResults: '5000' });
    const caught = nextMessage('caught');
    inject('n', { payload: face });
    const error = (await caught).error as { code: string; cause: Record<string, unknown> };
    expect(error.code).toBe('invalid_input');
    expect(error.cause.field).toBe('maxResults');
  });
});
