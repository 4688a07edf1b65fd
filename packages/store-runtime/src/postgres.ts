/**
 * A PostgreSQL 15 cluster of the project's own, with the DocumentDB extension FerretDB 2.5 runs on (installed by
 * deploy/scripts/install-store.sh; docs/stores.md, "Building and running FerretDB 2.5 + DocumentDB").
 *
 * Never the machine's cluster: its own data directory, and no TCP at all. The server listens only on a Unix socket
 * in a short directory under /tmp that only its OS user (and root) can enter, with `trust` there: FerretDB, pg_cron
 * and DocumentDB's own loopback connections need no password, and no other local user can reach it.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { userInfo } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isAlive } from './child';
import { confValue, type PgSetting, postgresSettings } from './postgres.settings';

/** Where clusters go whose wanted data directory the `postgres` OS user cannot reach (see clusterDataDir). */
const RELOCATED = '/var/lib/stratum';
/** Debian's PostgreSQL 15 programs. */
const PG_BIN = '/usr/lib/postgresql/15/bin';

export interface PostgresOptions {
  /**
   * Where the cluster's data should live; `initdb` runs when it is new. As root, when the `postgres` OS user cannot
   * reach it (a checkout in a 0700 directory), the data goes to /var/lib/stratum/<hash of this path>/ instead
   * (`clusterDataDir`).
   */
  dataDir: string;
  /** postgresql.conf settings over the defaults of `postgresSettings` (e.g. `fsync: false`). */
  settings?: Record<string, PgSetting>;
  /**
   * The port, which here only names the socket file (`.s.PGSQL.<port>` in the cluster's own directory): no TCP, so
   * it cannot clash with another server. Default 5432, so `psql -h <socketDir>` needs no `-p`.
   */
  port?: number;
  /** How long to wait for the server to accept connections, in ms (default 120 s). */
  timeoutMs?: number;
}

export interface RunningPostgres {
  /** The data directory in use (after any relocation). */
  dataDir: string;
  /** The directory of the server's Unix socket. */
  socketDir: string;
  port: number;
  /** URL of database `postgres` as role `ferretdb` over the socket (libpq and pgx syntax), for FerretDB. */
  ferretdbUrl: string;
  /**
   * Runs SQL in database `postgres` as the superuser `postgres` (psql, unaligned, tuples only).
   * @returns psql's output. @throws Error with psql's message.
   */
  sql(query: string): string;
  /** How many other processes use this cluster right now (startPostgres calls not yet stopped). */
  otherUsers(): number;
  /**
   * Ends this process's use of the cluster; the server stops (`pg_ctl stop -m fast`) when no other live process
   * uses it. Idempotent.
   */
  stop(): Promise<void>;
}

const IS_ROOT = process.getuid?.() === 0;
/** The OS user the server runs as: PostgreSQL refuses root, so `postgres` for root, else the current user. */
const SERVER_USER = IS_ROOT ? 'postgres' : userInfo().username;
let serverIds: { uid: number; gid: number } | undefined;
function serverUser(): { uid: number; gid: number } {
  if (!serverIds) {
    const id = (flag: string) => Number(execFileSync('id', [flag, SERVER_USER], { encoding: 'utf8' }).trim());
    serverIds = { uid: id('-u'), gid: id('-g') };
  }
  return serverIds;
}

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const log = (msg: string) => process.stderr.write(`postgres: ${msg}\n`);

/** [command, args] that run `cmd` as the server's OS user (runuser when root). */
function asServer(cmd: string, args: string[]): [string, string[]] {
  return IS_ROOT ? ['runuser', ['-u', SERVER_USER, '--', cmd, ...args]] : [cmd, args];
}

/** Runs a command as the server's OS user. @returns exit code and output (never throws on a non-zero exit). */
function runAsServer(cmd: string, args: string[]): Promise<{ code: number; out: string }> {
  const [c, a] = asServer(cmd, args);
  return new Promise((ok) => {
    // cwd /: the server's user may not be allowed into the caller's directory.
    execFile(c, a, { cwd: '/', encoding: 'utf8' }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      ok({ code, out: `${stdout}${stderr}`.trim() });
    });
  });
}

