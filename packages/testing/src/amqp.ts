/**
 * RabbitMQ helpers for tests of the bus (ingestion, forwarding, audit notifications): publish bodies as OpenStack services do, read a queue, and remove the
 * queues a test declared (a durable queue left bound to `nova` would collect every later notification).
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from 'rabbitmq-client';

export const AMQP_URL = process.env.STRATUM_TEST_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';

/** The Panko query-string filter that lifts an admin's project restriction. */
export const ALL_TENANTS = 'q.field=all_tenants&q.op=eq&q.value=true';

export const suffix = () => randomBytes(4).toString('hex');

export class Bus {
  readonly connection = new Connection({ url: AMQP_URL, connectionName: `stratum-test-${suffix()}` });
  private readonly publisher = this.connection.createPublisher({ confirm: true });

  constructor() {
    // A slow connect on a loaded machine is retried by the client; without a listener it would fail the test file.
    this.connection.on('error', () => undefined);
  }

  /** Publishes an oslo-style message: JSON body, utf-8 encoding, persistent, to a non-durable topic exchange. */
  async publish(exchange: string, routingKey: string, body: string | Buffer, durableExchange = false): Promise<void> {
    await this.connection.exchangeDeclare({ exchange, type: 'topic', durable: durableExchange });
    await this.publisher.send(
      { exchange, routingKey, contentType: 'application/json', contentEncoding: 'utf-8', durable: true },
      Buffer.from(body),
    );
  }

  /** Messages waiting in a queue. */
  async count(queue: string): Promise<number> {
    const r = await this.connection.queueDeclare({ queue, passive: true });
    return r.messageCount;
  }

  /** Takes every message waiting in a queue (body text and headers). */
  async drain(queue: string): Promise<{ body: string; headers: Record<string, unknown> }[]> {
    const ch = await this.connection.acquire();
    const out: { body: string; headers: Record<string, unknown> }[] = [];
    try {
      for (;;) {
        const m = await ch.basicGet({ queue, noAck: true });
        if (!m) break;
        const body = Buffer.isBuffer(m.body) ? m.body.toString('utf8') : typeof m.body === 'string' ? m.body : JSON.stringify(m.body);
        out.push({ body, headers: (m.headers ?? {}) as Record<string, unknown> });
      }
    } finally {
      await ch.close();
    }
    return out;
  }

  async deleteQueues(...queues: string[]): Promise<void> {
    for (const queue of queues) await this.connection.queueDelete({ queue }).catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.publisher.close();
    await this.connection.close();
  }
}

/** Polls `check` every 100 ms until it returns true or `timeoutMs` passes. @throws with `what` on time-out. */
export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** The event-query environment that turns on the consumer with this test's own queues. */
export function ingestEnv(queue: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    INGEST_AMQP_URL: AMQP_URL,
    INGEST_QUEUE: queue,
    INGEST_DEAD_LETTER_QUEUE: `${queue}.dead`,
    INGEST_BATCH_WAIT_MS: '20',
    ...extra,
  };
}
