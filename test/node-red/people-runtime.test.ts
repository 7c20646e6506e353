import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startSandbox, type RunningSandbox } from '../../sandbox';
import { VisionClient } from '../../shared/vision';
import { buildPackage } from '../support/package-build';
import { astronautFaceOfSize } from '../support/images';
import { freePort } from '../support/free-port';
import { adminToken } from './support/admin-token';

// The people of a config node in a real Node-RED (this checkout's, in a child process, adminAuth on,
// the package installed in its user directory from dist/): the file lands in the user directory
// Node-RED was started with, and the editor's list of people is behind Node-RED's own permissions.

const ROOT = path.join(__dirname, '..', '..');
const SECRET = 'sandbox-secret';
let dir: string;
let red: ChildProcess | undefined;
let url: string;
let sandbox: RunningSandbox;
let vision: VisionClient;

/** Polls `probe` every 250 ms until it gives a value; rejects after `ms` naming `what`. */
async function eventually<T>(what: string, probe: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

beforeAll(async () => {
  buildPackage();
  sandbox = await startSandbox({ port: 0, host: '127.0.0.1' });
  vision = new VisionClient({ authUrl: sandbox.url, visionUrl: sandbox.url, clientId: sandbox.clientId, clientSecret: SECRET });
  dir = mkdtempSync(path.join(os.tmpdir(), 'nr-people-rt-'));
  mkdirSync(path.join(dir, 'node_modules'));
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'node-red-user', private: true, dependencies: { 'n8n-nodes-vision-streaming': '*' } }));
  symlinkSync(ROOT, path.join(dir, 'node_modules', 'n8n-nodes-vision-streaming'), 'dir');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const bcrypt = require('bcryptjs') as { hashSync(text: string, rounds: number): string };
  const users = [
    { username: 'admin', password: bcrypt.hashSync('admin-pass', 4), permissions: '*' },
    { username: 'viewer', password: bcrypt.hashSync('viewer-pass', 4), permissions: 'read' },
  ];
  const port = await freePort();
  writeFileSync(
    path.join(dir, 'settings.js'),
    `module.exports = ${JSON.stringify({ uiHost: '127.0.0.1', uiPort: port, flowFile: 'flows.json', credentialSecret: false, logging: { console: { level: 'warn' } }, editorTheme: { tours: false }, adminAuth: { type: 'credentials', users } })};\n`,
  );
  red = spawn(process.execPath, [path.join(ROOT, 'node_modules', 'node-red', 'red.js'), '--userDir', dir, '--settings', path.join(dir, 'settings.js')], { stdio: 'ignore' });
  url = `http://127.0.0.1:${port}`;
  await eventually('Node-RED to start', async () => ((await fetch(`${url}/auth/login`).then((r) => r.ok, () => false)) ? true : undefined), 60_000);
}, 240_000);

afterAll(async () => {
  if (red && red.exitCode === null) {
    red.kill('SIGTERM');
    await once(red, 'exit');
  }
  await vision?.close();
  await sandbox?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("a people node's change lands in a sealed 0600 file of Node-RED's user directory; the editor's list of people needs a read permission", async () => {
  const { collectionId } = await vision.createCollection();
  const { faceId } = await vision.addFace(collectionId, astronautFaceOfSize(200));
  const list = `${url}/vision-streaming/people?config=svc&collection=${collectionId}`;
  expect((await fetch(list)).status).toBe(401);

  const admin = { authorization: `Bearer ${await adminToken(url, 'admin', 'admin-pass')}` };
  const flows = [
    { id: 't1', type: 'tab', label: 'people' },
    { id: 'svc', type: 'vision-streaming-config', name: 'sandbox', authUrl: sandbox.url, visionUrl: sandbox.url, sfuUrl: sandbox.url, credentials: { clientId: sandbox.clientId, clientSecret: SECRET } },
    { id: 'inj', z: 't1', type: 'inject', props: [{ p: 'payload' }, { p: 'operation', v: 'import-labels', vt: 'str' }], payload: JSON.stringify({ [faceId]: 'Alice' }), payloadType: 'json', once: false, wires: [['pp']] },
    { id: 'pp', z: 't1', type: 'vision-streaming-people', service: 'svc', collectionId, operation: 'list', wires: [[]] },
  ];
  const deployed = await fetch(`${url}/flows`, { method: 'POST', headers: { ...admin, 'content-type': 'application/json', 'Node-RED-API-Version': 'v2' }, body: JSON.stringify({ flows }) });
  expect(deployed.status).toBe(200);

  const viewer = { authorization: `Bearer ${await adminToken(url, 'viewer', 'viewer-pass', 'read')}` };
  // The deploy answers before the new nodes have started: the list and the inject wait for them.
  expect(await eventually('the list of a started config', async () => {
    const res = await fetch(list, { headers: viewer });
    return res.ok ? ((await res.json()) as unknown[]) : undefined;
  })).toEqual([]);
  expect(await eventually('the inject node to start', async () => {
    const fired = await fetch(`${url}/inject/inj`, { method: 'POST', headers: admin });
    return fired.ok ? true : undefined;
  })).toBe(true);
  const people = await eventually('Alice in the list', async () => {
    const entries = (await (await fetch(list, { headers: viewer })).json()) as { name: string; value: string; description: string }[];
    return entries.length > 0 ? entries : undefined;
  });
  expect(people).toEqual([{ name: 'Alice', value: 'Alice', description: expect.stringMatching(/^1 face; p_/) }]);

  const file = path.join(dir, 'vision-streaming', `people-${collectionId}.json`);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
  const text = readFileSync(file, 'utf8');
  expect(JSON.parse(text)).toMatchObject({ kind: 'vision-streaming-people', collectionId, people: [{ name: 'Alice', faces: [{ face_id: faceId, from: 'labels' }] }], seal: expect.any(String) });
  expect(text).not.toContain(SECRET);
}, 120_000);
