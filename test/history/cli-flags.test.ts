import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sizeFlag, timeFlag } from '../../cli/history';
import { main } from '../../cli/main';
import { openHistory } from '../../shared/history';
import { emptyPeople } from '../../shared/people/document';
import { FilePeopleStore, peopleKey } from '../../shared/people/file-store';
import { arrival } from './support/store-contract';

// The history's flags as the command line reads them: refusals exit 2 naming the flag, before any
// room is joined or service called (nothing listens on the addresses given).

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'history-flags-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function run(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const env = { VS_CLIENT_SECRET: 'secret', VS_AUTH_URL: 'http://127.0.0.1:9', VS_VISION_URL: 'http://127.0.0.1:9', VS_SFU_URL: 'http://127.0.0.1:9' };
  const code = await main(args, env, { stdout: (l) => (stdout += `${l}\n`), stderr: (l) => (stderr += `${l}\n`), interrupted: new Promise(() => undefined) });
  return { code, stdout, stderr };
}

const watchArgs = ['watch', '--client-id', 'c', '--room', 'r', '--collection', 'col'];

test('watch: a history that is refused, a bad size, or a retention without --history exits 2 naming the flag', async () => {
  const missing = await run(...watchArgs, '--history', path.join(dir, 'no-such-folder', 'visits.db'));
  expect(missing.code).toBe(2);
  expect(missing.stderr).toMatch(/^vision-streaming watch: --history: .*does not exist/m);
  const size = await run(...watchArgs, '--history', path.join(dir, 'visits.db'), '--keep-bytes', 'lots');
  expect(size.code).toBe(2);
  expect(size.stderr).toContain('--keep-bytes must be a size');
  const stray = await run(...watchArgs, '--keep-days', '3');
  expect(stray.code).toBe(2);
  expect(stray.stderr).toContain('--keep-days goes with --history');
  const days = await run(...watchArgs, '--history', path.join(dir, 'visits.db'), '--keep-days', '0');
  expect(days.code).toBe(2);
  expect(days.stderr).toContain('--keep-days');
});

test('history: bad input exits 2 naming the flag, before the history is opened', async () => {
  const db = path.join(dir, 'never-made.db');
  const cases: [string[], string][] = [
    [['--since', 'yesterday'], '--since'],
    [['--until', '2026-02-30'], '--until'],
    [['--since', '2d', '--until', '3d'], '--until'],
    [['--kind', 'dog'], '--kind'],
    [['--limit', '5000'], '--limit'],
    [['--person', 'Alice', '--visitor', 'v'], '--person'],
    [['--face', path.join(dir, 'missing.jpg')], '--client-id'],
    [['--face', path.join(dir, 'missing.jpg'), '--client-id', 'c'], '--collection'],
  ];
  for (const [args, flag] of cases) {
    const r = await run('history', '--history', db, ...args);
    expect({ args, code: r.code, named: r.stderr.includes(flag) }).toEqual({ args, code: 2, named: true });
  }
  const del = await run('history', 'delete', '--history', db);
  expect(del.code).toBe(2);
  expect(del.stderr).toContain('--visit');
  // Nothing was opened, so nothing was made.
  await expect(import('node:fs/promises').then((fs) => fs.stat(db))).rejects.toMatchObject({ code: 'ENOENT' });
});

test('sizes and times as the flags take them', () => {
  expect(sizeFlag('2GB', 'keep-bytes')).toBe(2 * 1024 ** 3);
  expect(sizeFlag('500MB', 'keep-bytes')).toBe(500 * 1024 ** 2);
  expect(sizeFlag('1.5g', 'keep-bytes')).toBe(1.5 * 1024 ** 3);
  expect(sizeFlag('1000', 'keep-bytes')).toBe(1000);
  expect(() => sizeFlag('-1GB', 'keep-bytes')).toThrow(/--keep-bytes/);
  const now = Date.parse('2026-11-28T12:00:00Z');
  expect(timeFlag('2d', 'since', now)).toBe('2026-11-26T12:00:00.000Z');
  expect(timeFlag('90m', 'since', now)).toBe('2026-11-28T10:30:00.000Z');
  expect(timeFlag('2026-11-24', 'since', now)).toBe('2026-11-24T00:00:00.000Z');
  expect(timeFlag('today', 'since', now)).toBe(new Date(new Date(now).setHours(0, 0, 0, 0)).toISOString());
  expect(() => timeFlag('2026-02-30', 'until', now)).toThrow(/--until/);
  expect(() => timeFlag('2026-11-24T09:00', 'since', now)).toThrow(/--since/);
});

test('history --person with --people: every visit of the person, as the stranger they were and under their faces alone, by name or id', async () => {
  const db = path.join(dir, 'person.db');
  const peopleFile = path.join(dir, 'people.json');
  const personId = 'p_11111111-1111-4111-8111-111111111111';
  const people = new FilePeopleStore(peopleFile, { collectionId: 'col', key: peopleKey({ clientId: 'c', clientSecret: 'secret' }) });
  await people.update(() => ({ ...emptyPeople('col'), people: [{ person_id: personId, name: 'Alice', faces: [{ face_id: 'f1', added_at: '2026-11-20T00:00:00Z', from: 'photo' }], not_faces: [] }] }));
  const store = await openHistory({ location: db });
  try {
    await store.writeVisit(arrival('as-person', { person_id: personId, name: 'Alice', face_id: 'f1', arrived_at: '2026-11-20T12:00:00Z' }));
    await store.writeVisit(arrival('as-visitor', { kind: 'visitor', visitor_id: 'f1', face_id: 'f1', arrived_at: '2026-11-20T11:00:00Z' }));
    await store.writeVisit(arrival('face-alone', { face_id: 'f1', arrived_at: '2026-11-20T10:00:00Z' }));
    await store.writeVisit(arrival('someone-else', { face_id: 'f2', arrived_at: '2026-11-20T13:00:00Z' }));
  } finally {
    await store.close();
  }
  const withPeople = ['--people', peopleFile, '--collection', 'col', '--client-id', 'c'];
  for (const person of ['alice', personId]) {
    const r = await run('history', '--history', db, '--person', person, ...withPeople);
    expect({ person, code: r.code, stderr: r.stderr }).toEqual({ person, code: 0, stderr: '' });
    expect(r.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { visit_id: string }).visit_id)).toEqual(['as-person', 'as-visitor', 'face-alone']);
  }
  // Without the people file: the visits that carry the name.
  const byName = await run('history', '--history', db, '--person', 'Alice');
  expect(byName.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { visit_id: string }).visit_id)).toEqual(['as-person']);
  const unknown = await run('history', '--history', db, '--person', 'Bob', ...withPeople);
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toContain('--person');
});
