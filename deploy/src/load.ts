/**
 * Loader: stores a file of notifications (JSON lines or a JSON array of AMQP bodies, either envelope) as events, and
 * a registry bootstrap YAML into the department quota registry.
 *
 *   pnpm load --events deploy/samples/notifications.jsonl
 *   pnpm load --registry deploy/samples/registry.yaml
 *
 * Reads MONGODB_URI and MONGODB_DATABASE (defaults: the embedded stack's store).
 */
import { readFileSync } from 'node:fs';
import { loadRegistry, RegistryRepository } from '@stratum/domain-quota';
import { EventsRepository, type ImportSummary, IngestService, importRecords, loadConfig, loadDecodeOptions } from '@stratum/event-query';
import type { Db } from 'mongodb';
import { MongoClient } from 'mongodb';

/**
 * Converts and stores notifications with the shipped definitions (the same path as the bus and `pnpm events
 * import`); idempotent on message_id.
 */
export async function loadEvents(db: Db, text: string): Promise<ImportSummary> {
  const repo = new EventsRepository(db);
  await repo.ensureIndexes();
  const config = loadConfig({ STRATUM_IDENTITY_SECRET: 'unused-by-the-loader' });
  return importRecords(text, loadDecodeOptions(config), new IngestService(repo));
}

/** Loads a registry bootstrap file. */
export async function loadRegistryFile(db: Db, text: string): Promise<Record<string, number>> {
  const repo = new RegistryRepository(db);
  await repo.ensureIndexes();
  return loadRegistry(repo, text);
}

async function main(argv: string[]): Promise<void> {
  const uri = process.env.MONGODB_URI ?? 'mongodb://127.0.0.1:27117/';
  const dbName = process.env.MONGODB_DATABASE ?? 'stratum';
  const jobs: [string, string][] = [];
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const file = argv[i + 1];
    if ((flag === '--events' || flag === '--registry') && file) {
      jobs.push([flag, file]);
      i++;
    } else if (flag !== '--') {
      throw new Error('usage: pnpm load [--events FILE] [--registry FILE]');
    }
  }
  if (jobs.length === 0) throw new Error('usage: pnpm load [--events FILE] [--registry FILE]');
  const client = await MongoClient.connect(uri, { serverSelectionTimeoutMS: 3000 });
  try {
    for (const [flag, file] of jobs) {
      const text = readFileSync(file, 'utf8');
      const result = flag === '--events' ? await loadEvents(client.db(dbName), text) : await loadRegistryFile(client.db(dbName), text);
      console.log(JSON.stringify({ file, ...result }));
    }
  } finally {
    await client.close();
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