/** Makes `path` belong to the server's OS user (as root; otherwise it already does). */
function own(path: string): void {
  if (IS_ROOT) chownSync(path, serverUser().uid, serverUser().gid);
}

/**
 * The data directory to use for `wanted`: itself, or (as root, when the `postgres` OS user cannot enter its parent,
 * e.g. a CI checkout under a 0700 `mktemp -d`) /var/lib/stratum/<16 hex of sha256(path)>/<basename>, the same
 * place on every run for the same path.
 */
function clusterDataDir(wanted: string): string {
  const abs = resolve(wanted);
  if (!IS_ROOT) return abs;
  mkdirSync(dirname(abs), { recursive: true });
  if (spawnSync('runuser', ['-u', SERVER_USER, '--', 'test', '-x', dirname(abs)], { cwd: '/' }).status === 0) return abs;
  if (!existsSync(RELOCATED)) mkdirSync(RELOCATED, { recursive: true, mode: 0o755 });
  const home = join(RELOCATED, sha(abs).slice(0, 16));
  if (!existsSync(home)) {
    mkdirSync(home, { mode: 0o700 });
    // Tells a person looking at /var/lib/stratum whose data this is.
    writeFileSync(join(home, 'FOR'), `${abs}\n`);
    own(home);
  }
  return join(home, basename(abs));
}

/**
 * The cluster's socket directory: /tmp/stratum-pg-<12 hex of the data dir's hash> (short: a socket path is limited to
 * ~107 bytes and a clone may live deep), mode 0700, owned by the server's OS user. One that is not ours is replaced
 * (as root) or refused.
 */
function socketDirFor(dataDir: string): string {
  const dir = `/tmp/stratum-pg-${sha(dataDir).slice(0, 12)}`;
  const st = lstatSync(dir, { throwIfNoEntry: false });
  if (st && (!st.isDirectory() || st.uid !== serverUser().uid)) {
    if (!IS_ROOT) throw new Error(`${dir} exists and is not a directory of ${SERVER_USER}; remove it`);
    rmSync(dir, { recursive: true, force: true });
  }
  if (!existsSync(dir)) mkdirSync(dir, { mode: 0o700 });
  own(dir);
  chmodSync(dir, 0o700);
  return dir;
}

/** Writes stratum.conf (included by postgresql.conf) and pg_hba.conf; done on every start so they follow the code. */
function writeConfig(dataDir: string, settings: Record<string, PgSetting>): void {
  const conf = join(dataDir, 'stratum.conf');
  writeFileSync(
    conf,
    [
      '# Written by Stratum (packages/store-runtime/src/postgres.ts) on every start: edits here are lost.',
      ...Object.entries(settings).map(([k, v]) => `${k} = ${confValue(v)}`),
      '',
    ].join('\n'),
  );
  own(conf);
  const main = join(dataDir, 'postgresql.conf');
  if (!readFileSync(main, 'utf8').includes("include = 'stratum.conf'")) {
    writeFileSync(
      main,
      `${readFileSync(main, 'utf8')}\n# Stratum's settings (packages/store-runtime/src/postgres.ts)\ninclude = 'stratum.conf'\n`,
    );
  }
  const hba = join(dataDir, 'pg_hba.conf');
  writeFileSync(
    hba,
    [
      '# Written by Stratum (packages/store-runtime/src/postgres.ts) on every start: edits here are lost.',
      '# Only the Unix socket, in a directory only the server OS user (and root) can enter; no TCP (listen_addresses is empty).',
      'local all all trust',
      '',
    ].join('\n'),
  );
  own(hba);
}

