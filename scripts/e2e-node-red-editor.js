#!/usr/bin/env node
/* global fetch, Buffer, setTimeout */
// The Node-RED editor in Debian's headless Chromium, as a user works it: Node-RED (this checkout's)
// with the package (from dist/) and a deployed service configuration pointed at a sandbox with two
// rooms; open the face watch node's dialog, press the room list button, pick a room from the list,
// Done, Deploy; the deployed flow holds the room. A camera node saved with its password in Source
// has it moved to the Password credential as the editor loads the flow, so that Deploy takes it out
// of flows.json. Screenshots go to tmp/node-red-editor/.
// Needs `npm run build` and Chromium (/usr/bin/chromium, or CHROMIUM=...).
// Usage: node scripts/e2e-node-red-editor.js
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { freePort, page, start, stopChildren } = require('./support/browser');

const ROOT = path.resolve(__dirname, '..');
const OUT = path.join(ROOT, 'tmp', 'node-red-editor');
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const cleanups = [];
const CAMERA_PASSWORD = 'Cam-Pa55-word';
/** Takes a screenshot of the page and returns what the picker says, once there is a page. */
let failureShot = async () => '';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (t) => console.log(`[node-red-editor] ${t}`);

function check(condition, text) {
  if (!condition) throw new Error(`check failed: ${text}`);
  log(`ok: ${text}`);
}

async function until(what, probe, ms = 30_000) {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

/** A Node-RED user directory with the package installed from this checkout and a flow to edit. */
function userDir(sandbox) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nr-editor-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.mkdirSync(path.join(dir, 'node_modules'));
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'node-red-user', private: true, dependencies: { 'n8n-nodes-vision-streaming': '*' } }));
  fs.symlinkSync(ROOT, path.join(dir, 'node_modules', 'n8n-nodes-vision-streaming'), 'dir');
  const flows = [
    { id: 'tab', type: 'tab', label: 'door camera' },
    { id: 'svc', type: 'vision-streaming-config', name: 'sandbox', authUrl: sandbox.url, visionUrl: sandbox.url, sfuUrl: sandbox.url },
    { id: 'watch', z: 'tab', type: 'vision-streaming-watch', name: 'door', service: 'svc', roomId: '', collectionId: '', autoStart: false, x: 200, y: 100, wires: [[], [], [], []] },
    // Saved before the password became a credential; never started (no room), so nothing is contacted.
    { id: 'cam', z: 'tab', type: 'vision-streaming-camera', name: 'door camera', service: 'svc', roomId: '', source: `rtsp://door:${CAMERA_PASSWORD}@127.0.0.1:9/stream1`, codec: 'VP8', bitRateKbps: '800', fps: '10', size: '', transport: 'tcp', autoStart: false, x: 200, y: 200, wires: [[]] },
  ];
  fs.writeFileSync(path.join(dir, 'flows.json'), JSON.stringify(flows));
  // credentialSecret false: the credentials file is plain JSON, as Node-RED writes it then.
  fs.writeFileSync(path.join(dir, 'flows_cred.json'), JSON.stringify({ svc: { clientId: sandbox.clientId, clientSecret: 'sandbox-secret' } }));
  return dir;
}

