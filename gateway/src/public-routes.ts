/**
 * Every path but the proxied ones, in express, after the common middleware (pipeline.ts): the groups' versions
 * documents and health checks (`<prefix>`, `<prefix>/healthcheck`), the Keystone look-ups (401 or 403), the root
 * versions document, the gateway's own health and readiness, `/openapi.json` and `/docs`, the console's sign-in
 * (`/console/auth`, `/console/auth/tokens`) and then its static files (`/console/`); anything else is a 404 in
 * Keystone's shape.
 */
import { errorHandler, type ReadinessCheck, readinessHandler, renderKeystoneError } from '@stratum/http-kit';
import express, { type Express } from 'express';
import type { Logger } from 'pino';
import type { authenticator } from './auth/authenticate';
import { stripClientIdentity } from './auth/identity';
import { consoleDir, consoleHandler } from './console';
import { identityLookupRefused, methodNotAllowed, notFound, sendGroupError } from './errors';
import { openapiRouter } from './openapi/openapi.router';
import type { Middleware } from './pipeline';
import type { PublicUrls } from './public-url';
import type { RateLimits } from './ratelimit/ratelimit';
import { GROUPS, type Group, resolve } from './routes';
import { signInRouter } from './sign-in/sign-in.router';
import type { SignInService } from './sign-in/sign-in.service';
import { octaviaVersions } from './versions';

/** What the public routes need. */
export interface PublicRoutesParts {
  logger: Logger;
  readiness: Record<string, ReadinessCheck>;
  publicUrls: PublicUrls;
  authenticate: ReturnType<typeof authenticator>;
  proxies: Record<Group, Middleware>;
  /** The common middleware (pipeline.ts), run first. */
  common: readonly Middleware[];
  /** The built operator console served at /console/ (default: console.ts consoleDir()). */
  consoleDir?: string;
  /** The console's Keystone sign-in; undefined with static tokens (`GET /console/auth` then offers the token only). */
  signIn?: SignInService;
  /** The rate limits (the console's `GET /console/auth/tokens` is counted per token, ratelimit.ts `consumeOwn`). */
  rateLimits: RateLimits;
  /** Told of each request of the public routes a rate limit refused. */
  onLimited?: () => void;
}

/**
 * The express app of the public routes. A group's health check is proxied to its service unsigned (its client
 * identity headers stripped); a Keystone look-up needs a valid token and is then refused 403 (routes.ts
 * IDENTITY_LOOKUPS says why).
 */
export function publicRoutes(parts: PublicRoutesParts): Express {
  const { logger, publicUrls, authenticate, proxies } = parts;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(...parts.common);
  app.use(async (req, res, next) => {
    const r = resolve(req.path);
    if (r.kind === 'none' || r.kind === 'proxy') {
      next(); // the gateway's own documents, else 404
      return;
    }
    if ((r.kind === 'versions' || r.kind === 'health') && req.method !== 'GET' && req.method !== 'HEAD') {
      sendGroupError(res, r.group, methodNotAllowed());
      return;
    }
    if (r.kind === 'versions') {
      res.json(GROUPS[r.group].versions(publicUrls.base(req, r.group, r.prefix)));
      return;
    }
    if (r.kind === 'health') {
      stripClientIdentity(req.headers);
      res.locals.group = r.group;
      req.url = '/healthcheck';
      proxies[r.group](req, res, next);
      return;
    }
    // A Keystone look-up: 401 without a valid token, 403 with one.
    if (!(await authenticate(req, res, r))) return;
    next(identityLookupRefused());
  });
  app.get('/', (req, res) => {
    res.json(octaviaVersions(publicUrls.base(req, 'lbaas')));
  });
  app.get('/healthcheck', (_req, res) => {
    res.type('text/plain').send('OK');
  });
  app.get('/ready', readinessHandler(parts.readiness));
  app.use(openapiRouter());
  // Before the console's static files, which answer 405 to anything but GET and HEAD under /console/.
  app.use(signInRouter(parts.signIn, publicUrls, { authenticate, rateLimits: parts.rateLimits, onLimited: parts.onLimited }));
  app.use(consoleHandler(parts.consoleDir ?? consoleDir()));
  app.use((_req, _res, next) => next(notFound()));
  app.use(errorHandler(renderKeystoneError, logger));
  return app;
}
