import { execFile, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, rmSync, statSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { freePort } from './free-port';

// A real PostgreSQL server for the tests and bench:history: Debian's server binaries (the
// `postgresql` package), a cluster in a temporary folder (a copy of one initdb made once), listening
// on 127.0.0.1 only (its unix socket in that folder too), with a password of its own and a database,
// stopped and removed after. PostgreSQL will
// not run as root: as root (CI), the cluster belongs to uid 65534 (nobody) and the binaries run as that
// user through setpriv.

/** uid and gid the server runs as when the tests run as root. */
const NOBODY = 65534;
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p));

/** Folder of the newest PostgreSQL server binaries Debian installed (`/usr/lib/postgresql/<version>/bin`), if any. */
export const POSTGRES_BIN: string | undefined = findServerBinaries();

/** Why a test that needs PostgreSQL cannot run here, or undefined when it can. */
export const postgresSkipReason: string | undefined = !POSTGRES_BIN
  ? 'no PostgreSQL server binaries on this machine (apt-get install postgresql)'
  : process.getuid?.() === 0 && !SETPRIV
    ? 'runs as root without setpriv (util-linux): PostgreSQL refuses to run as root'
    : undefined;

function findServerBinaries(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => /^\d+(\.\d+)?$/.test(v) && existsSync(path.join(root, v, 'bin', 'initdb')) && existsSync(path.join(root, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? path.join(root, versions[0], 'bin') : undefined;
}

/** Options of a test server. */
export interface PostgresOptions {
  /** Name of the database created in it (default `vs_test`). */
  database?: string;
  /**
   * Keep PostgreSQL's durability (fsync, synchronous commit), for measurements. Off by default: the
   * tests' clusters are thrown away, and skipping the flushes saves seconds on a busy disk.
   */
  durable?: boolean;
}

/** A running test server: its URL (with a password), and what stops, starts again and removes it. */
export interface TestPostgres {
  /** `postgres://postgres:<password>@127.0.0.1:<port>/<database>`. */
  readonly url: string;
  readonly port: number;
  readonly password: string;
  readonly database: string;
  /** The temporary folder (cluster, socket, log). */
  readonly dir: string;
  /** Stops the server (pg_ctl stop -m fast) and keeps the cluster, so that `start()` brings it back on the same port. */
  stop(): Promise<void>;
  /** Starts the stopped server again. */
  start(): Promise<void>;
  /** Stops the server and removes its folder; idempotent. */
  close(): Promise<void>;
}

/** How long pg_ctl waits for the server to start or stop, in seconds (a busy 2-core machine is slow). */
const PG_CTL_WAIT_S = 60;

/** Starts a PostgreSQL server in a new temporary folder and creates a database in it. Throws when `postgresSkipReason` is set. */
export async function startPostgres(options: PostgresOptions = {}): Promise<TestPostgres> {
  if (postgresSkipReason || !POSTGRES_BIN) throw new Error(`PostgreSQL: ${postgresSkipReason}`);
  const bin = POSTGRES_BIN;
  const database = options.database ?? 'vs_test';
  const password = randomBytes(12).toString('hex');
  const dir = await mkdtemp(path.join(os.tmpdir(), 'vs-postgres-'));
  const asNobody = process.getuid?.() === 0;
  const data = path.join(dir, 'data');
  const log = path.join(dir, 'server.log');
  let port = 0;
  let running = false;
  let closed = false;

  const run = (tool: string, args: string[]) => runAs(asNobody, path.join(bin, tool), args);
  const serverOptions = () =>
    [`-p ${port}`, '-h 127.0.0.1', `-k ${dir}`, '-c max_connections=50', ...(options.durable ? [] : ['-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off'])].join(' ');
  const startServer = async () => {
    await run('pg_ctl', ['start', '-D', data, '-l', log, '-w', '-t', String(PG_CTL_WAIT_S), '-o', serverOptions()]);
    running = true;
  };
  const stopServer = async () => {
    if (!running) return;
    running = false;
    await run('pg_ctl', ['stop', '-D', data, '-m', 'fast', '-w', '-t', String(PG_CTL_WAIT_S)]);
  };
  // A server left behind by a test process that ends without closing it (a failed run, ctrl-c).
  const onExit = () => {
    if (running) spawnSync(...asArgs(asNobody, path.join(bin, 'pg_ctl'), ['stop', '-D', data, '-m', 'immediate', '-w']), { stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    if (asNobody) await chown(dir, NOBODY, NOBODY);
    await chmod(dir, 0o700);
    // A copy of the cluster initdb made once (cp -a keeps its owner and modes): a fraction of initdb's time.
    await execFileAsync('cp', ['-a', await clusterTemplate(bin, asNobody), data]);
    // Another process may take the free port between the check and the start: try a few.
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      try {
        await startServer();
        break;
      } catch (err) {
        if (attempt >= 3) throw err;
      }
    }
    process.once('exit', onExit);
    // Through the socket in the private folder (trusted); TCP wants the password set here, so that
    // URLs carry a secret as a real deployment's do, one of this server's own.
    const admin = new Client({ host: dir, port, user: 'postgres', database: 'postgres' });
    await admin.connect();
    try {
      await admin.query(`ALTER USER postgres PASSWORD ${admin.escapeLiteral(password)}`);
      await admin.query(`CREATE DATABASE ${quoteIdent(database)}`);
    } finally {
      await admin.end();
    }
  } catch (err) {
    const tail = await readFile(log, 'utf8').then((t) => t.split('\n').slice(-15).join('\n'), () => '');
    await stopServer().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
    throw new Error(`PostgreSQL test server did not start: ${(err as Error).message}${tail ? `\n${tail}` : ''}`);
  }

  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/${database}`,
    port,
    password,
    database,
    dir,
    stop: stopServer,
    start: startServer,
    async close() {
      if (closed) return;
      closed = true;
      process.removeListener('exit', onExit);
      await stopServer().catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The cluster every test server starts as a copy of, made by initdb once per machine and binaries
 * (kept in `<tmpdir>/vision-streaming-test-postgres-<uid>/`, like the tests' clips): owned by uid
 * 65534 when made as root; scram password on TCP (no password set yet), trust on the unix socket.
 */
async function clusterTemplate(bin: string, asNobody: boolean): Promise<string> {
  const initdb = path.join(bin, 'initdb');
  const args = ['-U', 'postgres', '--auth-host=scram-sha-256', '--auth-local=trust', '-E', 'UTF8', '--locale=C', '--no-sync'];
  const key = createHash('sha256')
    .update(JSON.stringify([initdb, statSync(initdb).mtimeMs, args, asNobody]))
    .digest('hex')
    .slice(0, 16);
  const cache = path.join(os.tmpdir(), `vision-streaming-test-postgres-${process.getuid?.() ?? 'user'}`);
  const template = path.join(cache, key);
  if (existsSync(path.join(template, 'PG_VERSION'))) return template;
  await mkdir(cache, { recursive: true, mode: 0o700 });
  // initdb runs as uid 65534 under root: the folder is that user's (root reaches it all the same).
  const owner = asNobody ? NOBODY : process.getuid?.();
  if (asNobody) await chown(cache, NOBODY, NOBODY);
  const stats = lstatSync(cache);
  if (!stats.isDirectory() || stats.uid !== owner || (stats.mode & 0o077) !== 0) throw new Error(`${cache} is not a private folder of uid ${owner}; remove it`);
  // Made aside and renamed into place: a process that finds the template finds all of it.
  const build = await mkdtemp(path.join(cache, 'build-'));
  try {
    if (asNobody) await chown(build, NOBODY, NOBODY);
    await runAs(asNobody, initdb, ['-D', path.join(build, 'data'), ...args]);
    await rename(path.join(build, 'data'), template).catch((err: NodeJS.ErrnoException) => {
      // Another process made it first.
      if (!existsSync(path.join(template, 'PG_VERSION'))) throw err;
    });
  } finally {
    await rm(build, { recursive: true, force: true });
  }
  return template;
}

function execFileAsync(file: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { timeout: 120_000 }, (err, _stdout, stderr) => (err ? reject(new Error(`${file} failed: ${stderr.trim() || err.message}`)) : resolve()));
  });
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** The command line that runs `file` with `args`, as uid 65534 when asked. */
function asArgs(asNobody: boolean, file: string, args: string[]): [string, string[]] {
  return asNobody && SETPRIV ? [SETPRIV, [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', '--', file, ...args]] : [file, args];
}

function runAs(asNobody: boolean, file: string, args: string[]): Promise<void> {
  const [cmd, argv] = asArgs(asNobody, file, args);
  return new Promise((resolve, reject) => {
    // cwd in a folder every user may enter: uid 65534 cannot read a root-only current folder.
    execFile(cmd, argv, { cwd: '/', timeout: (PG_CTL_WAIT_S + 30) * 1000, env: { ...process.env, LC_ALL: 'C' } }, (err, _stdout, stderr) => {
      if (err) reject(new Error(`${path.basename(file)} failed: ${stderr.trim() || err.message}`));
      else resolve();
    });
  });
}