async function main() {
  fs.mkdirSync(OUT, { recursive: true });
  const { startSandbox } = require(path.join(ROOT, 'dist', 'sandbox'));
  const { StreamingClient } = require(path.join(ROOT, 'dist', 'shared', 'streaming'));
  const sandbox = await startSandbox({ port: 0, host: '127.0.0.1' });
  cleanups.push(() => sandbox.stop());
  const streaming = new StreamingClient({ authUrl: sandbox.url, sfuUrl: sandbox.url, clientId: sandbox.clientId, clientSecret: 'sandbox-secret' });
  cleanups.push(() => streaming.close());
  const rooms = [await streaming.createRoom(), await streaming.createRoom()];
  log(`sandbox on ${sandbox.url} with rooms ${rooms.map((r) => r.id).join(', ')}`);

  const dir = userDir(sandbox);
  const port = await freePort();
  fs.writeFileSync(path.join(dir, 'settings.js'), `module.exports = ${JSON.stringify({ uiHost: '127.0.0.1', uiPort: port, flowFile: 'flows.json', credentialSecret: false, logging: { console: { level: 'warn' } }, editorTheme: { tours: false }, telemetry: { enabled: false }, diagnostics: { enabled: false } })};\n`);
  const red = spawn(process.execPath, [path.join(ROOT, 'node_modules', 'node-red', 'red.js'), '--userDir', dir, '--settings', path.join(dir, 'settings.js')], { stdio: 'ignore' });
  cleanups.push(() => red.exitCode === null && red.kill('SIGTERM'));
  const url = `http://127.0.0.1:${port}`;
  await until('Node-RED', async () => (await fetch(`${url}/settings`)).ok, 60_000);
  log(`Node-RED on ${url}`);

  const { match } = await start(
    CHROMIUM,
    ['--headless=new', '--no-sandbox', '--disable-gpu', '--hide-scrollbars', '--no-first-run', '--remote-debugging-port=0', `--user-data-dir=${path.join(OUT, 'chromium')}`, 'about:blank'],
    {},
    /DevTools listening on (ws:\/\/\S+)/,
  );
  const p = await page(match[1]);
  await p.send('Page.enable');
  await p.send('Emulation.setDeviceMetricsOverride', { width: 1280, height: 900, deviceScaleFactor: 1, mobile: false });
  const js = async (expression) => {
    const { result, exceptionDetails } = await p.send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true });
    if (exceptionDetails) throw new Error(`${expression}: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
    return result.value;
  };
  /** A real mouse click in the middle of the element `selector` finds. */
  const click = async (selector) => {
    const box = await js(`(() => { const r = document.querySelector(${JSON.stringify(selector)}).getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 }; })()`);
    for (const type of ['mousePressed', 'mouseReleased']) await p.send('Input.dispatchMouseEvent', { type, x: box.x, y: box.y, button: 'left', clickCount: 1 });
  };
  const shot = async (file) => {
    const { data } = await p.send('Page.captureScreenshot', { format: 'png' });
    fs.writeFileSync(path.join(OUT, file), Buffer.from(data, 'base64'));
    log(`wrote ${path.relative(ROOT, path.join(OUT, file))}`);
  };

  await p.send('Page.navigate', { url });
  await until('the editor with the flow', () => js("typeof RED !== 'undefined' && !!RED.nodes && !!RED.nodes.node('watch') && !!window.visionStreamingPicker"), 60_000);
  await js("RED.editor.edit(RED.nodes.node('watch'))");
  await until('the face watch dialog', () => js("!!document.querySelector('.vs-pick-rooms') && $('.vs-pick-rooms').is(':visible')"));
  // The dialog slides in: click once the button has stopped moving.
  let last = '';
  await until('the dialog to settle', async () => {
    const now = await js("JSON.stringify(document.querySelector('.vs-pick-rooms').getBoundingClientRect())");
    const settled = now === last;
    last = now;
    return settled;
  });
  await click('.vs-pick-rooms');
  failureShot = () => shot('failure.png').then(() => js("$('.vs-pick-note').map((i, n) => $(n).text()).get().join(' | ')"));
  const options = await until('the room list', () => js("$('.vs-pick-list:visible option').map((i, o) => o.value).get().length ? $('.vs-pick-list:visible option').map((i, o) => ({ value: o.value, text: o.textContent })).get() : undefined"));
  check(options.length === 2 && rooms.every((r) => options.some((o) => o.value === r.id)), `the list shows the sandbox's rooms: ${options.map((o) => o.text).join('; ')}`);
  await shot('room-list.png');
  const chosen = rooms[1].id;
  await click(`.vs-pick-list option[value="${chosen}"]`);
  check((await js("$('#node-input-roomId').val()")) === chosen, `picking fills the Room field with ${chosen}`);
  await shot('room-picked.png');
  await click('#node-dialog-ok');
  await until('the dialog to close', () => js("!document.querySelector('#node-dialog-ok')"));
  await click('#red-ui-header-button-deploy');
  const deployed = await until('the deployed flow with the room', async () => {
    const flows = await (await fetch(`${url}/flows`)).json();
    const watch = flows.find((n) => n.id === 'watch');
    return watch?.roomId === chosen ? watch : undefined;
  });
  check(deployed.roomId === chosen, 'Deploy saved the picked room in the flow');
  const camera = (await (await fetch(`${url}/flows`)).json()).find((n) => n.id === 'cam');
  check(camera.source === 'rtsp://door@127.0.0.1:9/stream1', `the camera's Source lost its password on Deploy: ${camera.source}`);
  check(!fs.readFileSync(path.join(dir, 'flows.json'), 'utf8').includes(CAMERA_PASSWORD), 'flows.json holds no camera password');
  check(JSON.parse(fs.readFileSync(path.join(dir, 'flows_cred.json'), 'utf8')).cam?.password === CAMERA_PASSWORD, 'the password is the camera node\'s credential');
  await shot('deployed.png');
  p.close();
}

main()
  .then(() => (process.exitCode = 0))
  .catch(async (err) => {
    const note = await failureShot().catch(() => '');
    console.error(`[node-red-editor] FAILED: ${err.stack ?? err}${note ? `; the picker says: ${note}` : ''}`);
    process.exitCode = 1;
  })
  .finally(async () => {
    stopChildren();
    for (const cleanup of cleanups.reverse()) await Promise.resolve(cleanup()).catch(() => undefined);
  });
