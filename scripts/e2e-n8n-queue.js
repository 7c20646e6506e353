/* global setTimeout, fetch, URL */
// End-to-end check of the people table under n8n's queue mode: a main n8n and two workers on one
// PostgreSQL database and one Redis, this package installed as a community package, and a published
// workflow whose webhook runs Visual Recognition's Person > Add "Alice" with a photo. Twenty requests
// at once (the workers run ten executions each at a time) must give one person, and leave in the
// face collection exactly the faces the table records (the faces of the runs that lost are removed
// again). PostgreSQL and Redis run as children of this script, on free ports of 127.0.0.1, with their
// data under tmp/; everything is stopped at the end. Needs n8n (e2e-n8n-install.sh installs it),
// PostgreSQL's server binaries (/usr/lib/postgresql/<version>/bin) and redis-server.
// Run with `npm run e2e:n8n-queue`.
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const { startSandbox, ownerCookie, stopAll: stopSandbox } = require('./e2e-n8n');
const { freePort } = require('./support/browser');

const ROOT = path.resolve(__dirname, '..');
const WORK = path.join(ROOT, 'tmp', 'n8n-e2e', 'queue');
const HOME = path.join(WORK, 'home');
const FILES = path.join(WORK, 'files');
const PG_DATA = path.join(WORK, 'pg');
const NODE = process.execPath;
const N8N_BIN = path.join(ROOT, 'tmp', 'n8n-e2e', 'cli', 'node_modules', 'n8n', 'bin', 'n8n');
const PKG = require(path.join(ROOT, 'package.json'));
/** Person > Add runs at once, and the executions each worker runs at a time. */
const RUNS = 20;
const CONCURRENCY = 10;
const started = Date.now();
const children = new Set();

function log(text) {
  console.log(`[e2e:n8n-queue ${((Date.now() - started) / 1000).toFixed(1)}s] ${text}`);
}

function check(condition, text) {
  if (!condition) throw new Error(`check failed: ${text}`);
  log(`ok: ${text}`);
}

