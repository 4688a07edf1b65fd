export { buildApp } from './app';
export { type EventQueryConfig, loadConfig } from './config';
export { createDeps, type EventQueryDeps } from './deps';
export { toEventDoc } from './events/events.model';
export { EventsRepository } from './events/events.repository';
export { notificationToEvent, parseNotification } from './ingest/notification';
