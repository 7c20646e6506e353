import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, chown, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { freePort } from './free-port';

// A real PostgreSQL server for the tests and bench:history: Debian's server binaries (the
// `postgresql` package), a cluster made by initdb in a temporary folder, listening on 127.0.0.1 only
// (its unix socket in that folder too), a database in it, stopped and removed after. PostgreSQL will
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
    if (running) spawnSync(...asArgs(asNobody, path.join(bin, 'pg_ctl'), ['stop', '-D', data, '-m', 'immediate']), { stdio: 'ignore' });
  };

  try {
    const pwfile = path.join(dir, 'pwfile');
    await writeFile(pwfile, `${password}\n`, { mode: 0o600 });
    if (asNobody) {
      await chown(dir, NOBODY, NOBODY);
      await chown(pwfile, NOBODY, NOBODY);
    }
    await chmod(dir, 0o700);
    // Password (scram) on TCP, so that URLs carry a secret as a real deployment's do; trust on the socket in the private folder.
    await run('initdb', ['-D', data, '-U', 'postgres', `--pwfile=${pwfile}`, '--auth-host=scram-sha-256', '--auth-local=trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
    await rm(pwfile, { force: true });
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
    const admin = new Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'postgres' });
    await admin.connect();
    try {
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
