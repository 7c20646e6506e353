import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startSandbox, type RunningSandbox } from '../../sandbox';
import { buildPackage } from '../support/package-build';
import { freePort } from '../support/free-port';
import { adminToken } from './support/admin-token';

// The pickers' admin endpoints behind Node-RED's own permissions: a real Node-RED (this checkout's,
// in a child process) with adminAuth on, the package installed in its user directory from dist/.
// Without a token the endpoints answer 401; a read-only user may list but not run the test; an
// administrator deploys a config node and lists its rooms. (The same endpoints without adminAuth:
// pickers.test.ts.)

const ROOT = path.join(__dirname, '..', '..');
let dir: string;
let red: ChildProcess | undefined;
let url: string;
let sandbox: RunningSandbox;

beforeAll(async () => {
  buildPackage();
  sandbox = await startSandbox({ port: 0, host: '127.0.0.1' });
  dir = mkdtempSync(path.join(os.tmpdir(), 'nr-admin-'));
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
  for (let i = 0; i < 240; i++) {
    const up = await fetch(`${url}/auth/login`).then((r) => r.ok, () => false);
    if (up) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('Node-RED did not start within 60 s');
}, 240_000);

afterAll(async () => {
  if (red && red.exitCode === null) {
    red.kill('SIGTERM');
    await once(red, 'exit');
  }
  await sandbox?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('with adminAuth: no token is a 401, a read-only user lists but may not test, an administrator deploys and lists', async () => {
  expect((await fetch(`${url}/vision-streaming/rooms?config=svc`)).status).toBe(401);
  expect((await fetch(`${url}/vision-streaming/test`, { method: 'POST' })).status).toBe(401);

  const admin = { authorization: `Bearer ${await adminToken(url, 'admin', 'admin-pass')}` };
  const flows = [
    { id: 'svc', type: 'vision-streaming-config', name: 'sandbox', authUrl: sandbox.url, visionUrl: sandbox.url, sfuUrl: sandbox.url, credentials: { clientId: sandbox.clientId, clientSecret: 'sandbox-secret' } },
  ];
  const deployed = await fetch(`${url}/flows`, { method: 'POST', headers: { ...admin, 'content-type': 'application/json', 'Node-RED-API-Version': 'v2' }, body: JSON.stringify({ flows }) });
  expect(deployed.status).toBe(200);
  const room = await fetch(`${sandbox.url}/v1/rooms`, { method: 'POST', headers: { authorization: `Bearer ${await sandboxToken()}` } }).then((r) => r.json() as Promise<{ id: string }>);

  const viewer = { authorization: `Bearer ${await adminToken(url, 'viewer', 'viewer-pass', 'read')}` };
  let listed: { value: string }[] = [];
  for (let i = 0; i < 40 && listed.length === 0; i++) {
    // The deploy answers before the new config node has started.
    const res = await fetch(`${url}/vision-streaming/rooms?config=svc`, { headers: viewer });
    if (res.ok) listed = (await res.json()) as { value: string }[];
    else await new Promise((r) => setTimeout(r, 250));
  }
  expect(listed.map((r) => r.value)).toEqual([room.id]);
  const test = await fetch(`${url}/vision-streaming/test`, { method: 'POST', headers: { ...viewer, 'content-type': 'application/json' }, body: JSON.stringify({ id: 'svc', clientSecret: '__PWRD__' }) });
  // Node-RED answers a missing permission with 401, as it does a missing token.
  expect(test.status).toBe(401);
  const byAdmin = await fetch(`${url}/vision-streaming/test`, {
    method: 'POST',
    headers: { ...admin, 'content-type': 'application/json' },
    body: JSON.stringify({ id: 'svc', clientId: '__PWRD__', clientSecret: '__PWRD__', authUrl: sandbox.url, visionUrl: sandbox.url, sfuUrl: sandbox.url }),
  });
  expect(await byAdmin.json()).toMatchObject({ ok: true, collections: 0 });
}, 120_000);

test('a camera node\'s password is a credential: neither in flows.json nor in GET /flows, even for a read-only user', async () => {
  const admin = { authorization: `Bearer ${await adminToken(url, 'admin', 'admin-pass')}` };
  const password = 'Cam-Pa55word-kept-out';
  const flows = [
    { id: 'svc', type: 'vision-streaming-config', name: 'sandbox', authUrl: sandbox.url, visionUrl: sandbox.url, sfuUrl: sandbox.url, credentials: { clientId: sandbox.clientId, clientSecret: 'sandbox-secret' } },
    // As the editor sends it: the Source without its password, the password in the node's credentials.
    { id: 'cam', type: 'vision-streaming-camera', service: 'svc', roomId: '', source: 'rtsp://door@127.0.0.1:9/stream1', codec: 'VP8', autoStart: false, credentials: { password } },
  ];
  const deployed = await fetch(`${url}/flows`, { method: 'POST', headers: { ...admin, 'content-type': 'application/json', 'Node-RED-API-Version': 'v2' }, body: JSON.stringify({ flows }) });
  expect(deployed.status).toBe(200);
  const saved = readFileSync(path.join(dir, 'flows.json'), 'utf8');
  expect(saved).toContain('rtsp://door@127.0.0.1:9/stream1');
  expect(saved).not.toContain(password);
  // Kept as the node's credential (in the credentials file, unencrypted here as credentialSecret is false).
  expect(readFileSync(path.join(dir, 'flows_cred.json'), 'utf8')).toContain(password);
  const viewer = { authorization: `Bearer ${await adminToken(url, 'viewer', 'viewer-pass', 'read')}` };
  for (const who of [viewer, admin]) {
    const listed = await fetch(`${url}/flows`, { headers: who });
    expect(listed.status).toBe(200);
    const text = await listed.text();
    expect(text).toContain('rtsp://door@127.0.0.1:9/stream1');
    expect(text).not.toContain(password);
  }
  // What the editor asks for to fill the dialog: that a password is set, never the password.
  const creds = await fetch(`${url}/credentials/vision-streaming-camera/cam`, { headers: viewer });
  expect(creds.status).toBe(200);
  const credsText = await creds.text();
  expect(JSON.parse(credsText)).toEqual({ has_password: true });
  expect(credsText).not.toContain(password);
}, 60_000);

async function sandboxToken(): Promise<string> {
  const res = await fetch(`${sandbox.url}/v1/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${sandbox.clientId}:sandbox-secret`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&scope=sfu.api.ricoh/v1/sfu',
  });
  return ((await res.json()) as { access_token: string }).access_token;
}
