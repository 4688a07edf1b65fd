/**
 * The event-query express app (never listens; see server.ts).
 */
import { createServiceApp, renderPankoError } from '@stratum/http-kit';
import { type Express, Router } from 'express';
import type { EventQueryDeps } from './deps';
import { eventsRouter } from './events/events.router';

export function buildApp(deps: EventQueryDeps): Express {
  const pub = Router();
  pub.get('/healthcheck', (_req, res) => {
    res.type('text/plain').send('OK');
  });
  return createServiceApp({
    logger: deps.logger,
    identitySecret: deps.config.STRATUM_IDENTITY_SECRET,
    render: renderPankoError,
    publicRouter: pub,
    routers: [eventsRouter(deps.events)],
  });
}
