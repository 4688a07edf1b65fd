/**
 * The event-query express app (never listens; see server.ts).
 */
import { createServiceApp, renderPankoError } from '@stratum/http-kit';
import type { Express } from 'express';
import type { EventQueryDeps } from './deps';
import { eventsRouter } from './events/events.router';

export function buildApp(deps: EventQueryDeps): Express {
  return createServiceApp({
    logger: deps.logger,
    identitySecret: deps.config.STRATUM_IDENTITY_SECRET,
    render: renderPankoError,
    store: deps.store,
    routers: [eventsRouter(deps.events)],
  });
}
