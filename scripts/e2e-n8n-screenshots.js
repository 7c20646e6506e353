/* global fetch, URL, Buffer, setTimeout, clearTimeout */
// Screenshots of the nodes in a real n8n editor, for the README: starts n8n (installed and set up by
// `npm run e2e:n8n`, whose user folder this reuses) on a free port, creates the owner account,
// and drives Debian's headless Chromium over the DevTools protocol. Writes examples/n8n/screenshots/.
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const WebSocket = require('ws');
const e2e = require('./e2e-n8n');

const ROOT = path.resolve(__dirname, '..');
const WORK = path.join(ROOT, 'tmp', 'n8n-e2e');
const HOME = path.join(WORK, 'home');
const OUT = path.join(ROOT, 'examples', 'n8n', 'screenshots');
const NODE = process.execPath;
const N8N_BIN = path.join(WORK, 'cli', 'node_modules', 'n8n', 'bin', 'n8n');
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const children = new Set();

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (t) => console.log(`[screenshots] ${t}`);

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function start(cmd, args, env, ready) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${path.basename(cmd)} did not start:\n${out.slice(-3000)}`)), 180_000);
    const onData = (chunk) => {
      out += chunk;
      const m = ready.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, match: m });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`${path.basename(cmd)} exited (${code}):\n${out.slice(-3000)}`)));
  });
}

/** A minimal DevTools-protocol client for one page. */
async function page(browserWs) {
  const port = new URL(browserWs).port;
  const targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
  const target = targets.find((t) => t.type === 'page');
  const ws = new WebSocket(target.webSocketDebuggerUrl, { perMessageDeflate: false });
  await new Promise((r, j) => ws.once('open', r).once('error', j));
  let id = 0;
  const pending = new Map();
  const waiters = [];
  ws.on('message', (raw) => {
    const msg = JSON.parse(raw);
    if (msg.id && pending.has(msg.id)) {
      pending.get(msg.id)(msg);
      pending.delete(msg.id);
    } else if (msg.method) for (const w of waiters.filter((x) => x.method === msg.method)) w.resolve(msg.params);
  });
  const send = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const n = ++id;
      pending.set(n, (m) => (m.error ? reject(new Error(`${method}: ${m.error.message}`)) : resolve(m.result)));
      ws.send(JSON.stringify({ id: n, method, params }));
    });
  const once = (method) => new Promise((resolve) => waiters.push({ method, resolve }));
  return { send, once, close: () => ws.close() };
}

async function shoot(p, url, file, settleMs = 6000) {
  const loaded = p.once('Page.loadEventFired');
  await p.send('Page.navigate', { url });
  await Promise.race([loaded, sleep(30_000)]);
  await sleep(settleMs);
  const { data } = await p.send('Page.captureScreenshot', { format: 'png' });
  fs.writeFileSync(path.join(OUT, file), Buffer.from(data, 'base64'));
  log(`wrote ${path.relative(ROOT, path.join(OUT, file))}`);
}

function workflowNodeId(file, name) {
  const wf = JSON.parse(fs.readFileSync(file, 'utf8'));
  return { workflowId: wf.id, nodeId: wf.nodes.find((n) => n.name === name).id };
}

async function main() {
  if (!fs.existsSync(path.join(HOME, '.n8n'))) throw new Error('run `npm run e2e:n8n` first: it installs n8n and the package');
  fs.mkdirSync(OUT, { recursive: true });
  // A sandbox for the credential to reach: the editor tests the credential when it is opened.
  const sandbox = await e2e.startSandbox();
  e2e.importSandboxCredential(sandbox.url);
  const port = await freePort();
  const env = {
    N8N_USER_FOLDER: HOME,
    N8N_ENCRYPTION_KEY: 'e2e-only-encryption-key-not-secret',
    N8N_PORT: String(port),
    N8N_LISTEN_ADDRESS: '127.0.0.1',
    N8N_SECURE_COOKIE: 'false',
    N8N_DIAGNOSTICS_ENABLED: 'false',
    N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
    N8N_TEMPLATES_ENABLED: 'false',
    N8N_PERSONALIZATION_ENABLED: 'false',
    N8N_RUNNERS_ENABLED: 'false',
    PATH: `${path.dirname(NODE)}:${process.env.PATH}`,
  };
  log(`starting n8n on 127.0.0.1:${port}`);
  await start(NODE, [N8N_BIN, 'start'], env, /Editor is now accessible via|n8n ready on/);
  const base = `http://127.0.0.1:${port}`;
  const cookie = await e2e.ownerCookie(base);
  const { match } = await start(
    CHROMIUM,
    ['--headless=new', '--no-sandbox', '--disable-gpu', '--hide-scrollbars', '--remote-debugging-port=0', `--user-data-dir=${path.join(WORK, 'chromium')}`, 'about:blank'],
    {},
    /DevTools listening on (ws:\/\/\S+)/,
  );
  const p = await page(match[1]);
  await p.send('Page.enable');
  await p.send('Network.enable');
  await p.send('Emulation.setDeviceMetricsOverride', { width: 1440, height: 900, deviceScaleFactor: 1, mobile: false });
  await p.send('Network.setCookie', { name: 'n8n-auth', value: cookie, domain: '127.0.0.1', path: '/' });

  const compare = workflowNodeId(path.join(WORK, 'headless-compare-uploaded-photo.json'), 'Compare');
  const alert = workflowNodeId(path.join(ROOT, 'examples', 'n8n', 'alert-on-known-face.json'), 'Face Match Trigger');
  const streaming = workflowNodeId(path.join(WORK, 'screenshot-live-streaming.json'), 'Ticket');
  await shoot(p, `${base}/workflow/${alert.workflowId}`, 'workflow-alert-on-known-face.png');
  await shoot(p, `${base}/workflow/${compare.workflowId}/${compare.nodeId}`, 'node-visual-recognition.png');
  await shoot(p, `${base}/workflow/${streaming.workflowId}/${streaming.nodeId}`, 'node-live-streaming.png');
  await shoot(p, `${base}/workflow/${alert.workflowId}/${alert.nodeId}`, 'node-face-match-trigger.png');
  await shoot(p, `${base}/home/credentials/vsSandboxCred01`, 'credential.png');
  p.close();
}

main()
  .then(() => (process.exitCode = 0))
  .catch((err) => {
    console.error(`[screenshots] FAILED: ${err.stack ?? err}`);
    process.exitCode = 1;
  })
  .finally(() => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
    e2e.stopAll();
  });
