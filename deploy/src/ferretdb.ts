/**
 * Starting FerretDB (a MongoDB wire-protocol server) for the embedded default (SQLite backend under ./var) and for
 * tests and benchmarks (the local PostgreSQL, a fresh database per run).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { MongoClient } from 'mongodb';
import { stopChild } from './child';
import { sql } from './ferretdb-pg';

/** Repository root (this file is deploy/src/ferretdb.ts). */
export const ROOT = resolve(__dirname, '..', '..');
export const FERRETDB_BIN = join(ROOT, '.tools', 'bin', 'ferretdb');

/** Builds FerretDB into .tools/bin when it is not there yet (deploy/scripts/install-ferretdb.sh). */
export function ensureFerretDB(): void {
  execFileSync('sh', [join(ROOT, 'deploy', 'scripts', 'install-ferretdb.sh')], { stdio: 'inherit' });
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
  backend: { handler: 'sqlite'; dir: string } | { handler: 'postgresql'; url: string };
  port: number;
  /** FerretDB's state directory and log file go here. */
  stateDir: string;
}

export interface RunningFerretDB {
  uri: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts FerretDB and waits until it answers a ping.
 * @throws Error with the log file's path when it does not come up within `timeoutMs`.
 */
export async function startFerretDB(opts: FerretDBOptions, timeoutMs = 30_000): Promise<RunningFerretDB> {
  mkdirSync(opts.stateDir, { recursive: true });
  const args = [
    `--listen-addr=127.0.0.1:${opts.port}`,
    `--state-dir=${opts.stateDir}`,
    '--telemetry=disable',
    '--debug-addr=127.0.0.1:0',
    '--log-level=warn',
  ];
  if (opts.backend.handler === 'sqlite') {
    mkdirSync(opts.backend.dir, { recursive: true });
    args.push('--handler=sqlite', `--sqlite-url=file:${resolve(opts.backend.dir)}/`);
  } else {
    args.push('--handler=postgresql', `--postgresql-url=${opts.backend.url}`);
  }
  const logPath = join(opts.stateDir, 'ferretdb.log');
  const log = openSync(logPath, 'a');
  const child = spawn(FERRETDB_BIN, args, { stdio: ['ignore', log, log] });
  const uri = `mongodb://127.0.0.1:${opts.port}/`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`FerretDB exited with code ${child.exitCode}; see ${logPath}`);
    const client = new MongoClient(uri, { serverSelectionTimeoutMS: 500 });
    try {
      await client.db('admin').command({ ping: 1 });
      break;
    } catch {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`FerretDB did not answer on port ${opts.port} within ${timeoutMs} ms; see ${logPath}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    } finally {
      await client.close();
    }
  }
  return {
    uri,
    process: child,
    stop: () => stopChild(child),
  };
}

/** The local PostgreSQL that tests and benchmarks use (DESIGN.md: 127.0.0.1:5432, trust auth). */
export const PG_ADMIN_URL = process.env.STRATUM_PG_URL ?? 'postgres://postgres@127.0.0.1:5432';

/** Runs SQL in the server's `postgres` database. @returns psql's unaligned output. */
const psql = (query: string): string => sql(`${PG_ADMIN_URL}/postgres`, query);

/**
 * Creates a fresh PostgreSQL database for one run. @returns its URL.
 *
 * It is created with `plan_cache_mode = force_custom_plan`, set before FerretDB opens its connections (a connection
 * keeps the mode it started with): FerretDB sends the field name of a pushed-down filter as a parameter
 * (`_jsonb -> $1 @> $2`), and only a plan made for the actual name can use an index on `_jsonb -> 'field'`.
 * Measured on 10,000 documents: a `findOne` by `_id` took 7 ms (sequential scan) without it and 1.5 ms with it and
 * the GIN twin of the `_id` index (deploy/src/ferretdb-pg.ts).
 */
export function createPgDatabase(name: string): string {
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`bad database name ${name}`);
  psql(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  psql(`CREATE DATABASE ${name}`);
  psql(`ALTER DATABASE ${name} SET plan_cache_mode = force_custom_plan`);
  return `${PG_ADMIN_URL}/${name}`;
}

/** Creates the PostgreSQL database unless it exists (kept between runs). @returns its URL. */
export function ensurePgDatabase(name: string): { url: string } {
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`bad database name ${name}`);
  const exists = psql(`SELECT 1 FROM pg_database WHERE datname = '${name}'`).trim();
  if (!exists) psql(`CREATE DATABASE ${name}`);
  return { url: `${PG_ADMIN_URL}/${name}` };
}

export function dropPgDatabase(name: string): void {
  if (!/^[a-z0-9_]+$/.test(name)) return;
  psql(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}
