/**
 * The gateway app: request id → access log → metrics → route resolution → body size check → token check → rate
 * limits → identity forwarding (client identity headers stripped, validated identity signed) → proxy to the group's
 * upstream. Paths no group serves fall through to the gateway's own documents (`/`, `/healthcheck`, `/ready`,
 * OpenAPI), then 404.
 */
import { Agent, type ClientRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import {
  AppError,
  accessLog,
  errorHandler,
  externalBaseUrl,
  readinessHandler,
  reasonPhrase,
  renderKeystoneError,
  requestId,
} from '@stratum/http-kit';
import { CLIENT_IDENTITY_HEADERS, type Identity, signIdentity } from '@stratum/identity';
import express, { type Express, type Request, type RequestHandler, type Response } from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import type { GatewayDeps } from './deps';
import { openapiRouter } from './openapi/openapi.router';
import { GROUPS, type Group, INGEST_PATH, resolve } from './routes';
import { tokenKey } from './tokens/tokens.cache';
import { IdentityUnavailable } from './tokens/tokens.types';
import { octaviaVersions } from './versions';

const UNAUTHORIZED = renderKeystoneError(401, 'The request you have made requires authentication.');

/** Maps a proxy failure to a status: refused/unreachable → 503, timed out → 504, anything else (reset, garbage) → 502. */
function upstreamStatus(err: NodeJS.ErrnoException, timedOut: boolean): number {
  if (timedOut) return 504;
  if (['ECONNREFUSED', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN'].includes(err.code ?? '')) return 503;
  if (['ETIMEDOUT', 'ESOCKETTIMEDOUT'].includes(err.code ?? '')) return 504;
  return 502;
}

/** The password of an HTTP Basic `Authorization` header, or undefined. */
function basicPassword(header: string | undefined): string | undefined {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header ?? '');
  if (!m) return undefined;
  const text = Buffer.from(m[1] as string, 'base64').toString('utf8');
  const colon = text.indexOf(':');
  return colon >= 0 ? text.slice(colon + 1) : undefined;
}

/** Answers an error in the group's shape (Panko, Octavia or Keystone), unless a response has begun. */
function sendGroupError(res: ServerResponse, group: Group, status: number, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, { ...headers, 'Content-Type': 'application/json' });
  res.end(JSON.stringify(GROUPS[group].render(status, message)));
}

/** The route group a request was resolved to, for metrics and logs (`gateway` for the gateway's own answers). */
const groupOf = (res: Response): string => (res.locals.group as string | undefined) ?? 'gateway';

export function buildGateway(deps: GatewayDeps): Express {
  const { config, logger, tokens, rateLimits, metrics } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestId());
  app.use(accessLog(logger));
  app.use((req, res, next) => {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const group = groupOf(res);
      metrics.requests.inc({ group, method: req.method, status: String(res.statusCode) });
      metrics.duration.observe({ group }, Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  });

  const upstreams: Record<Group, string> = {
    event: config.EVENT_QUERY_URL,
    lbaas: config.LBAAS_QUOTA_URL,
    domain: config.DOMAIN_QUOTA_URL,
  };
  /** Requests whose upstream took longer than UPSTREAM_TIMEOUT_MS (http-proxy reports those as a reset). */
  const timedOut = new WeakSet<IncomingMessage>();
  /** The upstream request of each proxied request (to abort it when the body turns out too large). */
  const upstreamRequests = new WeakMap<IncomingMessage, ClientRequest>();
  const proxyFor = (group: Group): RequestHandler =>
    createProxyMiddleware<Request, Response>({
      target: upstreams[group],
      // Reuse upstream connections; without an agent http-proxy sends `Connection: close` and passes the upstream's
      // close on to the client, so every request would pay for two new TCP connections.
      agent: new Agent({ keepAlive: true, maxSockets: 256 }),
      changeOrigin: true,
      proxyTimeout: config.UPSTREAM_TIMEOUT_MS,
      on: {
        proxyReq: (proxyReq, req) => {
          upstreamRequests.set(req, proxyReq);
          proxyReq.once('timeout', () => timedOut.add(req));
        },
        error: (err, req, res) => {
          const status = upstreamStatus(err as NodeJS.ErrnoException, timedOut.has(req));
          const out = res as ServerResponse<IncomingMessage>;
          if (out.headersSent || typeof out.writeHead !== 'function') {
            // The upstream failed mid-response (or the gateway already answered, e.g. 413): nothing more to say.
            if (!out.writableEnded) out.destroy?.();
            return;
          }
          metrics.upstreamErrors.inc({ group, status: String(status) });
          logger.warn(
            { group, status, code: (err as NodeJS.ErrnoException).code, requestId: out.getHeader('x-openstack-request-id') },
            'upstream failed',
          );
          sendGroupError(out, group, status, `The ${GROUPS[group].name} service is unavailable (${reasonPhrase(status)}).`);
        },
      },
    }) as unknown as RequestHandler;
  const proxies: Record<Group, RequestHandler> = { event: proxyFor('event'), lbaas: proxyFor('lbaas'), domain: proxyFor('domain') };

  /**
   * Counts a chunked body's bytes as they pass; past MAX_BODY_BYTES the upstream request is aborted and the client
   * gets 413. (A declared Content-Length is checked before anything else.)
   */
  const limitStreamedBody = (req: Request, res: Response, group: Group) => {
    let seen = 0;
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen <= config.MAX_BODY_BYTES) return;
      req.off('data', onData);
      req.unpipe();
      upstreamRequests.get(req)?.destroy();
      sendGroupError(res, group, 413, `The request body is larger than ${config.MAX_BODY_BYTES} bytes.`, { Connection: 'close' });
    };
    req.on('data', onData);
  };

  const route: RequestHandler = async (req, res, next) => {
    const r = resolve(req.path);
    if (r.kind === 'none') {
      next(); // the gateway's own documents, else 404
      return;
    }
    if (r.kind === 'versions') {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        next(new AppError(405, 'Method not allowed.'));
        return;
      }
      res.json(GROUPS[r.group].versions(externalBaseUrl(req, r.prefix)));
      return;
    }
    if (r.kind === 'health') {
      for (const h of CLIENT_IDENTITY_HEADERS) delete req.headers[h];
      res.locals.group = r.group;
      req.url = '/healthcheck';
      proxies[r.group](req, res, next);
      return;
    }
    const group = r.kind === 'proxy' ? r.group : undefined;
    if (group) {
      res.locals.group = group;
      const length = Number(req.headers['content-length'] ?? 0);
      if (length > config.MAX_BODY_BYTES) {
        sendGroupError(res, group, 413, `The request body is larger than ${config.MAX_BODY_BYTES} bytes.`, { Connection: 'close' });
        return;
      }
    }
    const token =
      req.headers['x-auth-token'] ?? (r.kind === 'proxy' && r.path === INGEST_PATH ? basicPassword(req.headers.authorization) : undefined);
    delete req.headers.authorization;
    let identity: Identity | null = null;
    if (typeof token === 'string' && token !== '') {
      try {
        identity = await tokens.validate(token);
      } catch (err) {
        if (!(err instanceof IdentityUnavailable)) throw err;
        if (group) sendGroupError(res, group, 503, err.message, { 'Retry-After': '5' });
        else next(new AppError(503, err.message));
        return;
      }
    }
    if (!identity) {
      res.status(401).setHeader('WWW-Authenticate', `Keystone uri="${externalBaseUrl(req)}/identity"`);
      res.json(UNAUTHORIZED);
      return;
    }
    if (r.kind === 'identity') {
      next(
        new AppError(
          403,
          'This endpoint is not Keystone: identity look-ups are not served here. Give project IDs, or point the client at Keystone.',
        ),
      );
      return;
    }
    if (!rateLimits.none) {
      const refusal = await rateLimits.consume(r.group, identity, tokenKey(token as string));
      if (refusal) {
        metrics.rateLimited.inc({ group: r.group, scope: refusal.scope });
        sendGroupError(res, r.group, 429, `Rate limit exceeded for this ${refusal.scope}: retry in ${refusal.retryAfterSeconds} s.`, {
          'Retry-After': String(refusal.retryAfterSeconds),
        });
        return;
      }
    }
    for (const h of CLIENT_IDENTITY_HEADERS) delete req.headers[h];
    Object.assign(req.headers, signIdentity(identity, config.STRATUM_IDENTITY_SECRET));
    req.headers['x-openstack-request-id'] = res.locals.requestId as string;
    req.headers['x-forwarded-host'] = (req.headers['x-forwarded-host'] as string | undefined) ?? req.headers.host ?? '';
    req.headers['x-forwarded-proto'] = (req.headers['x-forwarded-proto'] as string | undefined) ?? req.protocol;
    req.headers['x-forwarded-prefix'] = r.prefix;
    const query = req.url.includes('?') ? req.url.slice(req.url.indexOf('?')) : '';
    req.url = `${r.path}${query}`;
    if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] !== undefined) {
      limitStreamedBody(req, res, r.group);
    }
    proxies[r.group](req, res, next);
  };
  // The proxied paths first: most requests are theirs, and they need not be matched against the routes below.
  app.use(route);
  app.get('/', (req, res) => {
    res.json(octaviaVersions(externalBaseUrl(req)));
  });
  app.get('/healthcheck', (_req, res) => {
    res.type('text/plain').send('OK');
  });
  app.get('/ready', readinessHandler(deps.readiness));
  app.use(openapiRouter());
  app.use((_req, _res, next) => next(new AppError(404, 'The resource could not be found.')));
  app.use(errorHandler(renderKeystoneError, logger));
  return app;
}
