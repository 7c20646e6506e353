/* global Buffer, setTimeout */
// Screenshots of the nodes in a real n8n editor, for the README: starts n8n (installed and set up by
// `npm run e2e:n8n`, whose user folder and door clip this reuses) on a free port, creates the owner account,
// and drives Debian's headless Chromium over the DevTools protocol. Writes examples/n8n/screenshots/.
const fs = require('node:fs');
const path = require('node:path');
const e2e = require('./e2e-n8n');
const { freePort, page, start, stopChildren } = require('./support/browser');

const ROOT = path.resolve(__dirname, '..');
const WORK = path.join(ROOT, 'tmp', 'n8n-e2e');
const HOME = path.join(WORK, 'home');
const OUT = path.join(ROOT, 'examples', 'n8n', 'screenshots');
const NODE = process.execPath;
const N8N_BIN = path.join(WORK, 'cli', 'node_modules', 'n8n', 'bin', 'n8n');
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

const cleanups = [];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (t) => console.log(`[screenshots] ${t}`);

async function shoot(p, url, file, settleMs = 6000) {
  const loaded = p.once('Page.loadEventFired');
  await p.send('Page.navigate', { url });
  await Promise.race([loaded, sleep(30_000)]);
  await capture(p, file, settleMs);
}

async function capture(p, file, settleMs) {
  await sleep(settleMs);
  const { data } = await p.send('Page.captureScreenshot', { format: 'png' });
  fs.writeFileSync(path.join(OUT, file), Buffer.from(data, 'base64'));
  log(`wrote ${path.relative(ROOT, path.join(OUT, file))}`);
}

/** A real mouse click in the middle of the element: n8n's dropdowns open on the pointer events, not on click(). */
async function click(p, selector) {
  const found = await p.send('Runtime.evaluate', { expression: `JSON.stringify(document.querySelector(${JSON.stringify(selector)})?.getBoundingClientRect() ?? null)`, returnByValue: true });
  const box = JSON.parse(found.result.value);
  if (!box) throw new Error(`nothing matches ${selector} in the editor`);
  const at = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  await p.send('Input.dispatchMouseEvent', { type: 'mouseMoved', ...at });
  await p.send('Input.dispatchMouseEvent', { type: 'mousePressed', ...at, button: 'left', clickCount: 1 });
  await p.send('Input.dispatchMouseEvent', { type: 'mouseReleased', ...at, button: 'left', clickCount: 1 });
}

function workflowNodeId(file, name) {
  const wf = JSON.parse(fs.readFileSync(file, 'utf8'));
  return { workflowId: wf.id, nodeId: wf.nodes.find((n) => n.name === name).id };
}

/** Rooms for the trigger's room list, one of them on air with the end-to-end run's door clip. */
async function roomsToPick(sandbox) {
  const { StreamingClient } = require(path.join(ROOT, 'dist', 'shared', 'streaming'));
  const { openVideoSource, Publisher } = require(path.join(ROOT, 'dist', 'shared', 'publish'));
  const rooms = new StreamingClient({ authUrl: sandbox.url, sfuUrl: sandbox.url, clientId: 'sandbox-client', clientSecret: 'sandbox-secret' });
  const created = [await rooms.createRoom(), await rooms.createRoom(), await rooms.createRoom()];
  const source = await openVideoSource({ file: path.join(WORK, 'door.ivf'), loop: true, fps: 10 });
  const publisher = new Publisher({ source, getTicket: rooms.ticketSource(created[1].id, 'up'), loopbackOnly: true });
  await publisher.start();
  // Cleanups run last first: the publisher closes, then the source opened for it, then the client.
  cleanups.push(() => rooms.close(), () => source.close(), () => publisher.close());
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
  await roomsToPick(sandbox);
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
  await click(p, '[data-test-id="resource-locator-roomId"] [data-test-id="rlc-input"]');
  await capture(p, 'node-face-match-trigger-room-list.png', 3000);
  await shoot(p, `${base}/home/credentials/vsSandboxCred01`, 'credential.png');
  p.close();
}

main()
  .then(() => (process.exitCode = 0))
  .catch((err) => {
    console.error(`[screenshots] FAILED: ${err.stack ?? err}`);
    process.exitCode = 1;
  })
  .finally(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    stopChildren();
    e2e.stopAll();
  });
