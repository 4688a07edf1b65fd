/**
 * The store a bench suite runs on: FerretDB over a fresh PostgreSQL database of its own, with a state folder under
 * var/ for its files (tokens, secret).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createPgDatabase, dropPgDatabase, ensureFerretDB, freePort, ROOT, startFerretDB } from '../src/ferretdb';

export interface BenchStore {
  /** MongoDB URI of the FerretDB. */
  uri: string;
  /** PostgreSQL URL of its database (for tuneDatabase). */
  pgUrl: string;
  /** `var/<name>`, the suite's folder. */
  dir: string;
  /** Stops FerretDB and drops the PostgreSQL database. */
  stop(): Promise<void>;
}

/**
 * Creates PostgreSQL database `pgDatabase` (dropping an old one) and starts FerretDB on it, state in `var/<name>`.
 */
export async function startBenchStore(name: string, pgDatabase: string): Promise<BenchStore> {
  const dir = join(ROOT, 'var', name);
  mkdirSync(dir, { recursive: true });
  ensureFerretDB();
  const pgUrl = createPgDatabase(pgDatabase);
  const store = await startFerretDB({ backend: { handler: 'postgresql', url: pgUrl }, port: await freePort(), stateDir: dir });
  return {
    uri: store.uri,
    pgUrl,
    dir,
    stop: async () => {
      await store.stop();
      dropPgDatabase(pgDatabase);
    },
  };
}
