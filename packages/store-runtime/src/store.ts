/**
 * The store: FerretDB 2.5 (a MongoDB wire-protocol server) on a PostgreSQL 15 cluster of the project's own with the
 * DocumentDB extension (postgres.ts). docs/stores.md, "Building and running FerretDB 2.5 + DocumentDB".
 *
 * One cluster per purpose, each kept between runs under ./var: the embedded default (`npm start`, durable), the
 * integration tests (fsync off) and the benchmarks (bigger buffers and WAL). In FerretDB 2.x every MongoDB database
 * lives in the one PostgreSQL database `postgres`, so what a run owns is a MongoDB database name, not a PostgreSQL
 * database.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { MongoClient } from 'mongodb';
import { stopChild } from './child';
import { type RunningPostgres, startPostgres } from './postgres';
import type { PgSetting } from './postgres.settings';

/** Repository root (this file is packages/store-runtime/src/store.ts). */
export const ROOT = resolve(__dirname, '..', '..', '..');
/** The FerretDB build install-store.sh copies out of its cache. */
const FERRETDB_BIN = join(ROOT, '.tools', 'bin', 'ferretdb');
/** util-linux's setpriv (Debian: always installed). */
const SETPRIV = '/usr/bin/setpriv';

/**
 * Installs what the store needs when it is missing (deploy/scripts/install-store.sh: Debian packages, pgvector and
 * DocumentDB in PostgreSQL 15, FerretDB 2.5 in .tools/bin); takes well under a second when all is there.
 * @throws Error when the script fails (its messages, e.g. the sudo command to run, are on stderr).
 */
export function ensureStoreInstalled(): void {
  execFileSync('sh', [join(ROOT, 'deploy', 'scripts', 'install-store.sh')], { stdio: 'inherit' });
}

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => ok(port));
    });
  });
}

export interface FerretDBOptions {
  /**
   * PostgreSQL URL FerretDB connects with, e.g. `RunningPostgres.ferretdbUrl` (over the Unix socket, so its new
   * connections skip authentication). Pool settings go in its query: `pool_max_conns` (FerretDB's default 50),
   * `pool_min_conns` (10).
   */
  postgresqlUrl: string;
  /** TCP port on 127.0.0.1 for the MongoDB protocol. */
  port: number;
  /** FerretDB's state directory (state.json) and its log file, ferretdb.log. */
  stateDir: string;
}

export interface RunningFerretDB {
  /** `mongodb://127.0.0.1:<port>/` */
  uri: string;
  process: ChildProcess;
  /** SIGTERM, then SIGKILL after 5 s. */
  stop(): Promise<void>;
}

/**
 * Starts FerretDB 2.5 (no authentication, telemetry off, metrics on a random loopback port) and waits until it
 * answers a ping.
 * @throws Error naming the log file when it exits or does not answer within `timeoutMs`.
 */
export async function startFerretDB(opts: FerretDBOptions, timeoutMs = 30_000): Promise<RunningFerretDB> {
  mkdirSync(opts.stateDir, { recursive: true });
  const args = [
    `--postgresql-url=${opts.postgresqlUrl}`,
    `--listen-addr=127.0.0.1:${opts.port}`,
    // As FerretDB 1.24 ran for this project: the services do not authenticate to the store (2.x defaults to auth on).
    '--no-auth',
    `--state-dir=${opts.stateDir}`,
    '--debug-addr=127.0.0.1:0',
    '--telemetry=disable',
    '--log-level=warn',
  ];
  const logPath = join(opts.stateDir, 'ferretdb.log');
  const log = openSync(logPath, 'a');
  // setpriv --pdeathsig: FerretDB gets SIGTERM when this process dies without stopping it (kill -9, a crashed test
  // run), instead of living on and holding the port.
  const child = existsSync(SETPRIV)
    ? spawn(SETPRIV, ['--pdeathsig', 'TERM', '--', FERRETDB_BIN, ...args], { stdio: ['ignore', log, log] })
    : spawn(FERRETDB_BIN, args, { stdio: ['ignore', log, log] });
  const uri = `mongodb://127.0.0.1:${opts.port}/`;
  await waitForPing(uri, child, logPath, timeoutMs);
  return { uri, process: child, stop: () => stopChild(child) };
}

/**
 * Pings the MongoDB server at `uri` every 200 ms until it answers.
 * @throws Error naming `logPath` when `child` exits first or `timeoutMs` passes (the child is then killed).
 */
