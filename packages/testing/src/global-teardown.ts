import { rmSync } from 'node:fs';
import { MongoClient } from 'mongodb';
import type { TestStoreRun } from './global-setup';

/**
 * Drops what the run stored and leaves the test cluster (it stops when no other run uses it).
 *
 * Test stacks name their own databases, so the run's data is not one database: when no other run shares the
 * cluster, every database goes; otherwise only the run's own, and the last run out clears the rest.
 */
export default async function globalTeardown(): Promise<void> {
  const t = (globalThis as Record<string, unknown>).__stratumTestStore as TestStoreRun | undefined;
  if (!t) return;
  const client = await MongoClient.connect(t.store.uri);
  try {
    // Listed before asking about other runs: a run that joins later has created none of these.
    const all = (await client.db().admin().listDatabases({ nameOnly: true })).databases.map((d) => d.name);
    const drop = t.store.postgres.otherUsers() === 0 ? all.filter((n) => !['admin', 'config', 'local'].includes(n)) : [t.database];
    const t0 = Date.now();
    // Four at a time: each drop is a few PostgreSQL DDL statements (~25 ms for four collections).
    for (let i = 0; i < drop.length; i += 4) await Promise.all(drop.slice(i, i + 4).map((name) => client.db(name).dropDatabase()));
    process.stderr.write(`test store: dropped ${drop.length} databases in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  } finally {
    await client.close();
    await t.store.stop();
    rmSync(t.stateDir, { recursive: true, force: true });
  }
}
