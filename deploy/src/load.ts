/**
 * Loader: stores a file of notifications (JSON lines or a JSON array of AMQP bodies, either envelope) as events, and
 * a registry bootstrap YAML into the department quota registry.
 *
 *   pnpm load --events deploy/samples/notifications.jsonl
 *   pnpm load --registry deploy/samples/registry.yaml [--merge | --replace]
 *
 * A registry loads into an empty registry only; on one that holds anything it is refused (exit 1) unless `--merge`
 * (set what the file names, keep the rest) or `--replace` (the registry becomes the file) is given; either way the
 * sums (`allocated`) are recomputed from the whole tree (services/domain-quota/README.md, "Loading a registry").
 * Reads MONGODB_URI and MONGODB_DATABASE (defaults: the embedded stack's store).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type CheckReport,
  checkRegistrySums,
  type LoadMode,
  loadRegistry,
  RegistryNotEmptyError,
  RegistryRepository,
} from '@stratum/domain-quota';
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

/**
 * Loads a registry bootstrap file.
 * @param mode `empty` (default: refused with RegistryNotEmptyError when the registry holds anything), `merge` or
 *   `replace` (see @stratum/domain-quota's registry.bootstrap.ts).
 */
export async function loadRegistryFile(db: Db, text: string, mode: LoadMode = 'empty'): Promise<Record<string, number>> {
  const repo = new RegistryRepository(db);
  await repo.ensureIndexes();
  return loadRegistry(repo, text, mode);
}

/** What the launcher's start-up data step did. */
export interface SampleLoad {
  /** The sample events' import, or null when the store already held events. */
  events: ImportSummary | null;
  /** The sample registry's counts, or null when the store already held a registry. */
  registry: Record<string, number> | null;
  /** The registry's sum check, run after the samples, with repairs. */
  check: CheckReport;
}

/**
 * The launcher's start-up data step (`npm start`, deploy/src/start.ts): the samples under `samplesDir`
 * (notifications.jsonl, registry.yaml) are loaded into an empty store only, so a restart never changes data (an
 * event store keeps what expiry removed, a registry keeps what the API changed); then every sum of the registry is
 * checked and repaired (each repair audited and in the returned report).
 */
export async function loadSamples(db: Db, samplesDir: string): Promise<SampleLoad> {
  // `events`: the event service's collection (EventsRepository).
  const hasEvents = (await db.collection('events').findOne({}, { projection: { _id: 1 } })) !== null;
  const events = hasEvents ? null : await loadEvents(db, readFileSync(join(samplesDir, 'notifications.jsonl'), 'utf8'));
  let registry: Record<string, number> | null = null;
  try {
    registry = await loadRegistryFile(db, readFileSync(join(samplesDir, 'registry.yaml'), 'utf8'));
  } catch (err) {
    if (!(err instanceof RegistryNotEmptyError)) throw err;
  }
  return { events, registry, check: await checkRegistrySums(db, true) };
}

const USAGE = 'usage: pnpm load [--events FILE] [--registry FILE [--merge | --replace]]';

async function main(argv: string[]): Promise<void> {
  const uri = process.env.MONGODB_URI ?? 'mongodb://127.0.0.1:27117/';
  const dbName = process.env.MONGODB_DATABASE ?? 'stratum';
  const jobs: [string, string][] = [];
  let mode: LoadMode = 'empty';
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const file = argv[i + 1];
    if ((flag === '--events' || flag === '--registry') && file) {
      jobs.push([flag, file]);
      i++;
    } else if (flag === '--merge' || flag === '--replace') {
      if (mode !== 'empty') throw new Error(`${USAGE}: --merge and --replace exclude each other`);
      mode = flag === '--merge' ? 'merge' : 'replace';
    } else if (flag !== '--') {
      throw new Error(USAGE);
    }
  }
  if (jobs.length === 0) throw new Error(USAGE);
  if (mode !== 'empty' && !jobs.some(([flag]) => flag === '--registry')) throw new Error(`${USAGE}: ${mode} applies to --registry`);
  const client = await MongoClient.connect(uri, { serverSelectionTimeoutMS: 3000 });
  try {
    for (const [flag, file] of jobs) {
      const text = readFileSync(file, 'utf8');
      const result =
        flag === '--events' ? await loadEvents(client.db(dbName), text) : await loadRegistryFile(client.db(dbName), text, mode);
      console.log(JSON.stringify({ file, ...(flag === '--registry' ? { mode } : {}), ...result }));
    }
  } catch (err) {
    if (err instanceof RegistryNotEmptyError) throw new Error(`pnpm load --registry: ${err.message}`);
    throw err;
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
