import { dropPgDatabase, type RunningFerretDB } from '@stratum/deploy';

export default async function globalTeardown(): Promise<void> {
  const t = (globalThis as Record<string, unknown>).__stratumTestStore as { store: RunningFerretDB; pgDatabase: string } | undefined;
  if (!t) return;
  await t.store.stop();
  dropPgDatabase(t.pgDatabase);
}
