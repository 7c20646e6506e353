import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { openHistory } from '../../shared/history';
import { historyStoreContract } from './support/store-contract';

// The history store contract against SQLite through node:sqlite: a fresh database file and media
// folder for each test.

let dir: string;
let count = 0;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'history-sqlite-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

historyStoreContract('sqlite', async () => {
  count += 1;
  return openHistory({ location: path.join(dir, `history-${count}.db`) });
});
