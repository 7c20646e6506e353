/* global setTimeout, clearTimeout, fetch, Buffer */
// End-to-end check with a real n8n CLI: packs this package, installs it into a fresh n8n user folder
// as a community package, starts the sandbox, imports the sandbox credential and the example
// workflows, runs the enrol and compare workflows headless (`n8n execute`) and checks their output;
// with n8n running, keeps a person in a data table through its public API (Person Add and List).
// n8n itself is installed once by e2e-n8n-install.sh into tmp/n8n-e2e/cli (ignored by git).
// Run with `npm run e2e:n8n`. Everything listens on 127.0.0.1 and is stopped at the end.
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const WORK = path.join(ROOT, 'tmp', 'n8n-e2e');
const HOME = path.join(WORK, 'home');
const FILES = path.join(WORK, 'files');
const NODE = process.execPath;
const N8N_BIN = path.join(WORK, 'cli', 'node_modules', 'n8n', 'bin', 'n8n');
const PKG = require(path.join(ROOT, 'package.json'));
const started = Date.now();
const children = new Set();

function log(text) {
  console.log(`[e2e:n8n ${((Date.now() - started) / 1000).toFixed(1)}s] ${text}`);
}

function run(cmd, args, options = {}) {
  return execFileSync(cmd, args, { cwd: ROOT, stdio: options.capture ? 'pipe' : 'inherit', encoding: 'utf8', env: { ...process.env, ...(options.env ?? {}) }, maxBuffer: 64 * 1024 * 1024, ...options });
}

/**
 * Ports of n8n's task broker (n8n 2 always starts one, on 5679 unless told): one for the CLI
 * commands, another for the running n8n, so that `n8n execute` works while n8n runs. Chosen in main.
 */
const BROKER = { cli: 0, server: 0 };

/** Environment of every n8n command: its own user folder, no telemetry, files only from FILES. */
function n8nEnv() {
  return {
    ...(BROKER.cli ? { N8N_RUNNERS_BROKER_PORT: String(BROKER.cli) } : {}),
    N8N_USER_FOLDER: HOME,
    N8N_ENCRYPTION_KEY: 'e2e-only-encryption-key-not-secret',
    N8N_DIAGNOSTICS_ENABLED: 'false',
    N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
    N8N_TEMPLATES_ENABLED: 'false',
    N8N_RESTRICT_FILE_ACCESS_TO: FILES,
    N8N_LOG_LEVEL: 'warn',
    N8N_RUNNERS_ENABLED: 'false',
    DB_TYPE: 'sqlite',
    PATH: `${path.dirname(NODE)}:${process.env.PATH}`,
  };
}

/** Runs an n8n command; when it fails, the error shows what n8n printed (the end of it). */
function n8n(args) {
  try {
    return run(NODE, [N8N_BIN, ...args], { capture: true, env: n8nEnv(), cwd: WORK });
  } catch (err) {
    const tail = (text) => String(text ?? '').trim().slice(-4000) || '(nothing)';
    throw new Error(`n8n ${args.join(' ')} failed (exit ${err.status ?? err.signal}):\n--- stdout (end) ---\n${tail(err.stdout)}\n--- stderr (end) ---\n${tail(err.stderr)}`);
  }
}

