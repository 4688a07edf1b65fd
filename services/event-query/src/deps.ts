/**
 * Composition root of the event-query process: store, repositories, services, the optional AMQP ingestion
 * consumer and forwarder, the optional expiry schedule, logger.
 */
import { readFileSync } from 'node:fs';
import { connectStore, type ReadinessCheck, type Store } from '@stratum/http-kit';
import pino, { type Logger } from 'pino';
import { Connection, type Publisher } from 'rabbitmq-client';
import type { EventQueryConfig } from './config';
import { EventPolicy } from './events/events.policy';
import { EventsRepository } from './events/events.repository';
import { EventsService } from './events/events.service';
import { NotificationConsumer } from './ingest/amqp.consumer';
import { EventConverter } from './ingest/definitions';
import { expireEvents } from './ingest/expirer';
import { EventForwarder, IngestService } from './ingest/ingest.service';
import type { DecodeOptions } from './ingest/notification';

export interface EventQueryDeps {
  config: EventQueryConfig;
  logger: Logger;
  store: Store;
  eventsRepository: EventsRepository;
  events: EventsService;
  /** The RBAC rules: the defaults, overridden by POLICY_FILE. */
  policy: EventPolicy;
  ingest: IngestService;
  decode: DecodeOptions;
  /** Present when INGEST_AMQP_URL is set. */
  consumer?: NotificationConsumer;
  /** What `GET /ready` reports besides the store. */
  readiness: Record<string, ReadinessCheck>;
  close(): Promise<void>;
}

/**
 * How records are decoded: the converter built from the definitions file, and the telemetry secret for signatures.
 * @throws DefinitionError (or a file error) naming the problem: the process must not start with bad definitions.
 */
export function loadDecodeOptions(config: EventQueryConfig): DecodeOptions {
  const converter = EventConverter.fromYaml(readFileSync(config.EVENT_DEFINITIONS_FILE, 'utf8'), {
    dropUnmatched: config.EVENT_DROP_UNMATCHED,
    storeRaw: config.EVENT_STORE_RAW,
  });
  return { converter, telemetrySecret: config.TELEMETRY_SECRET || undefined };
}

/** Connects to the store (and the bus when configured), creates indexes and wires the services. */
export async function createDeps(config: EventQueryConfig, logger?: Logger): Promise<EventQueryDeps> {
  const log = logger ?? pino({ name: 'event-query', level: config.LOG_LEVEL });
  const decode = loadDecodeOptions(config);
  const policy = EventPolicy.load(config.POLICY_FILE); // before any connection: a bad file stops the start
  const store = await connectStore(config.MONGODB_URI, config.MONGODB_DATABASE);
  const eventsRepository = new EventsRepository(store.db, config.EVENTS_QUERY_TIMEOUT_MS);
  await eventsRepository.ensureIndexes();
  const events = new EventsService(
    eventsRepository,
    { defaultLimit: config.EVENTS_DEFAULT_LIMIT, maxLimit: config.EVENTS_MAX_LIMIT },
    policy,
  );

  let bus: Connection | undefined;
  let forwarder: EventForwarder | undefined;
  let forwardPublisher: Publisher | undefined;
  if (config.INGEST_AMQP_URL) {
    bus = new Connection({ url: config.INGEST_AMQP_URL, connectionName: 'stratum-event-query' });
    bus.on('error', (err) => log.warn({ err: String(err) }, 'notification bus error'));
    if (config.EVENT_FORWARD_TYPES.length > 0) {
      forwardPublisher = bus.createPublisher({
        confirm: true,
        maxAttempts: 3,
        exchanges: [{ exchange: config.EVENT_FORWARD_EXCHANGE, type: 'topic', durable: true }],
      });
      forwarder = new EventForwarder(forwardPublisher, config.EVENT_FORWARD_EXCHANGE, config.EVENT_FORWARD_TYPES);
    }
  }
  const ingest = new IngestService(eventsRepository, forwarder);

  let consumer: NotificationConsumer | undefined;
  if (bus) {
    consumer = new NotificationConsumer(
      bus,
      ingest,
      decode,
      {
        queue: config.INGEST_QUEUE,
        exchanges: config.INGEST_EXCHANGES,
        topics: config.INGEST_TOPICS,
        ceilometerExchange: config.INGEST_CEILOMETER_EXCHANGE,
        ceilometerTopic: config.INGEST_CEILOMETER_TOPIC,
        exchangesDurable: config.INGEST_EXCHANGES_DURABLE,
        deadLetterQueue: config.INGEST_DEAD_LETTER_QUEUE,
        prefetch: config.INGEST_PREFETCH,
        batchSize: config.INGEST_BATCH_SIZE,
        batchWaitMs: config.INGEST_BATCH_WAIT_MS,
        maxInFlight: config.INGEST_MAX_IN_FLIGHT,
      },
      log,
      () => store.ping(),
    );
    await consumer.start();
  }

  let expiry: NodeJS.Timeout | undefined;
  if (config.EVENT_EXPIRER_INTERVAL_S > 0 && config.EVENT_TIME_TO_LIVE > 0) {
    let running = false;
    expiry = setInterval(() => {
      if (running) return;
      running = true;
      expireEvents(eventsRepository, config.EVENT_TIME_TO_LIVE, config.EVENT_EXPIRER_BATCH_SIZE, log)
        .catch((err) => log.warn({ err: String(err) }, 'expirer run failed; the next run continues'))
        .finally(() => {
          running = false;
        });
    }, config.EVENT_EXPIRER_INTERVAL_S * 1000);
    expiry.unref();
  }

  const readiness: Record<string, ReadinessCheck> = {};
  if (bus) readiness.rabbitmq = { required: false, check: async () => bus?.ready === true };
  return {
    readiness,
    config,
    logger: log,
    store,
    eventsRepository,
    events,
    policy,
    ingest,
    decode,
    consumer,
    close: async () => {
      clearInterval(expiry);
      await consumer?.close();
      // What this replica ingested, for operators and the replicas bench (deploy/bench/replicas.ts).
      if (consumer) log.info({ stats: consumer.stats }, 'ingest consumer closed');
      await forwardPublisher?.close();
      await bus?.close();
      await store.close();
    },
  };
}
