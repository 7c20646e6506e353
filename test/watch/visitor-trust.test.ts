import { Agent } from 'undici';
import { startSandbox, type RunningSandbox } from '../../sandbox';
import type { ClientError } from '../../shared/errors';
import { VisionClient } from '../../shared/vision';
import { MemoryVisitorStore, type VisitorDocument, type VisitorStore } from '../../shared/watch';
import { VisitorBook } from '../../shared/watch/visitors';
import { astronautFaceOfSize } from '../support/images';

// A visitor store says which faces the watcher may remove from the collection: the book acts only on
// a store of its own collection whose entries it can vouch for, and never on a face named in labels.
// Each case puts a real face in a real (sandbox) collection and checks it is still there afterwards.

let sandbox: RunningSandbox;
let dispatcher: Agent;
let vision: VisionClient;
let collectionId: string;
let person: string;

const DAY = 86_400_000;
const longAgo = new Date(Date.now() - 2000 * DAY).toISOString();

beforeAll(async () => {
  sandbox = await startSandbox({ host: '127.0.0.1', port: 0 });
  dispatcher = new Agent();
  vision = new VisionClient({ authUrl: sandbox.url, visionUrl: sandbox.url, clientId: 'sandbox-client', clientSecret: 'sandbox-secret', dispatcher });
  ({ collectionId } = await vision.createCollection());
  // The enrolled person an attacker would like removed (every test checks it is still there).
  person = (await vision.addFace(collectionId, astronautFaceOfSize(160))).faceId;
}, 60_000);

afterAll(async () => {
  await vision?.close();
  await dispatcher?.close();
  await sandbox?.stop();
});

function storeWith(doc: unknown, extra: Partial<VisitorStore> = {}): VisitorStore & { saved: VisitorDocument[] } {
  const saved: VisitorDocument[] = [];
  return { name: '/home/me/visitors.json', load: () => structuredClone(doc), save: (d) => void saved.push(structuredClone(d)), saved, ...extra };
}

async function openBook(store: VisitorStore, labels?: Map<string, string>): Promise<{ book: VisitorBook; errors: ClientError[] }> {
  const errors: ClientError[] = [];
  const book = new VisitorBook({ collectionId, retentionMs: 30 * DAY, max: 200, labels }, vision, store, (e) => errors.push(e));
  await book.open(Date.now());
  await book.flush();
  return { book, errors };
}

const faces = async () => (await vision.listFaces(collectionId)).map((f) => f.faceId);
const doc = (visitors: VisitorDocument['visitors'], collection = collectionId): VisitorDocument => ({ kind: 'vision-streaming-visitors', version: 1, collectionId: collection, visitors });
const entry = (visitorId: string, over: Partial<VisitorDocument['visitors'][number]> = {}) => ({ visitorId, firstSeen: longAgo, lastSeen: longAgo, visits: 1, ...over });

test('a store of another collection is refused with an error naming the store; its faces are left alone', async () => {
  const { book, errors } = await openBook(storeWith(doc([entry(person)], 'another-collection')));
  expect(errors).toEqual([expect.objectContaining({ code: 'visitor_store_mismatch', message: expect.stringContaining('/home/me/visitors.json') })]);
  expect(errors[0].message).toMatch(/another face collection/);
  expect(book.enrolling).toBe(false);
  expect(book.size).toBe(0);
  expect(await faces()).toContain(person);
});

test('a face named in labels is never removed, however old its entry; it is forgotten as a visitor', async () => {
  const store = storeWith(doc([entry(person)]));
  const { book, errors } = await openBook(store, new Map([[person, 'Eileen']]));
  expect(errors).toEqual([]);
  expect(book.has(person)).toBe(false);
  expect(await faces()).toContain(person);
  // Saved without it: the next run does not hold it either.
  expect(store.saved.at(-1)!.visitors).toEqual([]);
  // And still an ordinary expiry for a visitor that is not labelled.
  const visitor = (await vision.addFace(collectionId, astronautFaceOfSize(200))).faceId;
  await openBook(storeWith(doc([entry(visitor)])), new Map([[person, 'Eileen']]));
  expect(await faces()).not.toContain(visitor);
});

test.each([
  ['a time in the future', (id: string) => [entry(id, { lastSeen: new Date(Date.now() + 30 * DAY).toISOString() })]],
  ['times out of order', (id: string) => [entry(id, { firstSeen: new Date().toISOString() })]],
  ['a time that is not a date', (id: string) => [entry(id, { firstSeen: 'yesterday' })]],
  ['a face listed twice', (id: string) => [entry(id), entry(id)]],
  ['not a face id', (id: string) => [entry(`../${id}`)]],
  ['a visit count that is not a positive whole number', (id: string) => [entry(id, { visits: 0 })]],
])('an entry the book cannot vouch for (%s) refuses the whole store, removing nothing', async (why, visitors) => {
  const { book, errors } = await openBook(storeWith(doc(visitors(person))));
  expect(errors).toEqual([expect.objectContaining({ code: 'visitor_store_untrusted' })]);
  expect(errors[0].message).toContain(why);
  expect(errors[0].message).toContain('/home/me/visitors.json');
  expect(book.enrolling).toBe(false);
  expect(await faces()).toContain(person);
});

test('with a key, the book seals what it saves, reopens its own store, and refuses an unsealed or edited one', async () => {
  const key = Buffer.alloc(32, 7);
  const memory = new MemoryVisitorStore();
  const keyed: VisitorStore = { name: 'keyed', key, load: () => memory.load(), save: (d) => memory.save(d) };
  const first = await openBook(keyed);
  const enrolled = await first.book.enrol(astronautFaceOfSize(180), Date.now());
  await first.book.flush();
  const saved = memory.load()!;
  expect(saved.seal).toMatch(/^[0-9a-f]{64}$/);
  const again = await openBook(keyed);
  expect(again.errors).toEqual([]);
  expect(again.book.has(enrolled!.visitorId)).toBe(true);

  // The attack: the person's face id written in as a visitor last seen long ago.
  const forged = { ...saved, visitors: [...saved.visitors, entry(person)] };
  const edited = await openBook({ ...keyed, load: () => structuredClone(forged) });
  expect(edited.errors).toEqual([expect.objectContaining({ code: 'visitor_store_untrusted', message: expect.stringMatching(/seal does not match/) })]);
  const unsealed = await openBook({ ...keyed, load: () => doc([entry(person)]) });
  expect(unsealed.errors).toEqual([expect.objectContaining({ code: 'visitor_store_untrusted' })]);
  expect(await faces()).toContain(person);
  await vision.removeFace(collectionId, enrolled!.visitorId);
});

test('no store value is quoted in an error: a store holding something else, or failing to load', async () => {
  const other = await openBook(storeWith({ kind: 'root:x:0:0:secret-looking' }));
  expect(other.errors[0].message).not.toContain('root:x');
  const failing = await openBook({ load: () => Promise.reject(new SyntaxError('Unexpected token r, "root:x:0:0" is not valid JSON')), save: () => undefined });
  expect(failing.errors[0].code).toBe('visitor_store_failed');
  expect(failing.errors[0].message).not.toContain('root:x');
});
