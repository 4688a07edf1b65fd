/**
 * The store a bench suite runs on: FerretDB 2.5 on the bench cluster (var/bench-postgres, kept between runs;
 * packages/store-runtime/src/store.ts), a MongoDB database of the suite's own, and a state folder under var/ for its
 * files (tokens, secret, FerretDB's log).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ensureStoreInstalled, ROOT, type RunningPostgres, type RunningStore, startStore } from '@stratum/store-runtime';
import { MongoClient } from 'mongodb';
import { type MemoryWatch, postmasterPid, watchMemory } from './memory';

export interface BenchStore {
  /** MongoDB URI of the FerretDB. */
  uri: string;
  /** The suite's MongoDB database. */
  database: string;
  /** The bench cluster (e.g. for collectionSize). */
  postgres: RunningPostgres;
  /** `var/<name>`, the suite's folder. */
  dir: string;
  /** FerretDB's process id (e.g. for CPU accounting). */
  ferretdbPid: number;
  /** Starts sampling the memory of FerretDB, the PostgreSQL backends and `pids` (e.g. the stack's processes). */
  watchMemory(pids?: Record<string, number>): MemoryWatch;
  /** Stops FerretDB and leaves the cluster; drops the suite's database unless it is kept. */
  stop(): Promise<void>;
}

async function dropDatabase(uri: string, database: string): Promise<void> {
  const client = await MongoClient.connect(uri);
  try {
    await client.db(database).dropDatabase();
  } finally {
    await client.close();
  }
}

/**
 * Starts FerretDB on the bench cluster with state in `var/<name>`, for MongoDB database `database`: dropped first
 * and at stop, or with `keep` left as it is both times (the events suite reuses its million events across runs).
 */
export async function startBenchStore(name: string, database: string, opts: { keep?: boolean } = {}): Promise<BenchStore> {
  const dir = join(ROOT, 'var', name);
  mkdirSync(dir, { recursive: true });
  ensureStoreInstalled();
  const store: RunningStore = await startStore({ purpose: 'bench', stateDir: dir });
  try {
    if (!opts.keep) await dropDatabase(store.uri, database);
  } catch (err) {
    await store.stop();
    throw err;
  }
  return {
    uri: store.uri,
    database,
    postgres: store.postgres,
    dir,
    ferretdbPid: store.ferretdb.process.pid ?? 0,
    watchMemory: (pids = {}) => watchMemory({ FerretDB: store.ferretdb.process.pid ?? 0, ...pids }, postmasterPid(store.postgres.dataDir)),
    stop: async () => {
      try {
        if (!opts.keep) await dropDatabase(store.uri, database);
      } finally {
        await store.stop();
      }
    },
  };
}
