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
import { EventsRepository, notificationToEvent, parseNotification, toEventDoc } from '@stratum/event-query';
import type { Db } from 'mongodb';
import { MongoClient } from 'mongodb';

export interface EventLoadSummary {
  stored: number;
  duplicates: number;
  rejected: { line: number; reason: string }[];
}

/** The records of a file: the elements of one JSON array, or the non-empty lines of JSON lines (parsed later). */
function records(text: string): unknown[] {
  const trimmed = text.trim();
  if (trimmed.startsWith('[')) return JSON.parse(trimmed) as unknown[];
  return trimmed.split('\n').filter((l) => l.trim() !== '');
}

function parseLine(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    throw new Error('not valid JSON');
  }
}

/** Converts and stores notifications; idempotent on message_id. */
export async function loadEvents(db: Db, text: string): Promise<EventLoadSummary> {
  const repo = new EventsRepository(db);
  await repo.ensureIndexes();
  const summary: EventLoadSummary = { stored: 0, duplicates: 0, rejected: [] };
  const docs = [];
  for (const [i, rec] of records(text).entries()) {
    try {
      const body = typeof rec === 'string' ? parseLine(rec) : rec;
      docs.push(toEventDoc(notificationToEvent(parseNotification(body))));
    } catch (err) {
      summary.rejected.push({ line: i + 1, reason: (err as Error).message });
    }
  }
  for (let i = 0; i < docs.length; i += 500) {
    const r = await repo.insertMany(docs.slice(i, i + 500));
    summary.stored += r.inserted;
    summary.duplicates += r.duplicates;
  }
  return summary;
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
