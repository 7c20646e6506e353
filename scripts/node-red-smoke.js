#!/usr/bin/env node
/* global fetch, setTimeout, clearTimeout -- Node globals */
// Headless Node-RED check of the packed package, as a user would install it:
//   npm pack -> npm install <tarball> into a fresh user directory (scripts off, from the npm cache
//   when it can) -> Node-RED (this checkout's, on this Node) on 127.0.0.1 and a free port ->
//   GET /nodes: every node type of the package loaded without error -> POST /flows: every example
//   flow deployed, pointed at a sandbox -> POST /inject/:id on the rooms example -> its debug output
//   read from the editor's websocket. Everything started is stopped, also on failure.
// Needs `npm run build` first. Usage: node scripts/node-red-smoke.js
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const WebSocket = require('ws');

const ROOT = path.resolve(__dirname, '..');
const PKG = require(path.join(ROOT, 'package.json'));
const LIMIT_MS = 240_000;
const owned = [];

function log(text) {
  process.stdout.write(`[node-red-smoke] ${text}\n`);
}

function run(cmd, args, options) {
  const result = spawnSync(cmd, args, { encoding: 'utf8', timeout: 180_000, ...options });
  if (result.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${result.status}): ${(result.stderr || result.stdout || '').slice(-2000)}`);
  return result.stdout;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function waitFor(what, probe, ms = 60_000) {
  const until = Date.now() + ms;
  let last;
  while (Date.now() < until) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${last.message}` : ''}`);
}

/** Installs the packed package into a new Node-RED user directory. */
function install(work) {
  const out = run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: ROOT });
  const tarball = path.join(work, JSON.parse(out)[0].filename);
  const userDir = path.join(work, 'user');
  fs.mkdirSync(userDir);
  fs.writeFileSync(path.join(userDir, 'package.json'), JSON.stringify({ name: 'node-red-user', private: true }));
  const started = Date.now();
  run('npm', ['install', tarball, '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund', '--omit=dev', '--omit=optional'], { cwd: userDir, timeout: 300_000 });
  log(`installed ${path.basename(tarball)} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return userDir;
}

