export { buildApp } from './app';
export { type EventQueryConfig, loadConfig } from './config';
export { createDeps, type EventQueryDeps } from './deps';
export { translateComplexFilter } from './events/events.complex';
export { toEventDoc } from './events/events.model';
export { visibilityFilter } from './events/events.policy';
export { mergeAnd, translateSimpleQuery } from './events/events.query';
export { EventsRepository } from './events/events.repository';
export { notificationToEvent, parseNotification } from './ingest/notification';
