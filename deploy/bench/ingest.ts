/**
 * `pnpm bench ingest`: sustained ingestion through RabbitMQ into FerretDB 2.5 + DocumentDB (the bench cluster).
 *
 * The event-query service runs as its own process with the consumer on (shipped definitions, default batch and
 * prefetch settings). The bench publishes the 389 captured notification bodies, cycled with fresh message_ids and
 * the publish time as timestamp, at BENCH_INGEST_RATE messages/s for BENCH_INGEST_SECONDS (default 6000/s, 60 s)
 * to the exchanges they were captured on. It measures:
 * - throughput: messages published / time from the first publish to the last message being readable in the store;
 * - end-to-end lag: four probe messages a second; the oldest unseen one is looked up by `_id` every 20 ms (one
 *   cheap query at a time, served by the `_id` primary key, so measuring does not take the store's CPU);
 * - the consumer process's resident memory, sampled every second from /proc.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, ROOT, stopChild, waitHealthy } from '@stratum/store-runtime';
import { MongoClient } from 'mongodb';
import { Connection } from 'rabbitmq-client';
import { rssKiB } from './memory';
import { capturedNotifications, consumerEnv } from './notifications';
import { startBenchStore } from './store';

const AMQP_URL = process.env.BENCH_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : (s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number);
};

export async function ingestBench(): Promise<string> {
  const rate = Number(process.env.BENCH_INGEST_RATE ?? 6000);
  const seconds = Number(process.env.BENCH_INGEST_SECONDS ?? 60);
  const store = await startBenchStore('bench-ingest', 'stratum_bench_ingest');
  const suffix = Date.now().toString(36);
  const prefix = `bench-${suffix}-`;
  const queue = `stratum.bench.${suffix}`;
  const { bodies, manifest, exchanges } = capturedNotifications();
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'services/event-query/src/server.ts')], {
    env: {
      ...process.env,
      PORT: String(port),
      MONGODB_URI: store.uri,
      MONGODB_DATABASE: store.database,
      STRATUM_IDENTITY_SECRET: 'bench-identity-secret-0123456789',
      LOG_LEVEL: 'warn',
      ...consumerEnv(AMQP_URL, queue, prefix, exchanges),
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const bus = new Connection({ url: AMQP_URL, connectionName: 'stratum-bench' });
  const client = await MongoClient.connect(store.uri);
  const events = client.db(store.database).collection<{ _id: string }>('events');
  try {
    await waitHealthy(`http://127.0.0.1:${port}`, child, 'event-query');
    await sleep(1000); // consumer declared and bound, events collection and indexes created
    const pub = bus.createPublisher({ confirm: false });
    const total = rate * seconds;
    const probes: { id: string; sent: number; seen?: number }[] = [];
    const memory: number[] = [];
    const memTimer = setInterval(() => memory.push(rssKiB(child.pid as number) / 1024), 1000);
    const storeWatch = store.watchMemory();
    let polling = true;
    const poller = (async () => {
      // Probes are published in order and stored roughly in order: wait for the oldest unseen one, then the next.
      let i = 0;
      while (polling || i < probes.length) {
        const p = probes[i];
        if (p && (await events.findOne({ _id: p.id }, { projection: { _id: 1 } }))) {
          p.seen = Date.now();
          i++;
          continue;
        }
        await sleep(20);
      }
    })();
    const t0 = Date.now();
    let lastId = '';
    const tick = 50; // ms per publishing slice
    for (let sent = 0; sent < total; ) {
      const due = Math.min(total, Math.floor(((Date.now() - t0) / 1000) * rate));
      for (; sent < due; sent++) {
        const k = sent % bodies.length;
        const m = manifest[k] as (typeof manifest)[number];
        const id = crypto.randomUUID();
        const now = new Date();
        const ts = `${now.toISOString().slice(0, 10)} ${now.toISOString().slice(11, 23)}000`;
        const body = (bodies[k] as string).replace(m.message_id, id).replace(m.timestamp, ts);
        pub.send(
          {
            exchange: prefix + m.exchange,
            routingKey: m.routing_key,
            contentType: 'application/json',
            contentEncoding: 'utf-8',
            durable: true,
          },
          body,
        );
        if (sent % Math.max(1, Math.floor(rate / 4)) === 0) probes.push({ id, sent: Date.now() });
        lastId = id;
      }
      await sleep(tick);
    }
    const publishEnd = Date.now();
    probes.push({ id: lastId, sent: publishEnd });
    polling = false;
    // At most 5 minutes for the backlog; the timer must not keep the process alive once the poller is done.
    await Promise.race([poller, sleep(300_000, undefined, { ref: false })]);
    clearInterval(memTimer);
    const storeMemory = storeWatch.stop();
    const last = probes[probes.length - 1] as (typeof probes)[number];
    const elapsed = ((last.seen ?? Date.now()) - t0) / 1000;
    const lags = probes.filter((p) => p.seen !== undefined).map((p) => (p.seen as number) - p.sent);
    // Exact: DocumentDB's estimatedDocumentCount reads PostgreSQL's statistics, which lag a bulk load.
    const storedCount = await events.countDocuments({});
    await pub.close();
    const firstMem = memory.slice(0, 10);
    const lastMem = memory.slice(-10);
    const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
    const rows = [
      '| measure | value |',
      '|---|---|',
      `| messages published | ${total.toLocaleString('en')} at ${rate.toLocaleString('en')}/s for ${seconds} s (real bodies, 389 cycled) |`,
      `| sustained ingestion | **${Math.round(total / elapsed).toLocaleString('en')} events/s** (first publish → last event readable: ${elapsed.toFixed(1)} s) |`,
      `| events in the store | ${storedCount.toLocaleString('en')} |`,
      `| end-to-end lag (${lags.length} probes) | p50 ${pct(lags, 50)} ms · p99 **${pct(lags, 99)} ms** · max ${Math.max(...lags)} ms |`,
      `| consumer RSS | first 10 s avg ${avg(firstMem).toFixed(0)} MiB · last 10 s avg ${avg(lastMem).toFixed(0)} MiB · max ${Math.max(...memory).toFixed(0)} MiB |`,
      `| store memory (first → middle → last sample, 1 s apart) | ${storeMemory.join('; ')} |`,
    ];
    return `${rows.join('\n')}\n`;
  } finally {
    await stopChild(child);
    await bus.queueDelete({ queue }).catch(() => undefined);
    await bus.queueDelete({ queue: `${queue}.dead` }).catch(() => undefined);
    await bus.close();
    await client.close();
    await store.stop();
  }
}