/** A free TCP port on 127.0.0.1. */
function freePort() {
  return new Promise((resolve, reject) => {
    const s = require('node:net').createServer().once('error', reject).listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Starts the sandbox on a free port; resolves with its URL once it listens. */
function startSandbox() {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, [path.join(ROOT, 'dist', 'sandbox', 'main.js')], { cwd: ROOT, env: { ...process.env, SANDBOX_PORT: '0', SANDBOX_EAGER_MODEL: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the sandbox did not start: ${out}`)), 60_000);
    const onData = (chunk) => {
      out += chunk;
      const m = /(http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1], child });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`the sandbox exited (${code}): ${out}`)));
  });
}

/** Test photos: the public-domain astronaut fixture cropped so that the face is ~200 px and ~160 px wide. */
async function writePhotos() {
  const sharp = require(path.join(ROOT, 'node_modules', 'sharp'));
  const source = path.join(ROOT, 'test', 'fixtures', 'astronaut.jpg');
  fs.mkdirSync(FILES, { recursive: true });
  const region = { left: 47, top: 10, width: 348, height: 286 };
  await sharp(source).extract(region).resize({ width: 600 }).jpeg({ quality: 92 }).toFile(path.join(FILES, 'enrol.jpg'));
  await sharp(source).extract(region).resize({ width: 480 }).jpeg({ quality: 92 }).toFile(path.join(FILES, 'visitor.jpg'));
}

/**
 * The example workflow with its webhook replaced by what a headless run can start from: a manual
 * trigger and a file read that puts the photo where the webhook would (binary property "photo").
 * The replacement keeps the name "Webhook", so the example's expressions still resolve.
 */
function headless(file, photo) {
  const wf = JSON.parse(fs.readFileSync(path.join(ROOT, 'examples', 'n8n', file), 'utf8'));
  const webhook = wf.nodes.find((n) => n.name === 'Webhook');
  Object.assign(webhook, {
    type: 'n8n-nodes-base.readWriteFile',
    typeVersion: 1,
    parameters: { operation: 'read', fileSelector: path.join(FILES, photo), options: { dataPropertyName: 'photo' } },
  });
  delete webhook.webhookId;
  wf.nodes.unshift({ parameters: {}, id: 'e2e-start', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [-220, 0] });
  wf.connections.Start = { main: [[{ node: 'Webhook', type: 'main', index: 0 }]] };
  const out = path.join(WORK, `headless-${file}`);
  fs.writeFileSync(out, JSON.stringify(wf, null, 2));
  return { id: wf.id, file: out };
}

/** A workflow of its own for the Live Streaming node: create a room, then a viewer ticket for it. */
function liveStreamingWorkflow() {
  const cred = { visionStreamingApi: { id: 'vsSandboxCred01', name: 'Vision & Streaming sandbox' } };
  const type = `${PKG.name}.liveStreaming`;
  const wf = {
    id: 'vsLiveStream001',
    name: 'Live Streaming: a room and a ticket',
    nodes: [
      { parameters: {}, id: 'ls-start', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0] },
      { parameters: { resource: 'room', operation: 'create' }, id: 'ls-room', name: 'Live Streaming', type, typeVersion: 1, position: [220, 0], credentials: cred },
      { parameters: { resource: 'ticket', operation: 'create', roomId: '={{ $json.roomId }}', direction: 'up' }, id: 'ls-ticket', name: 'Ticket', type, typeVersion: 1, position: [440, 0], credentials: cred },
    ],
    connections: { Start: { main: [[{ node: 'Live Streaming', type: 'main', index: 0 }]] }, 'Live Streaming': { main: [[{ node: 'Ticket', type: 'main', index: 0 }]] } },
    settings: { executionOrder: 'v1' },
    active: false,
  };
  const file = path.join(WORK, 'screenshot-live-streaming.json');
  fs.writeFileSync(file, JSON.stringify(wf, null, 2));
  return { id: wf.id, file };
}

/**
 * Runs a workflow with `n8n execute` and returns the run data n8n stored for it. (n8n 2.41 prints
 * an empty object for a successful run, so the result is read from its database.)
 */
async function execute(id) {
  const before = await latestExecution(id);
  try {
    n8n(['execute', `--id=${id}`, '--rawOutput']);
  } catch (err) {
    const row = await latestExecution(id);
    const stored = row && row.id !== before?.id ? `\n--- stored execution ${row.id} (${row.status}) ---\n${executionErrors(row.data)}` : '\n(n8n stored no execution of this run)';
    err.message += stored;
    throw err;
  }
  const row = await latestExecution(id);
  if (!row || row.id === before?.id) throw new Error(`n8n stored no execution of ${id}`);
  const { parse } = require(path.join(WORK, 'cli', 'node_modules', 'flatted'));
  const data = parse(row.data);
  log(`execution ${row.id} of ${id}: ${row.status}`);
  return data.resultData;
}

/** The errors a stored execution holds: the run's own and each failed node's. */
function executionErrors(raw) {
  const { parse } = require(path.join(WORK, 'cli', 'node_modules', 'flatted'));
  const data = parse(raw).resultData ?? {};
  const lines = [];
  if (data.error) lines.push(`run: ${data.error.message}${data.error.description ? ` (${data.error.description})` : ''}`);
  for (const [node, runs] of Object.entries(data.runData ?? {})) {
    for (const r of runs) if (r.error) lines.push(`node "${node}": ${r.error.message}${r.error.description ? ` (${r.error.description})` : ''}`);
  }
  return lines.join('\n') || '(no error recorded)';
}

function latestExecution(workflowId) {
  const sql = 'SELECT e.id, e.status, d.data FROM execution_entity e JOIN execution_data d ON d.executionId = e.id WHERE e.workflowId = ? ORDER BY e.id DESC LIMIT 1';
  return dbGet(sql, [workflowId]);
}

/** One query on n8n's database (read-only), through the sqlite3 module n8n itself uses. */
function dbQuery(method, sql, params) {
  const sqlite3 = require(path.join(WORK, 'cli', 'node_modules', 'sqlite3'));
  const db = new sqlite3.Database(path.join(HOME, '.n8n', 'database.sqlite'), sqlite3.OPEN_READONLY);
  return new Promise((resolve, reject) => db[method](sql, params, (err, result) => db.close(() => (err ? reject(err) : resolve(result)))));
}

const dbGet = (sql, params) => dbQuery('get', sql, params);
const dbAll = (sql, params) => dbQuery('all', sql, params);

function output(resultData, node) {
  const run = resultData.runData?.[node]?.[0];
  if (!run) throw new Error(`node "${node}" did not run; error: ${JSON.stringify(resultData.error ?? null)}`);
  if (run.error) throw new Error(`node "${node}" failed: ${run.error.message}`);
  return run.data.main.flat().map((i) => i.json);
}

function check(condition, text) {
  if (!condition) throw new Error(`check failed: ${text}`);
  log(`ok: ${text}`);
}

async function main() {
  run('bash', [path.join(__dirname, 'e2e-n8n-install.sh')]);
  BROKER.cli = await freePort();
  do BROKER.server = await freePort();
  while (BROKER.server === BROKER.cli);
  fs.rmSync(HOME, { recursive: true, force: true });
  fs.rmSync(FILES, { recursive: true, force: true });
  fs.mkdirSync(HOME, { recursive: true });

  log('building and packing the package');
  run('npm', ['run', 'build', '--silent']);
  const packed = run('npm', ['pack', '--silent', '--pack-destination', WORK], { capture: true }).trim().split('\n').pop();
  const tarball = path.join(WORK, packed);

  log(`installing ${packed} as a community package (runtime dependencies from the registry, no install scripts, no optional dependencies)`);
  const nodesDir = path.join(HOME, '.n8n', 'nodes');
  fs.mkdirSync(nodesDir, { recursive: true });
  fs.writeFileSync(path.join(nodesDir, 'package.json'), JSON.stringify({ name: 'installed-nodes', private: true, dependencies: {} }, null, 2));
  run('npm', ['install', tarball, '--ignore-scripts', '--omit=optional', '--omit=peer', '--omit=dev', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: nodesDir });

  // The n8n Cloud package beside it, installed as n8n installs a verified package: the tarball
  // alone, no dependency fetched (it has none), no scripts.
  log('building the n8n Cloud package and installing it beside the main one (nothing fetched)');
  const cloudTarball = run(NODE, [path.join(__dirname, 'pack-cloud.js')], { capture: true }).trim().split('\n').pop();
  const cloudName = JSON.parse(fs.readFileSync(path.join(ROOT, 'cloud', 'package.json'), 'utf8')).name;
  const cloudDir = path.join(nodesDir, 'node_modules', cloudName);
  fs.mkdirSync(cloudDir, { recursive: true });
  run('tar', ['-xzf', cloudTarball, '-C', cloudDir, '--strip-components=1']);
  const installed = JSON.parse(fs.readFileSync(path.join(nodesDir, 'package.json'), 'utf8'));
  installed.dependencies[cloudName] = `file:${cloudTarball}`;
  fs.writeFileSync(path.join(nodesDir, 'package.json'), JSON.stringify(installed, null, 2));
  check(!fs.existsSync(path.join(cloudDir, 'node_modules')), 'the Cloud package came with no node_modules of its own');

  await writePhotos();
  const sandbox = await startSandbox();
  log(`sandbox on ${sandbox.url}`);

  importSandboxCredential(sandbox.url);
  const enrol = headless('enrol-faces.json', 'enrol.jpg');
  const compare = headless('compare-uploaded-photo.json', 'visitor.jpg');
  const live = liveStreamingWorkflow();
  for (const wf of [enrol, compare, live]) log(n8n(['import:workflow', `--input=${wf.file}`]).trim());
  log(n8n(['import:workflow', `--input=${path.join(ROOT, 'examples', 'n8n', 'alert-on-known-face.json')}`]).trim());

  log('enrol (first run creates the collection)');
  const first = output(await execute(enrol.id), 'Enrolled');
  check(first.length === 1 && /^[0-9a-f-]{36}$/.test(first[0].faceId) && /^[0-9a-f-]{36}$/.test(first[0].collectionId), `enrolled face ${first[0]?.faceId} in collection ${first[0]?.collectionId}`);
  log('enrol again (the collection is found)');
  const second = output(await execute(enrol.id), 'Enrolled');
  check(second[0].collectionId === first[0].collectionId && second[0].faceId !== first[0].faceId, 'the second face went into the same collection');

  log('compare a visitor photo of the same person');
  const known = output(await execute(compare.id), 'Known');
  check(known.length === 1 && known[0].known === true && [first[0].faceId, second[0].faceId].includes(known[0].faceId), `known face ${known[0]?.faceId}, score ${known[0]?.score}`);

  log('live streaming: a room, then a ticket to broadcast into it');
  const liveRun = await execute(live.id);
  const room = output(liveRun, 'Live Streaming')[0];
  const ticket = output(liveRun, 'Ticket')[0];
  check(/^wss?:\/\//.test(ticket.url) && ticket.roomId === room.roomId && ticket.direction === 'up' && !('accessToken' in ticket), `room ${room.roomId}, ticket without its access token`);

  const alertRow = await dbGet('SELECT id, active FROM workflow_entity WHERE id = ?', ['vsAlertKnown001']);
  check(alertRow !== undefined, 'the alert workflow (Face Match Trigger) is imported');

  // One token for every run: each `n8n execute` is a process of its own, like a queue-mode worker.
  const stats = await (await fetch(`${sandbox.url}/_sandbox/stats`)).json();
  check(stats.tokensIssued === 1, `one token served all four executions (tokens issued: ${stats.tokensIssued})`);
  const exported = path.join(WORK, 'exported-credentials.json');
  n8n(['export:credentials', '--id=vsSandboxCred01', '--decrypted', `--output=${exported}`]);
  const stored = JSON.parse(fs.readFileSync(exported, 'utf8'))[0].data;
  fs.rmSync(exported);
  check(typeof stored.accessToken === 'string' && stored.accessToken.length > 8 && stored.apiKey.length > 8, 'n8n stored the token and API key with the credential');
  const rows = await dbAll('SELECT data FROM execution_data', []);
  const everything = rows.map((r) => r.data).join('\n');
  check(![stored.accessToken, stored.apiKey, stored.clientSecret].some((secret) => everything.includes(secret)), 'no token, API key or secret in any stored execution');

  log('the n8n Cloud package: the same workflows with its node types and credential, side by side with the main package');
  await cloudWorkflows(sandbox.url, cloudName, first[0].faceId, second[0].faceId);

  log('alert on a known face: the published trigger in a running n8n');
  await alertOnKnownFace(sandbox, first[0].collectionId);
  log(`passed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

/**
 * Moves the enrol, compare and live streaming workflows to the n8n Cloud package the way its README
 * says (the package prefix of each node type, and its credential), runs them, and checks they
 * give what the main package's gave.
 */
async function cloudWorkflows(url, cloudName, ...knownFaces) {
  const creds = JSON.parse(fs.readFileSync(path.join(ROOT, 'examples', 'n8n', 'credentials.sandbox.json'), 'utf8'));
  for (const c of creds) Object.assign(c, { id: 'vsCloudCred0001', name: 'Vision & Streaming sandbox (Cloud)', type: 'visionStreamingCloudApi' }, { data: { ...c.data, authUrl: url, visionUrl: url, sfuUrl: url } });
  const credFile = path.join(WORK, 'credentials-cloud.json');
  fs.writeFileSync(credFile, JSON.stringify(creds, null, 2));
  n8n(['import:credentials', `--input=${credFile}`]);
  const move = (wf, id) => {
    const json = JSON.parse(fs.readFileSync(wf.file, 'utf8'));
    json.id = id;
    json.name = `${json.name} (Cloud)`;
    for (const node of json.nodes) {
      if (!node.type.startsWith(`${PKG.name}.`)) continue;
      node.type = `${cloudName}.${node.type.slice(PKG.name.length + 1)}`;
      node.credentials = { visionStreamingCloudApi: { id: 'vsCloudCred0001', name: 'Vision & Streaming sandbox (Cloud)' } };
    }
    const file = wf.file.replace(/\.json$/, '-cloud.json');
    fs.writeFileSync(file, JSON.stringify(json, null, 2));
    log(n8n(['import:workflow', `--input=${file}`]).trim());
    return id;
  };
  const compare = move(headless('compare-uploaded-photo.json', 'visitor.jpg'), 'vsCloudCompare1');
  const live = move(liveStreamingWorkflow(), 'vsCloudLive0001');
  const known = output(await execute(compare), 'Known');
  check(known.length === 1 && known[0].known === true && knownFaces.includes(known[0].faceId), `Cloud package: known face ${known[0]?.faceId}, score ${known[0]?.score}`);
  const liveRun = await execute(live);
  const room = output(liveRun, 'Live Streaming')[0];
  const ticket = output(liveRun, 'Ticket')[0];
  check(/^wss?:\/\//.test(ticket.url) && ticket.roomId === room.roomId && !('accessToken' in ticket), `Cloud package: room ${room.roomId} and its ticket`);
}

function stopAll() {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
}

/** A clip of the enrolled person (the face ~150 px wide) on a plain background: VP8 in IVF, 10 fps. */
async function writeClip() {
  const sharp = require(path.join(ROOT, 'node_modules', 'sharp'));
  const ffmpeg = require(path.join(ROOT, 'node_modules', '@ffmpeg-installer', 'linux-x64', 'package.json')) && path.join(ROOT, 'node_modules', '@ffmpeg-installer', 'linux-x64', 'ffmpeg');
  const person = await sharp(path.join(ROOT, 'test', 'fixtures', 'astronaut.jpg')).extract({ left: 47, top: 10, width: 348, height: 286 }).resize({ width: 450 }).toBuffer();
  const frame = path.join(WORK, 'door-frame.jpg');
  await sharp({ create: { width: 640, height: 480, channels: 3, background: { r: 90, g: 110, b: 130 } } }).composite([{ input: person, left: 95, top: 97 }]).jpeg({ quality: 90 }).toFile(frame);
  const clip = path.join(WORK, 'door.ivf');
  run(ffmpeg, ['-v', 'error', '-y', '-loop', '1', '-framerate', '10', '-t', '6', '-i', frame, '-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-g', '10', '-b:v', '1000k', '-pix_fmt', 'yuv420p', '-f', 'ivf', clip]);
  return clip;
}

/** An HTTP server standing in for a chat's incoming webhook; keeps what is posted to it. */
function startChat() {
  const http = require('node:http');
  const posts = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      posts.push({ type: String(req.headers['content-type'] ?? ''), body: Buffer.concat(chunks) });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${server.address().port}/chat`, posts, close: () => new Promise((r) => server.close(r)) })));
}

/** Starts `n8n start` on a free port; resolves once its REST API answers. */
async function startN8n() {
  const port = await freePort();
  const child = spawn(NODE, [N8N_BIN, 'start'], { cwd: WORK, env: { ...process.env, ...n8nEnv(), ...(BROKER.server ? { N8N_RUNNERS_BROKER_PORT: String(BROKER.server) } : {}), N8N_PORT: String(port), N8N_LISTEN_ADDRESS: '127.0.0.1', N8N_SECURE_COOKIE: 'false', N8N_LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (out += c));
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`n8n start exited (${child.exitCode}):\n${out.slice(-3000)}`);
    const ok = await fetch(`http://127.0.0.1:${port}/healthz/readiness`).then((r) => r.ok, () => false);
    if (ok) return { child, port, output: () => out };
    if (Date.now() > deadline) throw new Error(`n8n start did not become ready:\n${out.slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function waitFor(what, predicate, timeoutMs, refresh = async () => {}) {
  const deadline = Date.now() + timeoutMs;
  await refresh();
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
    await refresh();
  }
}

/**
 * The alert example, published in a running n8n: a test publisher streams the enrolled person into
 * a room; the Face Match Trigger (in n8n, decoding without native code) must post a snapshot to the chat.
 */
async function alertOnKnownFace(sandbox, collectionId) {
  const { StreamingClient } = require(path.join(ROOT, 'dist', 'shared', 'streaming'));
  const { openVideoSource, Publisher } = require(path.join(ROOT, 'dist', 'shared', 'publish'));
  const streaming = new StreamingClient({ authUrl: sandbox.url, sfuUrl: sandbox.url, clientId: 'sandbox-client', clientSecret: 'sandbox-secret' });
  const chat = await startChat();
  let publisher;
  let source;
  let n8nServer;
  try {
    const room = await streaming.createRoom();
    const wf = JSON.parse(fs.readFileSync(path.join(ROOT, 'examples', 'n8n', 'alert-on-known-face.json'), 'utf8'));
    const trigger = wf.nodes.find((n) => n.name === 'Face Match Trigger');
    Object.assign(trigger.parameters, { roomId: { __rl: true, mode: 'list', value: room.id }, collectionId: { __rl: true, mode: 'id', value: collectionId } });
    wf.nodes.find((n) => n.name === 'Post to Chat').parameters.url = chat.url;
    const file = path.join(WORK, 'alert-on-known-face.json');
    fs.writeFileSync(file, JSON.stringify(wf, null, 2));
    n8n(['import:workflow', `--input=${file}`]);
    n8n(['publish:workflow', `--id=${wf.id}`]);
    const published = await dbGet('SELECT active, activeVersionId FROM workflow_entity WHERE id = ?', [wf.id]);
    log(`alert workflow in n8n's database: ${JSON.stringify(published)}`);
    const clip = await writeClip();
    n8nServer = await startN8n();
    log(`n8n running on 127.0.0.1:${n8nServer.port} with the alert workflow published`);
    await roomListInEditor(`http://127.0.0.1:${n8nServer.port}`, trigger.parameters, room.id);
    await peopleInDataTable(`http://127.0.0.1:${n8nServer.port}`, collectionId);
    source = await openVideoSource({ file: clip, loop: true, fps: 10 });
    publisher = new Publisher({ source, getTicket: streaming.ticketSource(room.id, 'up') });
    await publisher.start();
    log('the door camera publishes into the room');
    await waitFor('the chat post', () => chat.posts.length > 0, 180_000);
    const post = chat.posts[0];
    const text = post.body.toString('latin1');
    check(post.type.startsWith('multipart/form-data') && text.includes('is at the door'), `the chat got "${/([0-9a-f-]{36} is at the door[^\r]*)/.exec(text)?.[1]}"`);
    const jpeg = text.indexOf('\xff\xd8\xff');
    check(/content-type: image\/jpeg/i.test(text) && jpeg > 0, 'with the snapshot as a JPEG part');
    // The execution is saved once its last node has answered, a moment after the post.
    let runs = 0;
    await waitFor('the saved execution', () => runs >= 1, 30_000, async () => {
      runs = (await dbGet("SELECT COUNT(*) AS n FROM execution_entity WHERE workflowId = ? AND status = 'success'", [wf.id])).n;
    });
    check(runs >= 1, `the trigger started ${runs} successful execution(s)`);
  } finally {
    if (n8nServer) fs.writeFileSync(path.join(WORK, 'n8n-start.log'), n8nServer.output());
    await publisher?.close();
    await source?.close();
    if (n8nServer && n8nServer.child.exitCode === null) {
      n8nServer.child.kill('SIGTERM');
      await new Promise((r) => n8nServer.child.once('exit', r));
    }
    await streaming.close();
    await chat.close();
  }
}

/** The owner of a fresh n8n (set up on the first call, logged in on later ones), for its REST API. */
const OWNER = { email: 'owner@example.com', firstName: 'Demo', lastName: 'Owner', password: 'Screenshot-only-1' };
const BROWSER_ID = 'e2e-n8n-browser';

/**
 * The owner's session cookie value (n8n-auth). With `browserId` the session is bound to that
 * browser-id header, as n8n's editor binds its own; a real browser sends its own, so leave it out there.
 */
async function ownerCookie(base, browserId) {
  const headers = { 'content-type': 'application/json', ...(browserId ? { 'browser-id': browserId } : {}) };
  // The REST routes come up a few seconds after the editor's banner.
  let up = false;
  for (let i = 0; i < 120 && !up; i++) {
    const probe = await fetch(`${base}/rest/login`, { method: 'POST', headers, body: '{}' }).catch(() => undefined);
    up = probe !== undefined && probe.status !== 404;
    if (!up) await new Promise((r) => setTimeout(r, 500));
  }
  if (!up) throw new Error(`n8n's REST API did not come up within 60 s of its banner at ${base}`);
  const res = await fetch(`${base}/rest/owner/setup`, { method: 'POST', headers, body: JSON.stringify(OWNER) });
  let cookie = res.headers.getSetCookie().find((c) => c.startsWith('n8n-auth='));
  if (!cookie) {
    const login = await fetch(`${base}/rest/login`, { method: 'POST', headers, body: JSON.stringify({ emailOrLdapLoginId: OWNER.email, password: OWNER.password }) });
    cookie = login.headers.getSetCookie().find((c) => c.startsWith('n8n-auth='));
    if (!cookie) throw new Error(`no session: owner setup ${res.status}, login ${login.status} ${await login.text()}`);
  }
  return cookie.split(';')[0].slice('n8n-auth='.length);
}

/** Opens the trigger's room list through the REST call the editor makes for a resource locator. */
async function roomListInEditor(base, parameters, roomId) {
  const cookie = await ownerCookie(base, BROWSER_ID);
  const res = await fetch(`${base}/rest/dynamic-node-parameters/resource-locator-results`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: `n8n-auth=${cookie}`, 'browser-id': BROWSER_ID },
    body: JSON.stringify({
      path: 'parameters.roomId',
      nodeTypeAndVersion: { name: `${PKG.name}.faceMatchTrigger`, version: 2 },
      currentNodeParameters: parameters,
      methodName: 'searchRooms',
      credentials: { visionStreamingApi: { id: 'vsSandboxCred01', name: 'Vision & Streaming sandbox' } },
      filter: '',
    }),
  });
  const body = await res.json().catch(() => ({}));
  const results = body.data?.results ?? [];
  check(res.ok && results.some((r) => r.value === roomId), `the editor's room list of the trigger (POST /rest/dynamic-node-parameters/resource-locator-results) shows the room: ${results.map((r) => r.name).join('; ') || `HTTP ${res.status} ${JSON.stringify(body).slice(0, 300)}`}`);
}

/** Scopes of the API key the people table is reached with (REFERENCE.md: n8n data tables). */
const PEOPLE_SCOPES = ['dataTable:create', 'dataTable:read', 'dataTable:update', 'dataTable:list', 'dataTableRow:create', 'dataTableRow:read', 'dataTableRow:update', 'dataTableRow:delete', 'dataTableRow:upsert'];

/**
 * People in an n8n data table, through the running n8n's public API: an API key made by the owner,
 * a data table made with it, n8n's own n8n API credential holding both, then Visual Recognition's
 * Person Add and List run headless (`n8n execute`, a process of its own like a queue-mode worker)
 * against that table; the rows must hold the person, and no stored execution the key.
 */
async function peopleInDataTable(base, collectionId) {
  const cookie = await ownerCookie(base, BROWSER_ID);
  const keyRes = await fetch(`${base}/rest/api-keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: `n8n-auth=${cookie}`, 'browser-id': BROWSER_ID },
    body: JSON.stringify({ label: 'e2e people', scopes: PEOPLE_SCOPES, expiresAt: null }),
  });
  const apiKey = (await keyRes.json().catch(() => ({}))).data?.rawApiKey;
  check(keyRes.ok && typeof apiKey === 'string', `the owner made an API key for the data tables (POST /rest/api-keys: HTTP ${keyRes.status})`);
  const api = async (method, route, body) => {
    const res = await fetch(`${base}/api/v1${route}`, { method, headers: { 'X-N8N-API-KEY': apiKey, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
    return { status: res.status, body: await res.json().catch(() => undefined) };
  };
  // With every column the node uses, so the key needs no column scope.
  const columns = ['name', 'person_id', 'kind', 'face_id', 'from', 'added_at', 'collection_id'].map((name) => ({ name, type: 'string' }));
  const table = await api('POST', '/data-tables', { name: 'People', columns });
  check(table.status < 300 && typeof table.body?.id === 'string', `a data table "People" (${table.body?.id ?? `HTTP ${table.status}`})`);

  const credFile = path.join(WORK, 'credentials-n8n-api.json');
  fs.writeFileSync(credFile, JSON.stringify([{ id: 'vsN8nApiCred001', name: 'n8n API (e2e)', type: 'n8nApi', data: { apiKey, baseUrl: `${base}/api/v1` } }], null, 2));
  n8n(['import:credentials', `--input=${credFile}`]);
  fs.rmSync(credFile);
  const cred = { visionStreamingApi: { id: 'vsSandboxCred01', name: 'Vision & Streaming sandbox' }, n8nApi: { id: 'vsN8nApiCred001', name: 'n8n API (e2e)' } };
  const type = `${PKG.name}.visualRecognition`;
  const person = { resource: 'person', collectionId: { __rl: true, mode: 'id', value: collectionId }, peopleTable: { __rl: true, mode: 'id', value: table.body.id } };
  const wf = {
    id: 'vsPeopleTable01',
    name: 'People: a person in a data table',
    nodes: [
      { parameters: {}, id: 'pt-start', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0] },
      { parameters: { operation: 'read', fileSelector: path.join(FILES, 'enrol.jpg'), options: { dataPropertyName: 'data' } }, id: 'pt-photo', name: 'Photo', type: 'n8n-nodes-base.readWriteFile', typeVersion: 1, position: [220, 0] },
      { parameters: { ...person, operation: 'add', name: 'Eileen', photoInput: 'binary', photoBinaryProperty: 'data' }, id: 'pt-add', name: 'Add Person', type, typeVersion: 2, position: [440, 0], credentials: cred },
      { parameters: { ...person, operation: 'list' }, id: 'pt-list', name: 'List People', type, typeVersion: 2, position: [660, 0], credentials: cred },
    ],
    connections: {
      Start: { main: [[{ node: 'Photo', type: 'main', index: 0 }]] },
      Photo: { main: [[{ node: 'Add Person', type: 'main', index: 0 }]] },
      'Add Person': { main: [[{ node: 'List People', type: 'main', index: 0 }]] },
    },
    settings: { executionOrder: 'v1' },
    active: false,
  };
  const file = path.join(WORK, 'people-table.json');
  fs.writeFileSync(file, JSON.stringify(wf, null, 2));
  log(n8n(['import:workflow', `--input=${file}`]).trim());
  const result = await execute(wf.id);
  const added = output(result, 'Add Person')[0];
  const listed = output(result, 'List People')[0];
  check(added?.person?.name === 'Eileen' && added.person.faces.length === 1, `Person > Add: ${added?.person?.person_id} with face ${added?.person?.faces?.[0]?.face_id}`);
  check(listed?.people?.some((p) => p.name === 'Eileen' && p.faces === 1), 'Person > List shows her');
  const rows = await api('GET', `/data-tables/${table.body.id}/rows`);
  check(rows.body?.data?.some((r) => r.name === 'Eileen' && r.kind === 'face' && r.face_id === added.person.faces[0].face_id), 'the data table holds her face row, as n8n\'s Data Tables page shows it');
  const everything = (await dbAll('SELECT data FROM execution_data', [])).map((r) => r.data).join('\n');
  check(!everything.includes(apiKey), 'the n8n API key is in no stored execution');
}

/** Imports the sandbox credential of the examples with every address pointed at `url`. */
function importSandboxCredential(url) {
  const creds = JSON.parse(fs.readFileSync(path.join(ROOT, 'examples', 'n8n', 'credentials.sandbox.json'), 'utf8'));
  for (const c of creds) Object.assign(c.data, { authUrl: url, visionUrl: url, sfuUrl: url });
  const credFile = path.join(WORK, 'credentials.json');
  fs.writeFileSync(credFile, JSON.stringify(creds, null, 2));
  n8n(['import:credentials', `--input=${credFile}`]);
}

module.exports = { startSandbox, importSandboxCredential, ownerCookie, stopAll, WORK, HOME };

if (require.main === module) {
  main()
    .then(() => {
      stopAll();
      process.exitCode = 0;
    })
    .catch((err) => {
      stopAll();
      console.error(`[e2e:n8n] FAILED: ${err.stack ?? err}`);
      process.exitCode = 1;
    });
}