/** Starts Node-RED on 127.0.0.1 and resolves with its address once the admin API answers. */
async function startNodeRed(userDir) {
  const port = await freePort();
  fs.writeFileSync(
    path.join(userDir, 'settings.js'),
    `module.exports = { uiHost: '127.0.0.1', uiPort: ${port}, flowFile: 'flows.json', credentialSecret: false, ` +
      `logging: { console: { level: 'warn' } }, editorTheme: { tours: false, projects: { enabled: false } } };\n`,
  );
  const red = path.join(ROOT, 'node_modules', 'node-red', 'red.js');
  const child = spawn(process.execPath, [red, '--userDir', userDir, '--settings', path.join(userDir, 'settings.js')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  owned.push(async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor('Node-RED to answer', async () => {
    if (child.exitCode !== null) throw new Error(`Node-RED exited: ${output.slice(-2000)}`);
    const res = await fetch(`${url}/settings`);
    return res.ok;
  });
  return { url, output: () => output };
}

/** The example flows, each on its own tab, ids made unique, config nodes pointed at the sandbox. */
function exampleFlows(sandbox) {
  const dir = path.join(ROOT, 'examples', 'node-red');
  const flows = [];
  const injects = {};
  fs.readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .forEach((file, k) => {
      let text = fs.readFileSync(path.join(dir, file), 'utf8');
      const nodes = JSON.parse(text);
      for (const node of nodes) text = text.split(`"${node.id}"`).join(`"${node.id}x${k}"`);
      const tab = `tab${k}`;
      flows.push({ id: tab, type: 'tab', label: file.replace(/\.json$/, '') });
      for (const node of JSON.parse(text)) {
        if (node.type === 'vision-streaming-config') {
          Object.assign(node, { authUrl: sandbox.url, visionUrl: sandbox.url, sfuUrl: sandbox.url });
          node.credentials = { clientId: sandbox.clientId, clientSecret: 'sandbox-secret' };
        } else {
          node.z = tab;
        }
        if (node.type === 'inject') injects[`${file}:${node.name}`] = node.id;
        flows.push(node);
      }
    });
  return { flows, injects };
}

/** Debug messages sent to the editor, read from its websocket. */
async function debugMessages(url) {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/comms`);
  owned.push(() => new Promise((resolve) => (ws.readyState === WebSocket.CLOSED ? resolve() : (ws.once('close', resolve), ws.terminate()))));
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  ws.send(JSON.stringify({ subscribe: 'debug' }));
  const seen = [];
  ws.on('message', (data) => {
    const parsed = JSON.parse(String(data));
    for (const item of Array.isArray(parsed) ? parsed : [parsed]) if (item.topic === 'debug') seen.push(item.data);
  });
  return seen;
}

async function main() {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'nr-smoke-'));
  owned.push(() => fs.rmSync(work, { recursive: true, force: true }));
  const userDir = install(work);

  const { startSandbox } = require(path.join(ROOT, 'dist', 'sandbox'));
  const sandbox = await startSandbox({ port: 0, host: '127.0.0.1' });
  owned.push(() => sandbox.stop());
  log(`sandbox on ${sandbox.url}`);

  const red = await startNodeRed(userDir);
  log(`Node-RED on ${red.url}`);

  const types = Object.keys(PKG['node-red'].nodes);
  const list = await (await fetch(`${red.url}/nodes`, { headers: { accept: 'application/json' } })).json();
  const module = list.filter((set) => set.module === PKG.name);
  for (const type of types) {
    const set = module.find((s) => s.types.includes(type));
    if (!set) throw new Error(`GET /nodes: ${type} is not loaded; sets: ${JSON.stringify(module)}`);
    if (set.err || !set.enabled) throw new Error(`GET /nodes: ${type} failed: ${JSON.stringify(set.err)}`);
  }
  log(`GET /nodes: ${types.length} node types loaded without error`);

  const seen = await debugMessages(red.url);
  const { flows, injects } = exampleFlows(sandbox);
  const deploy = await fetch(`${red.url}/flows`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'Node-RED-API-Version': 'v2', 'Node-RED-Deployment-Type': 'full' },
    body: JSON.stringify({ flows }),
  });
  if (!deploy.ok) throw new Error(`POST /flows: HTTP ${deploy.status} ${await deploy.text()}`);
  const deployed = await (await fetch(`${red.url}/flows`, { headers: { 'Node-RED-API-Version': 'v2' } })).json();
  const unknown = deployed.flows.filter((n) => n.type.startsWith('vision-streaming') && !types.includes(n.type));
  if (unknown.length) throw new Error(`deployed flow holds unknown types: ${unknown.map((n) => n.type)}`);
  log(`POST /flows: ${flows.length} nodes of ${Object.keys(injects).length} inject(s) deployed`);

  const injectId = injects['04 rooms and tickets.json:create'];
  if (!injectId) throw new Error(`no "create" inject in the rooms example: ${Object.keys(injects)}`);
  // The deploy answers before the new flows have started: an inject node unknown yet gives 404.
  await waitFor('POST /inject to find the started inject node', async () => {
    const fired = await fetch(`${red.url}/inject/${injectId}`, { method: 'POST' });
    if (fired.status !== 404 && !fired.ok) throw new Error(`POST /inject: HTTP ${fired.status}`);
    return fired.ok;
  }, 20_000).catch((err) => {
    throw new Error(`${err.message}; log: ${red.output().slice(-2000)}`);
  });
  const byName = (name) => seen.find((d) => d.name === name);
  await waitFor('the rooms example to reach its debug nodes', () => byName('ticket') && byName('deleted'), 30_000).catch((err) => {
    throw new Error(`${err.message}; debug so far: ${JSON.stringify(seen).slice(0, 2000)}; log: ${red.output().slice(-2000)}`);
  });
  const ticket = JSON.parse(byName('ticket').msg);
  if (ticket.direction !== 'down' || !/^wss?:\/\/127\.0\.0\.1:/.test(ticket.url) || !ticket.roomId) throw new Error(`unexpected ticket ${JSON.stringify(ticket)}`);
  if (/access_token|accessToken/.test(JSON.stringify(seen))) throw new Error('a debug message carries an access token');
  const deleted = JSON.parse(byName('deleted').msg);
  if (deleted.roomId !== ticket.roomId || deleted.deleted !== true) throw new Error(`unexpected delete result ${JSON.stringify(deleted)}`);
  const errors = seen.filter((d) => d.level === 20 || /error/i.test(d.name || ''));
  if (errors.length) throw new Error(`errors reached the debug sidebar: ${JSON.stringify(errors).slice(0, 1000)}`);
  log(`POST /inject: room ${ticket.roomId.slice(0, 8)}… created, ticket issued, room listed and deleted`);
}

async function cleanUp() {
  for (const stop of owned.reverse()) await Promise.resolve().then(stop).catch(() => undefined);
}

const deadline = setTimeout(() => {
  process.stderr.write(`[node-red-smoke] FAILED: took longer than ${LIMIT_MS / 1000} s\n`);
  cleanUp().finally(() => process.exit(1));
}, LIMIT_MS);

main()
  .then(
    () => log('OK'),
    (err) => {
      process.stderr.write(`[node-red-smoke] FAILED: ${err && err.stack ? err.stack : err}\n`);
      process.exitCode = 1;
    },
  )
  .finally(async () => {
    await cleanUp();
    clearTimeout(deadline);
  });