function run(cmd, args, options = {}) {
  return execFileSync(cmd, args, { cwd: ROOT, stdio: options.capture ? 'pipe' : 'inherit', encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options, env: { ...process.env, ...(options.env ?? {}) } });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Starts a long-lived child; its output is kept (the end of it shows in a failure). */
function startChild(name, cmd, args, env = {}) {
  const child = spawn(cmd, args, { cwd: WORK, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.output = '';
  const keep = (chunk) => {
    child.output += chunk;
    if (child.output.length > 2_000_000) child.output = child.output.slice(-1_000_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  child.label = name;
  return child;
}

async function stopChild(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const done = await Promise.race([exited.then(() => true), sleep(20_000).then(() => false)]);
  if (!done) {
    child.kill('SIGKILL');
    await exited;
  }
}

/** PostgreSQL's server binaries (the newest version installed). */
function pgBin(name) {
  const base = '/usr/lib/postgresql';
  const versions = fs.existsSync(base) ? fs.readdirSync(base).sort((a, b) => Number(b) - Number(a)) : [];
  const found = versions.map((v) => path.join(base, v, 'bin', name)).find((p) => fs.existsSync(p));
  if (!found) throw new Error(`PostgreSQL's ${name} is not installed (looked in ${base}/<version>/bin)`);
  return found;
}

/** PostgreSQL refuses to run as root: as root, its commands run as the postgres user. */
function asPgUser(cmd, args) {
  return process.getuid?.() === 0 ? ['setpriv', ['--reuid=postgres', '--regid=postgres', '--clear-groups', '--', cmd, ...args]] : [cmd, args];
}

/** A PostgreSQL of its own: a fresh cluster in WORK/pg, on a free port of 127.0.0.1, trust auth, database n8n. */
async function startPostgres() {
  const port = await freePort();
  fs.rmSync(PG_DATA, { recursive: true, force: true });
  fs.mkdirSync(PG_DATA, { recursive: true });
  if (process.getuid?.() === 0) run('chown', ['-R', 'postgres:postgres', PG_DATA]);
  const [initCmd, initArgs] = asPgUser(pgBin('initdb'), ['-D', PG_DATA, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
  run(initCmd, initArgs, { capture: true });
  const [cmd, args] = asPgUser(pgBin('postgres'), ['-D', PG_DATA, '-p', String(port), '-k', PG_DATA, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'max_connections=200']);
  const child = startChild('postgres', cmd, args);
  for (let i = 0; i < 120; i++) {
    if (child.exitCode !== null) throw new Error(`postgres exited:\n${child.output.slice(-2000)}`);
    const ready = (() => {
      try {
        run(pgBin('pg_isready'), ['-h', '127.0.0.1', '-p', String(port)], { capture: true });
        return true;
      } catch {
        return false;
      }
    })();
    if (ready) break;
    await sleep(250);
  }
  run(pgBin('createdb'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', 'n8n'], { capture: true });
  return { child, port };
}

async function startRedis() {
  const port = await freePort();
  const child = startChild('redis', 'redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no']);
  for (let i = 0; i < 80 && !/Ready to accept connections/i.test(child.output); i++) {
    if (child.exitCode !== null) throw new Error(`redis-server exited:\n${child.output.slice(-2000)}`);
    await sleep(250);
  }
  return { child, port };
}

/** Environment of every n8n process: queue mode on the PostgreSQL and Redis above. */
function n8nEnv(pg, redis, extra = {}) {
  return {
    N8N_USER_FOLDER: HOME,
    N8N_ENCRYPTION_KEY: 'e2e-only-encryption-key-not-secret',
    N8N_DIAGNOSTICS_ENABLED: 'false',
    N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
    N8N_TEMPLATES_ENABLED: 'false',
    N8N_RESTRICT_FILE_ACCESS_TO: FILES,
    N8N_RUNNERS_ENABLED: 'false',
    N8N_LOG_LEVEL: 'info',
    N8N_SECURE_COOKIE: 'false',
    DB_TYPE: 'postgresdb',
    DB_POSTGRESDB_HOST: '127.0.0.1',
    DB_POSTGRESDB_PORT: String(pg.port),
    DB_POSTGRESDB_DATABASE: 'n8n',
    DB_POSTGRESDB_USER: 'postgres',
    DB_POSTGRESDB_PASSWORD: '',
    EXECUTIONS_MODE: 'queue',
    QUEUE_BULL_REDIS_HOST: '127.0.0.1',
    QUEUE_BULL_REDIS_PORT: String(redis.port),
    OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
    PATH: `${path.dirname(NODE)}:${process.env.PATH}`,
    ...extra,
  };
}

/** An n8n CLI command (import, publish) on the same database. */
async function n8nCommand(env, args) {
  try {
    return run(NODE, [N8N_BIN, ...args], { capture: true, cwd: WORK, env: { ...env, N8N_RUNNERS_BROKER_PORT: String(await freePort()), N8N_LOG_LEVEL: 'warn' } });
  } catch (err) {
    throw new Error(`n8n ${args.join(' ')} failed (exit ${err.status ?? err.signal}):\n${String(err.stdout ?? '').slice(-3000)}\n${String(err.stderr ?? '').slice(-3000)}`);
  }
}

async function startMain(env, port) {
  port ??= await freePort();
  const child = startChild('n8n main', NODE, [N8N_BIN, 'start'], { ...env, N8N_PORT: String(port), N8N_LISTEN_ADDRESS: '127.0.0.1', N8N_RUNNERS_BROKER_PORT: String(await freePort()) });
  const deadline = Date.now() + 240_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`n8n start exited (${child.exitCode}):\n${child.output.slice(-3000)}`);
    if (await fetch(`http://127.0.0.1:${port}/healthz/readiness`).then((r) => r.ok, () => false)) return { child, base: `http://127.0.0.1:${port}` };
    if (Date.now() > deadline) throw new Error(`n8n start did not become ready:\n${child.output.slice(-3000)}`);
    await sleep(500);
  }
}

async function startWorker(env, name) {
  const healthPort = await freePort();
  const child = startChild(name, NODE, [N8N_BIN, 'worker', `--concurrency=${CONCURRENCY}`], {
    ...env,
    QUEUE_HEALTH_CHECK_ACTIVE: 'true',
    QUEUE_HEALTH_CHECK_PORT: String(healthPort),
    N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
    N8N_RUNNERS_BROKER_PORT: String(await freePort()),
  });
  const deadline = Date.now() + 240_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited (${child.exitCode}):\n${child.output.slice(-3000)}`);
    if (await fetch(`http://127.0.0.1:${healthPort}/healthz/readiness`).then((r) => r.ok, () => false)) return child;
    if (Date.now() > deadline) throw new Error(`${name} did not become ready:\n${child.output.slice(-3000)}`);
    await sleep(500);
  }
}

/** Builds and packs this package and installs it into HOME as a community package. */
function installPackage() {
  log('building and packing the package');
  run('npm', ['run', 'build', '--silent']);
  const packed = run('npm', ['pack', '--silent', '--pack-destination', WORK], { capture: true }).trim().split('\n').pop();
  const nodesDir = path.join(HOME, '.n8n', 'nodes');
  fs.mkdirSync(nodesDir, { recursive: true });
  fs.writeFileSync(path.join(nodesDir, 'package.json'), JSON.stringify({ name: 'installed-nodes', private: true, dependencies: {} }, null, 2));
  run('npm', ['install', path.join(WORK, packed), '--ignore-scripts', '--omit=optional', '--omit=peer', '--omit=dev', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: nodesDir });
}

async function writePhoto() {
  const sharp = require(path.join(ROOT, 'node_modules', 'sharp'));
  fs.mkdirSync(FILES, { recursive: true });
  const region = { left: 47, top: 10, width: 348, height: 286 };
  await sharp(path.join(ROOT, 'test', 'fixtures', 'astronaut.jpg')).extract(region).resize({ width: 600 }).jpeg({ quality: 92 }).toFile(path.join(FILES, 'alice.jpg'));
}

/** Scopes of the API key the people table is reached with. */
const PEOPLE_SCOPES = ['dataTable:create', 'dataTable:read', 'dataTable:update', 'dataTable:list', 'dataTableRow:create', 'dataTableRow:read', 'dataTableRow:update', 'dataTableRow:delete', 'dataTableRow:upsert'];

/** The owner, an API key for the data tables, and a people table, through the running main. */
async function setUpTable(base) {
  const browserId = 'e2e-n8n-queue-browser';
  const cookie = await ownerCookie(base, browserId);
  const keyRes = await fetch(`${base}/rest/api-keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: `n8n-auth=${cookie}`, 'browser-id': browserId },
    body: JSON.stringify({ label: 'e2e queue people', scopes: PEOPLE_SCOPES, expiresAt: null }),
  });
  const apiKey = (await keyRes.json().catch(() => ({}))).data?.rawApiKey;
  check(keyRes.ok && typeof apiKey === 'string', `an API key for the data tables (HTTP ${keyRes.status})`);
  const api = async (method, route, body) => {
    const res = await fetch(`${base}/api/v1${route}`, { method, headers: { 'X-N8N-API-KEY': apiKey, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
    return { status: res.status, body: await res.json().catch(() => undefined) };
  };
  const columns = ['name', 'person_id', 'kind', 'face_id', 'from', 'added_at', 'collection_id'].map((name) => ({ name, type: 'string' }));
  const table = await api('POST', '/data-tables', { name: 'People', columns });
  check(table.status < 300 && typeof table.body?.id === 'string', `a data table "People" (${table.body?.id ?? `HTTP ${table.status}`})`);
  return { apiKey, api, tableId: table.body.id };
}

/** The webhook workflow: POST /webhook/add-alice reads the photo and runs Person > Add "Alice"; it answers with Add's output (its error too). */
function aliceWorkflow(collectionId, tableId) {
  const cred = { visionStreamingApi: { id: 'vsQueueSandbox1', name: 'Sandbox (queue e2e)' }, n8nApi: { id: 'vsQueueN8nApi01', name: 'n8n API (queue e2e)' } };
  return {
    id: 'vsQueueAlice001',
    name: 'Queue mode: Person Add Alice',
    nodes: [
      { parameters: { httpMethod: 'POST', path: 'add-alice', responseMode: 'lastNode', options: {} }, id: 'q-hook', name: 'Webhook', type: 'n8n-nodes-base.webhook', typeVersion: 2, position: [0, 0], webhookId: crypto.randomUUID() },
      { parameters: { operation: 'read', fileSelector: path.join(FILES, 'alice.jpg'), options: { dataPropertyName: 'data' } }, id: 'q-photo', name: 'Photo', type: 'n8n-nodes-base.readWriteFile', typeVersion: 1, position: [220, 0] },
      {
        parameters: { resource: 'person', operation: 'add', collectionId: { __rl: true, mode: 'id', value: collectionId }, peopleTable: { __rl: true, mode: 'id', value: tableId }, name: 'Alice', photoInput: 'binary', photoBinaryProperty: 'data' },
        id: 'q-add',
        name: 'Add Alice',
        type: `${PKG.name}.visualRecognition`,
        typeVersion: 2,
        position: [440, 0],
        credentials: cred,
        onError: 'continueRegularOutput',
      },
    ],
    connections: { Webhook: { main: [[{ node: 'Photo', type: 'main', index: 0 }]] }, Photo: { main: [[{ node: 'Add Alice', type: 'main', index: 0 }]] } },
    settings: { executionOrder: 'v1' },
    active: false,
  };
}

/** Which worker ran each execution, from the workers' logs. */
function executionsOf(worker) {
  return new Set([...worker.output.matchAll(/Worker started execution (\d+)/g)].map((m) => m[1]));
}

async function main() {
  run('bash', [path.join(__dirname, 'e2e-n8n-install.sh')]);
  fs.rmSync(WORK, { recursive: true, force: true });
  fs.mkdirSync(HOME, { recursive: true });
  installPackage();
  await writePhoto();

  const pg = await startPostgres();
  log(`PostgreSQL on 127.0.0.1:${pg.port}`);
  const redis = await startRedis();
  log(`Redis on 127.0.0.1:${redis.port}`);
  const sandbox = await startSandbox();
  log(`sandbox on ${sandbox.url}`);
  const env = n8nEnv(pg, redis);

  log('n8n main in queue mode (first start: sets up the database)');
  let main = await startMain(env);
  const { apiKey, api, tableId } = await setUpTable(main.base);

  const { VisionClient } = require(path.join(ROOT, 'dist', 'shared', 'vision'));
  const vision = new VisionClient({ authUrl: sandbox.url, visionUrl: sandbox.url, clientId: 'sandbox-client', clientSecret: 'sandbox-secret' });
  try {
    const { collectionId } = await vision.createCollection();
    const credFile = path.join(WORK, 'credentials.json');
    fs.writeFileSync(
      credFile,
      JSON.stringify([
        { id: 'vsQueueSandbox1', name: 'Sandbox (queue e2e)', type: 'visionStreamingApi', data: { clientId: 'sandbox-client', clientSecret: 'sandbox-secret', authUrl: sandbox.url, visionUrl: sandbox.url, sfuUrl: sandbox.url } },
        { id: 'vsQueueN8nApi01', name: 'n8n API (queue e2e)', type: 'n8nApi', data: { apiKey, baseUrl: `${main.base}/api/v1` } },
      ]),
    );
    await n8nCommand(env, ['import:credentials', `--input=${credFile}`]);
    fs.rmSync(credFile);
    const wf = aliceWorkflow(collectionId, tableId);
    const wfFile = path.join(WORK, 'alice.json');
    fs.writeFileSync(wfFile, JSON.stringify(wf, null, 2));
    await n8nCommand(env, ['import:workflow', `--input=${wfFile}`]);
    await n8nCommand(env, ['publish:workflow', `--id=${wf.id}`]);
    // The main registers a published workflow's webhook when it starts: start it again, on the same port.
    const port = new URL(main.base).port;
    await stopChild(main.child);
    main = await startMain(env, Number(port));
    log(`n8n main on ${main.base}, the workflow published`);
    const workers = [await startWorker(env, 'worker 1'), await startWorker(env, 'worker 2')];
    log(`two workers, ${CONCURRENCY} executions each at a time`);

    log(`${RUNS} requests at once to POST /webhook/add-alice`);
    const answers = await Promise.all(
      Array.from({ length: RUNS }, async () => {
        const res = await fetch(`${main.base}/webhook/add-alice`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
        return { status: res.status, body: await res.json().catch(() => undefined) };
      }),
    );
    const added = answers.filter((a) => a.body?.person?.name === 'Alice');
    const refused = answers.filter((a) => typeof a.body?.error === 'string');
    const reasons = [...new Set(refused.map((a) => a.body.error.replace(/p_[0-9a-f-]+/g, 'p_…')))];
    log(`answers: ${added.length} added, ${refused.length} refused (${reasons.join(' | ')}), ${RUNS - added.length - refused.length} other${answers.some((a) => !a.body?.person && typeof a.body?.error !== 'string') ? `: ${JSON.stringify(answers.find((a) => !a.body?.person && typeof a.body?.error !== 'string')).slice(0, 500)}` : ''}`);
    const ran = workers.map(executionsOf);
    log(`executions run: worker 1 ${ran[0].size}, worker 2 ${ran[1].size}`);
    check(ran[0].size > 0 && ran[1].size > 0, 'both workers ran Person > Add executions');

    const rows = (await api('GET', `/data-tables/${tableId}/rows?limit=250`)).body?.data ?? [];
    const people = rows.filter((r) => r.kind === 'face' || r.kind === 'person');
    const personIds = new Set(people.map((r) => r.person_id));
    log(`table: ${people.length} face row(s) of ${personIds.size} person(s) named ${[...new Set(people.map((r) => r.name))].join(', ')}; version rows ${JSON.stringify(rows.filter((r) => r.kind === 'version').map((r) => ({ version: r.face_id, lease: r.from ? 'held' : 'free' })))}`);
    const faces = (await vision.listFaces(collectionId)).map((f) => f.faceId).sort();
    log(`collection: ${faces.length} face(s)`);
    check(added.length === 1 && refused.length === RUNS - 1, `one Person > Add succeeded, the other ${RUNS - 1} were refused`);
    check(personIds.size === 1 && people.every((r) => r.name === 'Alice'), 'the table holds one person, Alice');
    check(JSON.stringify(people.map((r) => r.face_id).sort()) === JSON.stringify(faces), 'the collection holds exactly the faces the table records (no face lost, none left behind)');
    check(added[0].body.person.faces.every((f) => faces.includes(f.face_id)), "Alice's face is in the collection");
    check(rows.filter((r) => r.kind === 'version').every((r) => r.from === ''), 'the lease was given back');
    for (const w of workers) await stopChild(w);
  } finally {
    await vision.close();
    fs.writeFileSync(path.join(WORK, 'logs.txt'), [...children].map((c) => `===== ${c.label} =====\n${c.output}`).join('\n'));
  }
  log(`passed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

async function stopAll() {
  stopSandbox();
  // n8n first, the database and Redis last.
  const order = [...children].sort((a, b) => Number(['postgres', 'redis'].includes(a.label)) - Number(['postgres', 'redis'].includes(b.label)));
  for (const child of order) await stopChild(child);
}

if (require.main === module) {
  main()
    .then(async () => {
      await stopAll();
      process.exitCode = 0;
    })
    .catch(async (err) => {
      console.error(`[e2e:n8n-queue] FAILED: ${err.stack ?? err}`);
      await stopAll();
      process.exitCode = 1;
    });
}
