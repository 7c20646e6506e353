#!/usr/bin/env node
/* global fetch, setTimeout, clearTimeout -- Node globals */
// `npm start`: the sandbox on 127.0.0.1:8787, a camera clip published into one of its rooms, a
// collection that knows one person in it, and Node-RED on 127.0.0.1:1880 with this package and
// Dashboard 2.0 loaded and the demo flow (scripts/demo-flow.json) deployed. Ctrl-C stops it all.
// Needs `npm run build` first (npm start does it). DEMO_CAMERA=rtsp://user:pass@camera/stream1 (or
// `npm start -- --camera URL`) publishes the user's own camera instead of the built-in clip: any
// source `vision-streaming publish` takes (RTSP, MJPEG or snapshot URL, /dev/videoN, a video file).
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { makeClip, enrolmentPhoto } = require('./demo-clip');

const ROOT = path.resolve(__dirname, '..');
const PKG = require(path.join(ROOT, 'package.json'));
const HOST = '127.0.0.1';
const SANDBOX_PORT = Number(process.env.DEMO_SANDBOX_PORT || 8787);
const NODE_RED_PORT = Number(process.env.DEMO_NODE_RED_PORT || 1880);
const CLIENT = { clientId: 'sandbox-client', clientSecret: 'sandbox-secret' };
const KNOWN_LABEL = 'Astronaut (known)';
const CAMERA = cameraArgument();

/** The user's camera: `--camera URL` or DEMO_CAMERA; undefined for the built-in clip. */
function cameraArgument() {
  const i = process.argv.indexOf('--camera');
  const value = i >= 0 ? process.argv[i + 1] : process.env.DEMO_CAMERA;
  return value && value.trim() ? value.trim() : undefined;
}

const owned = [];
let stopping;

function say(text) {
  process.stdout.write(`[demo] ${text}\n`);
}

/** Stops everything this script started, newest first; safe to call twice. */
function stopAll() {
  stopping ??= (async () => {
    for (const stop of owned.reverse()) await Promise.resolve().then(stop).catch(() => undefined);
  })();
  return stopping;
}

async function main() {
  const core = require(path.join(ROOT, 'dist', 'shared'));
  const { startSandbox } = require(path.join(ROOT, 'dist', 'sandbox'));

  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'vision-streaming-demo-'));
  owned.push(() => fs.rmSync(work, { recursive: true, force: true }));

  const sandbox = await startSandbox({ host: HOST, port: SANDBOX_PORT, ...CLIENT, eagerModel: true }).catch((err) => {
    throw new Error(`the sandbox could not listen on ${HOST}:${SANDBOX_PORT} (${err.code || err.message}); set DEMO_SANDBOX_PORT to use another port`);
  });
  owned.push(() => sandbox.stop());
  say(`sandbox on ${sandbox.url}`);

  const credentials = { authUrl: sandbox.url, ...CLIENT };
  const vision = new core.VisionClient({ ...credentials, visionUrl: sandbox.url });
  const streaming = new core.StreamingClient({ ...credentials, sfuUrl: sandbox.url });
  owned.push(() => vision.close(), () => streaming.close());

  const { collectionId } = await vision.createCollection();
  const { faceId } = await vision.addFace(collectionId, await enrolmentPhoto());
  const room = await streaming.createRoom();
  say(`collection ${collectionId} knows one face (${KNOWN_LABEL})`);
  say(`room ${room.id}`);

  if (CAMERA) {
    // The user's camera, encoded to VP8: what the demo's face watch node reads with its defaults.
    const camera = new core.CameraPublisher({ source: CAMERA, getTicket: streaming.ticketSource(room.id, 'up'), loopbackOnly: true });
    camera.on('status', (s) => say(`camera ${s.source}: ${s.state}${s.reason ? ` (${s.reason})` : ''}`));
    owned.push(() => camera.stop());
    await camera.start();
    say(`your camera is publishing into the room as stream ${camera.streamId}; enrol your own face in the collection to get matches`);
  } else {
    const ffmpegPath = await core.findFfmpeg();
    const clip = await makeClip(work, ffmpegPath);
    // The clip in its two key-frame phases, as a camera encoded with the default two sends it.
    const source = new core.StaggeredSource(await Promise.all(clip.phases.map((file) => core.openVideoSource({ file, loop: true, fps: clip.fps }))));
    owned.push(() => source.close());
    const publisher = new core.Publisher({ source, getTicket: streaming.ticketSource(room.id, 'up'), loopbackOnly: true });
    owned.push(() => publisher.close());
    await publisher.start();
    say('a camera clip is streaming into the room');
  }

  const userDir = prepareNodeRed(work, { sandboxUrl: sandbox.url, roomId: room.id, collectionId, labels: { [faceId]: KNOWN_LABEL } });
  const url = await startNodeRed(userDir);
  say(`Node-RED editor:  ${url}/   (debug sidebar: matches with snapshots)`);
  say(`dashboard:        ${url}/dashboard/watch   (the room live with faces boxed and named, latest match, recent events, who is here now, the last stranger, each visit's clip)`);
  say(`People page:      ${url}/dashboard/people   (who the directory knows, strangers to name, forget)`);
  say(`History page:     ${url}/dashboard/history   (the day's visits on a timeline with their faces, a person filter, a day picker, each visit's clip)`);
  say('the same room from the command line (another terminal, in this folder):');
  say(`  ${watchLine(sandbox.url, room.id, collectionId)}`);
  say('Ctrl-C stops everything.');
}

