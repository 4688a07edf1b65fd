/**
 * The middleware chain every service runs, in order: request id → access log → `/healthcheck` and public routes →
 * `/ready` → identity check → content type check → JSON body → the service's routers → 404 → error renderer. Each service supplies its routers and its group's
 * error shape; the order is the same everywhere so a route can never run before the identity check.
 */
import express, { type Express, type Router } from 'express';
import type { Logger } from 'pino';
import type { ErrorRenderer } from './app-error';
import { accessLog, errorHandler, jsonBody, notFound, requestId, requireIdentity, requireJsonBody } from './middleware';
import { type ReadinessCheck, readinessHandler } from './readiness';
import type { Store } from './store';

export interface ServiceAppOptions {
  logger: Logger;
  /** Gateway's signing secret; requests without a valid signature are refused with 401. */
  identitySecret: string;
  /** Window of a signature in seconds, either way (IDENTITY_MAX_AGE_SECONDS); default 10. */
  identityMaxAgeSeconds?: number;
  render: ErrorRenderer;
  /** The store `/healthcheck` pings: 200 `OK` while it answers, 503 otherwise. */
  store: Store;
  /** The service's routers, mounted after the identity check and body parser. */
  routers: Router[];
  /** Body size limit (body-parser syntax). */
  bodyLimit?: string;
  /** Dependencies `GET /ready` reports besides the store (`mongodb`, required): caches, the notification bus. */
  readiness?: Record<string, ReadinessCheck>;
}

/** Builds a service's express app; never listens (tests use it with supertest, `serve()` runs it). */
export function createServiceApp(opts: ServiceAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.use(requestId());
  app.use(accessLog(opts.logger));
  app.get('/healthcheck', async (_req, res) => {
    if (await opts.store.ping()) res.type('text/plain').send('OK');
    else res.status(503).type('text/plain').send('The document store is unavailable.');
  });
  app.get('/ready', readinessHandler({ mongodb: { required: true, check: () => opts.store.ping() }, ...opts.readiness }));
  app.use(requireIdentity(opts.identitySecret, opts.identityMaxAgeSeconds));
  app.use(requireJsonBody());
  app.use(jsonBody(opts.bodyLimit));
  for (const r of opts.routers) app.use(r);
  app.use(notFound());
  app.use(errorHandler(opts.render, opts.logger));
  return app;
}
