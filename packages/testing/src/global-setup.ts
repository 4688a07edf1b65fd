/**
 * Integration tests' store: FerretDB 2.5 on the test cluster (var/test-postgres, kept between runs; @stratum/store-runtime).
 * Each test stack makes a MongoDB database of its own; the URI's default database is a fresh name per run.
 * To the test workers: STRATUM_TEST_MONGODB_URI (FerretDB) and STRATUM_TEST_POSTGRESQL_URL (the cluster, for a test
 * that runs a FerretDB of its own on it).
 */

import { join } from 'node:path';
import { ensureStoreInstalled, ROOT, type RunningStore, startStore } from '@stratum/store-runtime';

/** What the global teardown gets back (jest runs both in its main process). */
export interface TestStoreRun {
  store: RunningStore;
  /** The run's own database, the URI's default. */
  database: string;
  stateDir: string;
}

export default async function globalSetup(): Promise<void> {
  if (process.env.STRATUM_TEST_MONGODB_URI) return; // an external store (e.g. a real MongoDB) was given
  ensureStoreInstalled();
  const database = `stratum_test_${process.pid}_${Date.now()}`;
  const stateDir = join(ROOT, 'var', 'test', `ferretdb-${process.pid}`);
  const store = await startStore({ purpose: 'test', stateDir });
  process.env.STRATUM_TEST_MONGODB_URI = `${store.uri}${database}`;
  process.env.STRATUM_TEST_POSTGRESQL_URL = store.postgres.ferretdbUrl;
  (globalThis as Record<string, unknown>).__stratumTestStore = { store, database, stateDir } satisfies TestStoreRun;
}
