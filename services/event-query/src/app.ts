/**
 * The event-query express app (never listens; see server.ts).
 */
import { createServiceApp, renderPankoError } from '@stratum/http-kit';
import type { Express } from 'express';
import type { EventQueryDeps } from './deps';
import { eventsRouter } from './events/events.router';
import { ingestRouter } from './ingest/ingest.router';

export function buildApp(deps: EventQueryDeps): Express {
  return createServiceApp({
    logger: deps.logger,
    identitySecret: deps.config.STRATUM_IDENTITY_SECRET,
    identityMaxAgeSeconds: deps.config.IDENTITY_MAX_AGE_SECONDS,
    render: renderPankoError,
    store: deps.store,
    readiness: deps.readiness,
    bodyLimit: deps.config.INGEST_HTTP_BODY_LIMIT,
    routers: [eventsRouter(deps.events), ingestRouter(deps.ingest, deps.decode, deps.policy)],
  });
}
