/* global Buffer, setTimeout */
// Screenshots of the nodes in a real n8n editor, for the README: starts n8n (installed and set up by
// `npm run e2e:n8n`, whose user folder this reuses) on a free port, creates the owner account,
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

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (t) => console.log(`[screenshots] ${t}`);

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
    stopChildren();
    e2e.stopAll();
  });
