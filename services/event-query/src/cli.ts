/**
 * `pnpm events <command>`: operator commands of the event service, against the store in MONGODB_URI /
 * MONGODB_DATABASE (defaults: the embedded stack's store) with the service's configuration.
 *
 *   pnpm events import FILE     notifications or serialized events (JSON array or JSON lines), with a progress
 *                               bar and a summary: stored, duplicates, ignored, rejected with reasons
 *   pnpm events expire [--ttl SECONDS]   delete events older than EVENT_TIME_TO_LIVE, in batches
 *
 * Exit status: 0 when every record was stored or was a duplicate, 1 when some were rejected, 2 on failure.
 */
import { readFileSync } from 'node:fs';
import { connectStore } from '@stratum/http-kit';
import { SingleBar } from 'cli-progress';
import { Command, InvalidArgumentError } from 'commander';
import { loadConfig } from './config';
import { loadDecodeOptions } from './deps';
import { EventsRepository } from './events/events.repository';
import { expireEvents } from './ingest/expirer';
import { importRecords } from './ingest/import';
import { IngestService } from './ingest/ingest.service';

const EMBEDDED_DEFAULTS = { MONGODB_URI: 'mongodb://127.0.0.1:27117/', MONGODB_DATABASE: 'stratum' };

function config() {
  return loadConfig({ ...EMBEDDED_DEFAULTS, STRATUM_IDENTITY_SECRET: 'unused-by-the-cli', ...process.env });
}

async function withRepo<T>(c: ReturnType<typeof config>, fn: (repo: EventsRepository) => Promise<T>): Promise<T> {
  const store = await connectStore(c.MONGODB_URI, c.MONGODB_DATABASE);
  try {
    const repo = new EventsRepository(store.db);
    await repo.ensureIndexes();
    return await fn(repo);
  } finally {
    await store.close();
  }
}

const program = new Command('events').description('Stratum event service commands');

program
  .command('import')
  .argument('<file>', 'JSON array or JSON lines of notifications (either oslo envelope) or serialized events')
  .description('convert and store the records of a file; idempotent on message_id')
  .action(async (file: string) => {
    const c = config();
    const text = readFileSync(file, 'utf8');
    const bar = new SingleBar({
      format: 'import [{bar}] {percentage}% | {value}/{total} records',
      noTTYOutput: true,
      notTTYSchedule: 2000,
    });
    const decode = loadDecodeOptions(c);
    const summary = await withRepo(c, async (repo) => {
      let started = false;
      const s = await importRecords(text, decode, new IngestService(repo), (done, total) => {
        if (!started) {
          bar.start(total, 0);
          started = true;
        }
        bar.update(done);
      });
      if (started) bar.stop();
      return s;
    });
    console.log(
      `records: ${summary.records}  stored: ${summary.stored}  duplicates: ${summary.duplicates}  ignored: ${summary.ignored}  rejected: ${summary.rejected.length}`,
    );
    for (const r of summary.rejected) console.log(`  record ${r.record}: ${r.reason}`);
    process.exitCode = summary.rejected.length > 0 ? 1 : 0;
  });

program
  .command('expire')
  .description('delete events generated more than the time to live ago, in batches')
  .option('--ttl <seconds>', 'time to live in seconds (default EVENT_TIME_TO_LIVE)', (v) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < -1) throw new InvalidArgumentError('an integer number of seconds, or -1');
    return n;
  })
  .action(async (opts: { ttl?: number }) => {
    const c = config();
    const ttl = opts.ttl ?? c.EVENT_TIME_TO_LIVE;
    if (ttl <= 0) {
      console.log('event_time_to_live is not set (-1): nothing expires');
      return;
    }
    const r = await withRepo(c, (repo) => expireEvents(repo, ttl, c.EVENT_EXPIRER_BATCH_SIZE));
    console.log(
      `deleted ${r.deleted} events generated before ${r.cutoff} in ${r.batches} batches; ${r.summariesDropped} event types left the summaries`,
    );
  });

program.parseAsync(process.argv).catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 2;
});