/** Creates and initialises the data directory unless it holds a cluster. @throws Error when it holds something else. */
async function ensureCluster(dataDir: string): Promise<void> {
  if (existsSync(join(dataDir, 'PG_VERSION'))) {
    // e.g. a data directory copied or restored by root: the server refuses to start on one it does not own.
    if (IS_ROOT && statSync(dataDir).uid !== serverUser().uid) execFileSync('chown', ['-R', `${SERVER_USER}:`, dataDir]);
    return;
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (readdirSync(dataDir).length > 0) throw new Error(`${dataDir} is neither empty nor a PostgreSQL data directory; move it away`);
  own(dataDir);
  chmodSync(dataDir, 0o700);
  log(`initdb ${dataDir}`);
  const r = await runAsServer(join(PG_BIN, 'initdb'), [
    '-D',
    dataDir,
    '-U',
    'postgres',
    '-E',
    'UTF8',
    '--locale=C.UTF-8',
    '--auth=trust',
    '--no-instructions',
  ]);
  if (r.code !== 0) throw new Error(`initdb ${dataDir} failed: ${r.out}`);
}

/** Runs SQL as `postgres` through the socket. @returns psql's unaligned output. */
function psql(socketDir: string, port: number, queries: string[]): string {
  const args = ['-X', '-h', socketDir, '-p', String(port), '-U', 'postgres', '-d', 'postgres', '-v', 'ON_ERROR_STOP=1', '-Atq'];
  for (const q of queries) args.push('-c', q);
  const r = spawnSync(join(PG_BIN, 'psql'), args, {
    cwd: '/',
    encoding: 'utf8',
    env: { ...process.env, PGOPTIONS: '-c client_min_messages=warning' },
  });
  if (r.status !== 0) throw new Error(`psql: ${(r.stderr || r.error?.message || '').trim()}`);
  return r.stdout;
}

/** The last lines of the server's newest log, for error messages. */
function logTail(dataDir: string): string {
  const dir = join(dataDir, 'log');
  const files = [join(dataDir, 'startup.log')];
  if (existsSync(dir)) files.push(...readdirSync(dir).map((f) => join(dir, f)));
  const newest = files.filter((f) => existsSync(f)).sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
  if (!newest) return '';
  return `\n${newest}:\n${readFileSync(newest, 'utf8').trim().split('\n').slice(-15).join('\n')}`;
}

// Who uses a cluster: a file <dataDir>.users/<pid>-<random> per startPostgres, so the last one out stops the server
// and a process that died without stopping (kill -9, a crashed jest) is not counted. Changed under <dataDir>.lock.

/** Live users' entries (dead ones are removed). */
function liveUsers(usersDir: string): string[] {
  if (!existsSync(usersDir)) return [];
  return readdirSync(usersDir).filter((f) => {
    if (isAlive(Number(f.split('-')[0]))) return true;
    rmSync(join(usersDir, f), { force: true });
    return false;
  });
}

/** Runs `fn` holding an exclusive lock file (taken over when its holder has died). */
async function withLock<T>(lock: string, fn: () => Promise<T>, timeoutMs = 300_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number(readFileSync(lock, { encoding: 'utf8', flag: 'r' }) || 0);
      if (holder && !isAlive(holder)) rmSync(lock, { force: true });
      else if (Date.now() > deadline) throw new Error(`${lock} is held by process ${holder}`);
      else await sleep(100);
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { force: true });
  }
}

/**
 * Starts the cluster at `opts.dataDir` (initdb when new), or joins it when another process already runs it; then
 * makes sure of role `ferretdb` (superuser, as FerretDB's docs have it) `CREATE EXTENSION documentdb CASCADE` and `documentdb_extended_rum`.
 * The configuration is rewritten on every start; a running server reloads it (and restarts when a setting needs it
 * and no other process uses it). A stale postmaster.pid (after kill -9) is handled by pg_ctl.
 * @throws Error with the server log's last lines when it does not start within `timeoutMs`.
 */
