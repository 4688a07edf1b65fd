/**
 * The AMQP side of ingestion: one durable queue bound to the services' notification exchanges
 * (`<exchange>` × `<topic>.info|error`) and to Ceilometer's `notifier://` output (`ceilometer` × `event.sample`).
 *
 * Nothing is lost (docs/decisions.md §A):
 * - a message is acknowledged only after its events are stored with the durable write concern (and forwarded);
 * - messages are grouped into batches (`batchSize` or `batchWaitMs`, whichever comes first) for one insert each;
 * - when the store is unreachable the batch waits and retries with back-off, its messages unacknowledged, so the
 *   prefetch window bounds memory and RabbitMQ keeps the rest;
 * - a message that cannot be converted is published (with confirms) to the dead-letter queue with the reason in
 *   the `x-stratum-reason` header, and only then acknowledged;
 * - a well-formed notification Ceilometer would drop (a priority other than info/error, an unknown priority, an
 *   unmatched type with EVENT_DROP_UNMATCHED) is acknowledged, counted in `stats.dropped` by kind and logged at warn
 *   with its message_id, event_type and the reason (never its payload): nothing is dropped silently;
 * - rabbitmq-client reconnects and re-declares the topology after a broker restart; unacknowledged messages are
 *   redelivered and deduplicated on message_id;
 * - `close` stops taking messages, flushes the open batch and waits for in-flight ones.
 */

import { setTimeout as sleep } from 'node:timers/promises';
import type { Event } from '@stratum/traits';
import type { Logger } from 'pino';
import { type AsyncMessage, type Connection, type Consumer, ConsumerStatus, type Publisher } from 'rabbitmq-client';
import type { IngestService } from './ingest.service';
import { type DecodeOptions, DROP_KINDS, type DropKind, decodeRecord, describeRecord, parseRecord, RejectedRecord } from './notification';

export interface AmqpIngestOptions {
  /** Durable queue the consumer reads. */
  queue: string;
  /** Service exchanges (topic), e.g. nova, glance, neutron, openstack (Cinder), keystone, octavia. */
  exchanges: readonly string[];
  /** oslo.messaging notification topics; bound as `<topic>.info` and `<topic>.error`. */
  topics: readonly string[];
  /** Ceilometer's exchange and event topic (`notifier://` publishes to `<exchange>` with key `<topic>.sample`); '' = off. */
  ceilometerExchange: string;
  ceilometerTopic: string;
  /** Whether the service exchanges are declared durable (oslo.messaging's `amqp_durable_queues`, default false). */
  exchangesDurable: boolean;
  deadLetterQueue: string;
  prefetch: number;
  batchSize: number;
  batchWaitMs: number;
  /** Batches written at the same time. */
  maxInFlight: number;
}

export interface ConsumerStats {
  /** Times the consumer became ready: 1 after start, +1 per reconnect. */
  ready: number;
  received: number;
  stored: number;
  duplicates: number;
  /** Messages acknowledged without an event (the sum of `dropped`). */
  ignored: number;
  /** Those messages by why they were dropped (notification.ts DropKind). */
  dropped: Record<DropKind, number>;
  deadLettered: number;
  storeRetries: number;
}

interface Pending {
  events: Event[];
  resolve(): void;
  reject(err: unknown): void;
}

/** The consumer was closed while a batch waited for the store; its messages go back to the queue. */
class ShuttingDown extends Error {}

export class NotificationConsumer {
  readonly stats: ConsumerStats = {
    ready: 0,
    received: 0,
    stored: 0,
    duplicates: 0,
    ignored: 0,
    dropped: Object.fromEntries(DROP_KINDS.map((k) => [k, 0])) as Record<DropKind, number>,
    deadLettered: 0,
    storeRetries: 0,
  };
  private consumer?: Consumer;
  private dlq?: Publisher;
  private open: Pending[] = [];
  /** Events in `open`. */
  private openEvents = 0;
  private timer?: NodeJS.Timeout;
  private inFlight = 0;
  private readonly waiting: Pending[][] = [];
  private readonly flushing = new Set<Promise<void>>();
  private closing = false;