export async function waitForPing(uri: string, child: ChildProcess, logPath: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`FerretDB exited with code ${child.exitCode}; see ${logPath}`);
    const client = new MongoClient(uri, { serverSelectionTimeoutMS: 500 });
    try {
      await client.db('admin').command({ ping: 1 });
      return;
    } catch {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`FerretDB did not answer at ${uri} within ${timeoutMs} ms; see ${logPath}`);
      }
      await sleep(200);
    } finally {
      await client.close();
    }
  }
}

/** What a store is for; each has its own cluster under ./var. */
export type StorePurpose = 'embedded' | 'test' | 'bench';

/**
 * Data directory and settings per purpose (over `postgresSettings`).
 * - embedded: durable, PostgreSQL's defaults.
 * - test: throwaway data, so no fsync and no waiting for WAL flushes (a crash may lose the cluster; tests recreate it).
 * - bench: the 1M-event database is loaded into it and kept; 512 MB of buffers, and max_wal_size 8 GB because with
 *   1 GB checkpoints came every ~5 s during bulk inserts.
 */
export const STORE_PURPOSES: Record<StorePurpose, { dataDir: string; settings: Record<string, PgSetting> }> = {
  embedded: { dataDir: join(ROOT, 'var', 'postgres'), settings: {} },
  test: {
    dataDir: join(ROOT, 'var', 'test-postgres'),
    settings: { fsync: false, synchronous_commit: false, full_page_writes: false },
  },
  bench: {
    dataDir: join(ROOT, 'var', 'bench-postgres'),
    settings: { shared_buffers: '512MB', max_wal_size: '8GB', checkpoint_timeout: '15min' },
  },
};

export interface StoreOptions {
  purpose: StorePurpose;
  /** FerretDB's MongoDB port on 127.0.0.1 (default: a free one). */
  port?: number;
  /** FerretDB's state directory and log (default var/ferretdb-state/<purpose>). */
  stateDir?: string;
  /** The cluster's data directory, instead of the purpose's. */
  dataDir?: string;
}

export interface RunningStore {
  /** MongoDB URI of FerretDB, `mongodb://127.0.0.1:<port>/`. */
  uri: string;
  postgres: RunningPostgres;
  ferretdb: RunningFerretDB;
  /** Stops FerretDB, then leaves the cluster (which stops when no other process uses it). */
  stop(): Promise<void>;
}

/**
 * Starts (or joins) the purpose's PostgreSQL cluster and a FerretDB on it.
 * @throws Error from startPostgres or startFerretDB (the cluster is left again on failure).
 */
export async function startStore(opts: StoreOptions): Promise<RunningStore> {
  const p = STORE_PURPOSES[opts.purpose];
  const postgres = await startPostgres({ dataDir: opts.dataDir ?? p.dataDir, settings: p.settings });
  let ferretdb: RunningFerretDB;
  try {
    ferretdb = await startFerretDB({
      postgresqlUrl: postgres.ferretdbUrl,
      port: opts.port ?? (await freePort()),
      stateDir: opts.stateDir ?? join(ROOT, 'var', 'ferretdb-state', opts.purpose),
    });
  } catch (err) {
    await postgres.stop();
    throw err;
  }
  return {
    uri: ferretdb.uri,
    postgres,
    ferretdb,
    stop: async () => {
      await ferretdb.stop();
      await postgres.stop();
    },
  };
}

/**
 * On-disk size of the PostgreSQL table behind a MongoDB collection, in bytes: heap (with TOAST) and its indexes.
 * DocumentDB's catalog (documentdb_api_catalog.collections) maps database + collection to
 * documentdb_data.documents_<collection_id>. @returns zeros when the collection does not exist.
 */
export function collectionSize(postgres: RunningPostgres, database: string, collection: string): { table: number; indexes: number } {
  const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;
  const row = postgres
    .sql(
      `SELECT pg_table_size(t), pg_indexes_size(t) FROM (SELECT format('documentdb_data.documents_%s', collection_id)::regclass AS t FROM documentdb_api_catalog.collections WHERE database_name = ${lit(database)} AND collection_name = ${lit(collection)}) c`,
    )
    .trim();
  if (!row) return { table: 0, indexes: 0 };
  const [t, i] = row.split('|');
  return { table: Number(t), indexes: Number(i) };
}