export async function startPostgres(opts: PostgresOptions): Promise<RunningPostgres> {
  const wanted = resolve(opts.dataDir);
  const dataDir = clusterDataDir(wanted);
  if (dataDir !== wanted) log(`the postgres user cannot reach ${dirname(wanted)}; this cluster's data is in ${dataDir}`);
  const port = opts.port ?? 5432;
  const timeoutMs = opts.timeoutMs ?? 120_000;
  const usersDir = `${dataDir}.users`;
  const me = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const pgCtl = join(PG_BIN, 'pg_ctl');

  const socketDir = await withLock(`${dataDir}.lock`, async () => {
    await ensureCluster(dataDir);
    const socketDir = socketDirFor(dataDir);
    writeConfig(dataDir, { ...postgresSettings(socketDir, port), ...opts.settings });
    const others = liveUsers(usersDir);
    mkdirSync(usersDir, { recursive: true });
    writeFileSync(join(usersDir, me), '');
    try {
      const running = (await runAsServer(pgCtl, ['status', '-D', dataDir])).code === 0;
      if (running) {
        await runAsServer(pgCtl, ['reload', '-D', dataDir, '-s']);
        await sleep(200);
        const pending = psql(socketDir, port, ['SELECT name FROM pg_settings WHERE pending_restart']).trim();
        if (pending && others.length === 0) {
          log(`restarting ${dataDir} (changed: ${pending.split('\n').join(', ')})`);
          const r = await runAsServer(pgCtl, ['restart', '-D', dataDir, '-m', 'fast', '-w', '-t', String(timeoutMs / 1000), '-s']);
          if (r.code !== 0) throw new Error(`PostgreSQL did not restart in ${dataDir}: ${r.out}${logTail(dataDir)}`);
        } else if (pending) {
          log(`${dataDir} is in use by other processes; these changed settings apply at its next start: ${pending}`);
        }
      } else {
        const r = await runAsServer(pgCtl, [
          'start',
          '-D',
          dataDir,
          '-l',
          join(dataDir, 'startup.log'),
          '-w',
          '-t',
          String(timeoutMs / 1000),
          '-s',
        ]);
        if (r.code !== 0) throw new Error(`PostgreSQL did not start in ${dataDir}: ${r.out}${logTail(dataDir)}`);
      }
      psql(socketDir, port, [
        "DO $$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'ferretdb') THEN CREATE ROLE ferretdb LOGIN SUPERUSER; END IF; END$$",
        'CREATE EXTENSION IF NOT EXISTS documentdb CASCADE',
        'CREATE EXTENSION IF NOT EXISTS documentdb_extended_rum',
        // pg_cron keeps the host and port of each job from when it was scheduled: follow a moved data directory.
        `UPDATE cron.job SET nodename = '${socketDir}', nodeport = ${port} WHERE nodename IS DISTINCT FROM '${socketDir}' OR nodeport IS DISTINCT FROM ${port}`,
      ]);
    } catch (err) {
      rmSync(join(usersDir, me), { force: true });
      throw err;
    }
    return socketDir;
  });

  let stopped = false;
  return {
    dataDir,
    socketDir,
    port,
    ferretdbUrl: `postgres://ferretdb@/postgres?host=${encodeURIComponent(socketDir)}&port=${port}`,
    sql: (query) => psql(socketDir, port, [query]),
    otherUsers: () => liveUsers(usersDir).filter((u) => u !== me).length,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await withLock(`${dataDir}.lock`, async () => {
        try {
          unlinkSync(join(usersDir, me));
        } catch {
          // already gone
        }
        if (liveUsers(usersDir).length > 0) return;
        const r = await runAsServer(pgCtl, ['stop', '-D', dataDir, '-m', 'fast', '-w', '-t', '60', '-s']);
        if (r.code !== 0 && (await runAsServer(pgCtl, ['status', '-D', dataDir])).code === 0) {
          throw new Error(`PostgreSQL did not stop in ${dataDir}: ${r.out}`);
        }
        rmSync(socketDir, { recursive: true, force: true }); // made again at the next start
      });
    },
  };
}
