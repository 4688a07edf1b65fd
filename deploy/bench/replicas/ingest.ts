import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { stopChild } from '@stratum/store-runtime';
import { MongoClient } from 'mongodb';
import { Connection } from 'rabbitmq-client';
import { capturedNotifications, consumerEnv } from '../notifications';
import type { BenchStore } from '../store';
import { AMQP_URL, type Proc, startProc } from './procs';

// Part 1: two ingestion consumers on one queue

interface ConsumerStats {
  received: number;
  stored: number;
  duplicates: number;
  ignored: number;
  deadLettered: number;
  storeRetries: number;
}

/** The stats a consumer logged when it closed (services/event-query/src/deps.ts), or undefined. */
function loggedStats(p: Proc): ConsumerStats | undefined {
  for (const line of p.lines) {
    try {
      const o = JSON.parse(line) as { msg?: string; stats?: ConsumerStats };
      if (o.msg === 'ingest consumer closed' && o.stats) return o.stats;
    } catch {
      // not JSON
    }
  }
  return undefined;
}

export async function ingestPart(store: BenchStore, secret: string, eventful: Set<string>): Promise<string> {
  const total = Number(process.env.BENCH_REPLICAS_MESSAGES ?? 20_000);
  const rate = Number(process.env.BENCH_REPLICAS_RATE ?? 4000);
  const database = `${store.database}_ingest`;
  const suffix = `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
  const prefix = `bench-replicas-${suffix}-`;
  const queue = `stratum.bench.replicas.${suffix}`;
  const { bodies, manifest, exchanges } = capturedNotifications();
  const env = {
    MONGODB_URI: store.uri,
    MONGODB_DATABASE: database,
    STRATUM_IDENTITY_SECRET: secret,
    REDIS_URL: '',
    LOG_LEVEL: 'info',
    ...consumerEnv(AMQP_URL, queue, prefix, exchanges),
  };
  const bus = new Connection({ url: AMQP_URL, connectionName: 'stratum-bench-replicas' });
  const client = await MongoClient.connect(store.uri);
  const consumers: Proc[] = [];
  try {
    await client.db(database).dropDatabase();
    for (const n of ['a', 'b'])
      consumers.push(await startProc(`event-query consumer ${n}`, 'services/event-query/src/server.ts', env, true));
    const events = client.db(database).collection<{ _id: string }>('events');
    const pub = bus.createPublisher({ confirm: true, maxAttempts: 3 });
    process.stderr.write(`bench: replicas, ingestion: ${total} messages at ${rate}/s to two consumers on ${queue}\n`);
    let expected = 0;
    const t0 = Date.now();
    for (let sent = 0; sent < total; ) {
      const due = Math.min(total, Math.floor(((Date.now() - t0) / 1000) * rate) + 1);
      const confirms: Promise<void>[] = [];
      for (; sent < due; sent++) {
        const k = sent % bodies.length;
        const m = manifest[k] as (typeof manifest)[number];
        const id = randomUUID();
        if (eventful.has(m.message_id)) expected++;
        const now = new Date().toISOString();
        const body = (bodies[k] as string).replace(m.message_id, id).replace(m.timestamp, `${now.slice(0, 10)} ${now.slice(11, 23)}000`);
        const props = { exchange: prefix + m.exchange, routingKey: m.routing_key, contentType: 'application/json', durable: true };
        confirms.push(pub.send(props, body));
      }
      await Promise.all(confirms);
      await sleep(20);
    }
    const published = Date.now();
    // Until the store holds every event, or nothing more arrives for 20 s.
    let stored = 0;
    let changed = Date.now();
    while (stored < expected && Date.now() - changed < 20_000) {
      await sleep(200);
      const n = await events.countDocuments({});
      if (n !== stored) changed = Date.now();
      stored = n;
    }
    const done = Date.now();
    await pub.close();
    await Promise.all(consumers.map((c) => stopChild(c.child)));
    const stats = consumers.map(loggedStats);
    const dead = (await bus.queueDeclare({ queue: `${queue}.dead`, passive: true }).catch(() => undefined))?.messageCount;
    const sum = (f: (s: ConsumerStats) => number) => stats.reduce((a, s) => a + (s ? f(s) : 0), 0);
    const received = sum((s) => s.received);
    const share = (s?: ConsumerStats) =>
      s ? `${s.received.toLocaleString('en')} (${((100 * s.received) / Math.max(1, received)).toFixed(1)} %)` : '— (no stats logged)';
    const rows = [
      '| measure | value |',
      '|---|---|',
      `| published (publisher confirms) | ${total.toLocaleString('en')} messages at ${rate.toLocaleString('en')}/s (the 389 captured bodies cycled, fresh message_ids), ${expected.toLocaleString('en')} of which make an event (the others are notifications Ceilometer makes no event of) |`,
      `| events in the store | **${stored.toLocaleString('en')}** of ${expected.toLocaleString('en')} expected: ${stored === expected ? '**none lost**' : `**${expected - stored} missing**`} |`,
      `| delivered to consumer a | ${share(stats[0])} |`,
      `| delivered to consumer b | ${share(stats[1])} |`,
      `| delivered in all | ${received.toLocaleString('en')} (${received === total ? 'each message once' : `${received - total} more than published: redeliveries`}) |`,
      `| stored twice (consumers' duplicates, dedup on message_id) | **${sum((s) => s.duplicates)}** |`,
      `| stored by a / b | ${stats.map((s) => s?.stored.toLocaleString('en') ?? '—').join(' / ')} |`,
      `| acknowledged without an event / dead-lettered / store retries | ${sum((s) => s.ignored)} / ${sum((s) => s.deadLettered)} (dead-letter queue holds ${dead ?? '?'}) / ${sum((s) => s.storeRetries)} |`,
      `| time | publishing ${((published - t0) / 1000).toFixed(1)} s, last event stored ${((done - t0) / 1000).toFixed(1)} s after the first publish |`,
    ];
    return rows.join('\n');
  } finally {
    await Promise.all(consumers.map((c) => stopChild(c.child)));
    await bus.queueDelete({ queue }).catch(() => undefined);
    await bus.queueDelete({ queue: `${queue}.dead` }).catch(() => undefined);
    await bus.close();
    await client.db(database).dropDatabase();
    await client.close();
  }
}