/** A `vision-streaming watch` command for the demo's room, ready to paste (the sandbox's public placeholder secret). */
function watchLine(sandboxUrl, roomId, collectionId) {
  const urls = ['auth', 'vision', 'sfu'].map((service) => `--${service}-url ${sandboxUrl}`).join(' ');
  return `VS_CLIENT_SECRET=${CLIENT.clientSecret} npx vision-streaming watch --client-id ${CLIENT.clientId} ${urls} --room ${roomId} --collection ${collectionId}`;
}

/** A Node-RED user directory with this package and Dashboard 2.0 linked in, and the demo flow. */
function prepareNodeRed(work, { sandboxUrl, roomId, collectionId, labels }) {
  const userDir = path.join(work, 'node-red');
  const modules = path.join(userDir, 'node_modules');
  fs.mkdirSync(path.join(modules, '@flowfuse'), { recursive: true });
  fs.symlinkSync(ROOT, path.join(modules, PKG.name), 'dir');
  // The live view's widget package (built into dashboard/resources/ by npm run build): Dashboard 2.0
  // finds it by its name among the user directory's dependencies, as an npm install leaves them.
  const widget = JSON.parse(fs.readFileSync(path.join(ROOT, 'dashboard', 'package.json'), 'utf8'));
  fs.symlinkSync(path.join(ROOT, 'dashboard'), path.join(modules, widget.name), 'dir');
  fs.symlinkSync(path.dirname(require.resolve('@flowfuse/node-red-dashboard/package.json')), path.join(modules, '@flowfuse', 'node-red-dashboard'), 'dir');
  fs.writeFileSync(path.join(userDir, 'package.json'), JSON.stringify({ name: 'node-red-demo', private: true, dependencies: { [PKG.name]: PKG.version, [widget.name]: widget.version, '@flowfuse/node-red-dashboard': '*' } }, null, 2));
  // Each visit's clip: a folder only this user can enter (clips show people), as the watch node requires.
  const clips = path.join(userDir, 'clips');
  fs.mkdirSync(clips, { mode: 0o700 });
  fs.chmodSync(clips, 0o700);
  // The watch page's nodes, the People page's (scripts/demo-people-flow.json) and the History page's
  // (scripts/demo-history-flow.json), with the same placeholders.
  const text = JSON.stringify(['demo-flow.json', 'demo-people-flow.json', 'demo-history-flow.json'].flatMap((file) => JSON.parse(fs.readFileSync(path.join(__dirname, file), 'utf8'))))
    .split('"__SANDBOX__"').join(JSON.stringify(sandboxUrl))
    .split('"__ROOM__"').join(JSON.stringify(roomId))
    .split('"__COLLECTION__"').join(JSON.stringify(collectionId))
    .split('"__CLIPS__"').join(JSON.stringify(clips))
    .split('"__LABELS__"').join(JSON.stringify(JSON.stringify(labels)));
  const flow = JSON.parse(text);
  fs.writeFileSync(path.join(userDir, 'flows.json'), JSON.stringify(flow, null, 2));
  const config = flow.find((n) => n.type === 'vision-streaming-config');
  // Credentials of the sandbox's public placeholder client, in Node-RED's unencrypted form.
  fs.writeFileSync(path.join(userDir, 'flows_cred.json'), JSON.stringify({ [config.id]: CLIENT }));
  // Dashboard 2.0 (1.31.0, the newest) exits on one malformed widget message from any visitor: every
  // dashboard socket gets the package's guard from its first packet (docs/security.md).
  const guard = path.join(ROOT, 'dist', 'node-red', 'live-guard.js');
  fs.writeFileSync(
    path.join(userDir, 'settings.js'),
    `module.exports = { uiHost: '${HOST}', uiPort: ${NODE_RED_PORT}, flowFile: 'flows.json', credentialSecret: false, ` +
      `dashboard: { ioMiddleware: require(${JSON.stringify(guard)}).dashboardIoMiddleware }, ` +
      `logging: { console: { level: 'info' } }, editorTheme: { tours: false, projects: { enabled: false } } };\n`,
  );
  return userDir;
}

async function startNodeRed(userDir) {
  const red = require.resolve('node-red/red.js');
  const child = spawn(process.execPath, [red, '--userDir', userDir, '--settings', path.join(userDir, 'settings.js')], { stdio: ['ignore', 'inherit', 'inherit'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  owned.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  });
  const url = `http://${HOST}:${NODE_RED_PORT}`;
  const until = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`Node-RED exited (code ${child.exitCode}); is port ${NODE_RED_PORT} free? (DEMO_NODE_RED_PORT picks another)`);
    const ok = await fetch(`${url}/settings`).then((r) => r.ok, () => false);
    if (ok) return url;
    if (Date.now() > until) throw new Error('Node-RED did not start within 60 s');
    await new Promise((r) => setTimeout(r, 300));
  }
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    say('stopping...');
    stopAll().finally(() => process.exit(0));
  });
}

main().catch((err) => {
  process.stderr.write(`[demo] failed: ${err && err.message ? err.message : err}\n`);
  stopAll().finally(() => process.exit(1));
});
