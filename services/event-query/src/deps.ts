/**
 * Composition root of the event-query process: store, repositories, services, logger.
 */
import { connectStore, type Store } from '@stratum/http-kit';
import pino, { type Logger } from 'pino';
import type { EventQueryConfig } from './config';
import { EventsRepository } from './events/events.repository';
import { EventsService } from './events/events.service';

export interface EventQueryDeps {
  config: EventQueryConfig;
  logger: Logger;
  store: Store;
  eventsRepository: EventsRepository;
  events: EventsService;
  close(): Promise<void>;
}

/** Connects to the store, creates indexes and wires the services. */
export async function createDeps(config: EventQueryConfig, logger?: Logger): Promise<EventQueryDeps> {
  const log = logger ?? pino({ name: 'event-query', level: config.LOG_LEVEL });
  const store = await connectStore(config.MONGODB_URI, config.MONGODB_DATABASE);
  const eventsRepository = new EventsRepository(store.db, config.EVENTS_QUERY_TIMEOUT_MS);
  await eventsRepository.ensureIndexes();
  const events = new EventsService(eventsRepository, {
    defaultLimit: config.EVENTS_DEFAULT_LIMIT,
    maxLimit: config.EVENTS_MAX_LIMIT,
  });
  return { config, logger: log, store, eventsRepository, events, close: () => store.close() };
}