  constructor(
    private readonly connection: Connection,
    private readonly ingest: IngestService,
    private readonly decode: DecodeOptions,
    private readonly opts: AmqpIngestOptions,
    private readonly logger: Logger,
    /** Resolves when the store answers a ping; tells "store down" (wait) from "batch refused" (dead-letter). */
    private readonly storeAlive: () => Promise<boolean>,
  ) {}

  /** Declares the topology and starts consuming. Resolves once the consumer is ready. */
  async start(): Promise<void> {
    const o = this.opts;
    const exchanges = o.exchanges.map((exchange) => ({ exchange, type: 'topic', durable: o.exchangesDurable }));
    const bindings = o.exchanges.flatMap((exchange) =>
      o.topics.flatMap((t) => ['info', 'error'].map((p) => ({ exchange, queue: o.queue, routingKey: `${t}.${p}` }))),
    );
    if (o.ceilometerExchange) {
      exchanges.push({ exchange: o.ceilometerExchange, type: 'topic', durable: o.exchangesDurable });
      bindings.push({ exchange: o.ceilometerExchange, queue: o.queue, routingKey: `${o.ceilometerTopic}.sample` });
    }
    await this.connection.queueDeclare({ queue: o.deadLetterQueue, durable: true });
    this.dlq = this.connection.createPublisher({ confirm: true, maxAttempts: 3, queues: [{ queue: o.deadLetterQueue, durable: true }] });
    this.consumer = this.connection.createConsumer(
      {
        queue: o.queue,
        queueOptions: { durable: true },
        qos: { prefetchCount: o.prefetch },
        concurrency: o.prefetch,
        exchanges,
        queueBindings: bindings,
        requeue: true,
      },
      (msg) => this.handle(msg),
    );
    this.consumer.on('ready', () => {
      this.stats.ready++;
    });
    this.consumer.on('error', (err) => this.logger.warn({ err: String(err) }, 'ingest consumer error'));
    await new Promise<void>((resolve) => this.consumer?.once('ready', resolve));
    this.logger.info({ queue: o.queue, exchanges: o.exchanges }, 'ingest consumer ready');
  }

  private async handle(msg: AsyncMessage): Promise<ConsumerStatus> {
    this.stats.received++;
    const body = Buffer.isBuffer(msg.body) ? msg.body : Buffer.from(typeof msg.body === 'string' ? msg.body : JSON.stringify(msg.body));
    let events: Event[];
    let parsed: unknown;
    try {
      parsed = parseRecord(body);
      const decoded = decodeRecord(parsed, this.decode);
      if (decoded.dropped) {
        this.stats.ignored++;
        this.stats.dropped[decoded.dropped.kind]++;
        this.logger.warn(
          { ...this.where(msg, parsed), kind: decoded.dropped.kind, reason: decoded.dropped.reason },
          'notification dropped: Ceilometer makes no event of it',
        );
      }
      events = decoded.events;
    } catch (err) {
      if (!(err instanceof RejectedRecord)) throw err;
      await this.deadLetter(msg, body, err.message, parsed);
      return ConsumerStatus.ACK;
    }
    if (events.length === 0) return ConsumerStatus.ACK;
    try {
      await new Promise<void>((resolve, reject) => this.enqueue({ events, resolve, reject }));
    } catch (err) {
      if (err instanceof RejectedRecord) {
        await this.deadLetter(msg, body, err.message, parsed);
        return ConsumerStatus.ACK;
      }
      return ConsumerStatus.REQUEUE;
    }
    return ConsumerStatus.ACK;
  }

