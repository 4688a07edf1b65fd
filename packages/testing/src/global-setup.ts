/**
 * Integration tests' store: FerretDB on the local PostgreSQL, a fresh PostgreSQL database per run.
 * The MongoDB URI reaches the test workers through STRATUM_TEST_MONGODB_URI.
 */

import { join } from 'node:path';
import { createPgDatabase, ensureFerretDB, freePort, ROOT, startFerretDB } from '@stratum/deploy';

export default async function globalSetup(): Promise<void> {
  if (process.env.STRATUM_TEST_MONGODB_URI) return; // an external store (e.g. a real MongoDB) was given
  ensureFerretDB();
  const pgDatabase = `stratum_test_${process.pid}_${Date.now()}`;
  const url = createPgDatabase(pgDatabase);
  const port = await freePort();
  const store = await startFerretDB({ backend: { handler: 'postgresql', url }, port, stateDir: join(ROOT, 'var', 'test', pgDatabase) });
  process.env.STRATUM_TEST_MONGODB_URI = store.uri;
  (globalThis as Record<string, unknown>).__stratumTestStore = { store, pgDatabase };
}