  /** What a log line says of a message: where it came from and its ids (never its payload). */
  private where(msg: AsyncMessage, parsed: unknown, body?: Buffer): Record<string, unknown> {
    let record = parsed;
    if (record === undefined && body) {
      try {
        record = JSON.parse(body.toString('utf8')); // refused while parsing (e.g. its envelope): its ids still help
      } catch {
        // not JSON: nothing to name it by
      }
    }
    return { exchange: msg.exchange, routingKey: msg.routingKey, ...describeRecord(record) };
  }

  private async deadLetter(msg: AsyncMessage, body: Buffer, reason: string, parsed: unknown): Promise<void> {
    await this.dlq?.send(
      {
        routingKey: this.opts.deadLetterQueue,
        durable: true,
        contentType: msg.contentType,
        contentEncoding: msg.contentEncoding,
        headers: { 'x-stratum-reason': reason, 'x-original-exchange': msg.exchange, 'x-original-routing-key': msg.routingKey },
      },
      body,
    );
    this.stats.deadLettered++;
    this.logger.warn({ ...this.where(msg, parsed, body), reason: reason.slice(0, 1000) }, 'notification dead-lettered');
  }

  private enqueue(p: Pending): void {
    if (this.closing) {
      p.reject(new ShuttingDown());
      return;
    }
    this.open.push(p);
    this.openEvents += p.events.length;
    if (this.openEvents >= this.opts.batchSize) this.cut();
    else if (!this.timer) this.timer = setTimeout(() => this.cut(), this.opts.batchWaitMs);
  }

  /** Closes the open batch and writes it, or queues it when `maxInFlight` batches are being written. */
  private cut(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.open.length === 0) return;
    const batch = this.open;
    this.open = [];
    this.openEvents = 0;
    this.waiting.push(batch);
    this.pump();
  }

  private pump(): void {
    while (this.inFlight < this.opts.maxInFlight && this.waiting.length > 0) {
      const batch = this.waiting.shift() as Pending[];
      this.inFlight++;
      const done = this.write(batch).finally(() => {
        this.inFlight--;
        this.flushing.delete(done);
        this.pump();
      });
      this.flushing.add(done);
    }
  }

  /** Writes a batch until it is stored; dead-letters single messages the store refuses while it is up. */
  private async write(batch: Pending[]): Promise<void> {
    let delay = 250;
    for (;;) {
      try {
        const r = await this.ingest.store(batch.flatMap((p) => p.events));
        this.stats.stored += r.stored;
        this.stats.duplicates += r.duplicates;
        for (const p of batch) p.resolve();
        return;
      } catch (err) {
        if (await this.storeAlive()) {
          await this.writeOneByOne(batch);
          return;
        }
        this.stats.storeRetries++;
        if (this.closing) {
          for (const p of batch) p.reject(new ShuttingDown());
          return;
        }
        this.logger.warn({ err: String(err), retryInMs: delay, messages: batch.length }, 'store unavailable; batch kept unacknowledged');
        await sleep(delay);
        delay = Math.min(delay * 2, 5000);
      }
    }
  }

  private async writeOneByOne(batch: Pending[]): Promise<void> {
    for (const p of batch) {
      try {
        const r = await this.ingest.store(p.events);
        this.stats.stored += r.stored;
        this.stats.duplicates += r.duplicates;
        p.resolve();
      } catch (err) {
        if (err instanceof RejectedRecord) p.reject(err);
        else if (await this.storeAlive()) p.reject(new RejectedRecord(`the store refused the event: ${(err as Error).message}`));
        else p.reject(err); // requeued: the store went down meanwhile
      }
    }
  }

  /**
   * Stops consuming, writes what was received, and waits for in-flight batches (shutdown drain). A batch still
   * waiting for the store after `drainTimeoutMs` is given up: its messages are requeued, not lost.
   */
  async close(drainTimeoutMs = 10_000): Promise<void> {
    const deadline = setTimeout(() => {
      this.closing = true;
    }, drainTimeoutMs);
    const stopping = this.consumer?.close();
    this.cut();
    await stopping;
    clearTimeout(deadline);
    this.closing = true;
    await Promise.all([...this.flushing]);
    await this.dlq?.close();
  }
}
