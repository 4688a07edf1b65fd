/**
 * The gateway: request id → access log → metrics → route resolution → body size check → token check → rate limits →
 * identity forwarding (client identity headers stripped, validated identity signed) → proxy to the group's upstream.
 *
 * Proxied paths (nearly every request) run that chain on node's own request and response, as plain (req, res, next)
 * functions: express's per-request set-up (prototype swaps, its router) cost more CPU than the rest of the gateway
 * together. Every other path (versions documents, health, readiness, OpenAPI, Keystone look-ups, 404) is served by
 * the express app, with the same request id, access log and metrics middleware.
 */
import { Agent, type ClientRequest, createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
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
import express, { type Request, type RequestHandler, type Response } from 'express';
import { createProxyMiddleware, type Plugin, proxyEventsPlugin } from 'http-proxy-middleware';
import type { GatewayDeps } from './deps';
import { openapiRouter } from './openapi/openapi.router';
import { GROUPS, type Group, INGEST_PATH, type Resolution, resolve } from './routes';
import { tokenKey } from './tokens/tokens.cache';
import { IdentityUnavailable } from './tokens/tokens.types';
import { octaviaVersions } from './versions';

const UNAUTHORIZED_BODY = JSON.stringify(renderKeystoneError(401, 'The request you have made requires authentication.'));

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

/**
 * Answers an error in the shape of `group` (Panko, Octavia or Keystone), or Keystone's for the gateway's own paths,
 * unless a response has begun.
 */
function sendGroupError(
  res: ServerResponse,
  group: Group | undefined,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) return;
  const render = group ? GROUPS[group].render : renderKeystoneError;
  res.writeHead(status, { ...headers, 'Content-Type': 'application/json' });
  res.end(JSON.stringify(render(status, message)));
}

const UPSTREAM = Symbol('upstream request');

/** A node request and response as the fast path sees them: `locals` as express would have them. */
type PlainRequest = IncomingMessage & { originalUrl?: string; [UPSTREAM]?: ClientRequest };
type PlainResponse = ServerResponse & { locals: Record<string, unknown> };
type Next = (err?: unknown) => void;
type Middleware = (req: PlainRequest, res: PlainResponse, next: Next) => void;

/** The route group a request was resolved to, for metrics and logs (`gateway` for the gateway's own answers). */
const groupOf = (res: PlainResponse): string => (res.locals.group as string | undefined) ?? 'gateway';

/** The path of a request URL (express's `req.path`). */
const pathOf = (url: string): string => {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
};

/** The base URL the client used (express's `externalBaseUrl` on a plain request; trust proxy off). */
function plainBaseUrl(req: IncomingMessage): string {
  const proto =
    (req.headers['x-forwarded-proto'] as string | undefined)?.split(',')[0] ?? ((req.socket as TLSSocket).encrypted ? 'https' : 'http');
  return `${proto}://${(req.headers['x-forwarded-host'] as string | undefined) ?? req.headers.host ?? 'localhost'}`;
}

/**
 * `signIdentity` with the headers of each identity kept for the rest of the current second: the signature covers a
 * timestamp in whole seconds, so within a second the same identity always gets the same headers.
 */
function identitySigner(secret: string): (identity: Identity) => Record<string, string> {
  let second = 0;
  let signed = new Map<string, Record<string, string>>();
  return (identity) => {
    const now = Date.now();
    const s = Math.floor(now / 1000);
    if (s !== second) {
      second = s;
      signed = new Map();
    }
    // Keyed by content, not by object: token validators need not hand out the same object twice.
    const key = `${identity.userId}\n${identity.projectId}\n${identity.domainId}\n${identity.roles.join(',')}`;
    let headers = signed.get(key);
    if (!headers) {
      headers = signIdentity(identity, secret, now);
      signed.set(key, headers);
    }
    return headers;
  };
}

/** The gateway as a request listener, with `listen` like an express app's. */
export interface GatewayApp {
  (req: IncomingMessage, res: ServerResponse): void;
  listen(port: number, host: string): Server;
}

export function buildGateway(deps: GatewayDeps): GatewayApp {
  const { config, logger, tokens, rateLimits, metrics } = deps;
  const sign = identitySigner(config.STRATUM_IDENTITY_SECRET);
  const withRequestId = requestId() as unknown as Middleware;
  const log = accessLog(logger) as unknown as Middleware;
  // Labelled children looked up once per label set rather than on every request.
  const counters = new Map<string, ReturnType<typeof metrics.requests.labels>>();
  const histograms = new Map<string, ReturnType<typeof metrics.duration.labels>>();
  const measure: Middleware = (req, res, next) => {
    const started = performance.now();
    res.once('finish', () => {
      const group = groupOf(res);
      const key = `${group} ${req.method} ${res.statusCode}`;
      let counter = counters.get(key);
      if (!counter) {
        counter = metrics.requests.labels(group, req.method ?? '', String(res.statusCode));
        counters.set(key, counter);
      }
      counter.inc();
      let histogram = histograms.get(group);
      if (!histogram) {
        histogram = metrics.duration.labels(group);
        histograms.set(group, histogram);
      }
      histogram.observe((performance.now() - started) / 1000);
    });
    next();
  };

  const upstreams: Record<Group, string> = {
    event: config.EVENT_QUERY_URL,
    lbaas: config.LBAAS_QUOTA_URL,
    domain: config.DOMAIN_QUOTA_URL,
  };
  // Kept on the request itself rather than in a WeakMap: thousands of short-lived weak entries a second make every
  // garbage collection slower.
  /** The upstream request of a proxied request (to abort it when the body turns out too large). */
  const upstreamOf = (req: IncomingMessage) => (req as PlainRequest)[UPSTREAM];
  /**
   * Whether the upstream took longer than UPSTREAM_TIMEOUT_MS: http-proxy then aborts the upstream request (`abort()`,
   * which nothing else here calls) and reports a reset.
   */
  const timedOut = (req: IncomingMessage) => upstreamOf(req)?.aborted === true;
  const proxyFor = (group: Group): Middleware =>
    createProxyMiddleware<PlainRequest, PlainResponse>({
      target: upstreams[group],
      // Reuse upstream connections; without an agent http-proxy sends `Connection: close` and passes the upstream's
      // close on to the client, so every request would pay for two new TCP connections.
      agent: new Agent({ keepAlive: true, maxSockets: 256 }),
      changeOrigin: true,
      proxyTimeout: config.UPSTREAM_TIMEOUT_MS,
      // Only the plugin that wires `on`: the default logger and debug plugins cost CPU on every request.
      ejectPlugins: true,
      plugins: [proxyEventsPlugin as unknown as Plugin<PlainRequest, PlainResponse>],
      on: {
        proxyReq: (proxyReq, req) => {
          req[UPSTREAM] = proxyReq;
        },
        error: (err, req, res) => {
          const status = upstreamStatus(err as NodeJS.ErrnoException, timedOut(req));
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
    }) as unknown as Middleware;
  const proxies: Record<Group, Middleware> = { event: proxyFor('event'), lbaas: proxyFor('lbaas'), domain: proxyFor('domain') };

  /**
   * Counts a chunked body's bytes as they pass; past MAX_BODY_BYTES the upstream request is aborted and the client
   * gets 413. (A declared Content-Length is checked before anything else.)
   */
  const limitStreamedBody = (req: PlainRequest, res: PlainResponse, group: Group) => {
    let seen = 0;
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen <= config.MAX_BODY_BYTES) return;
      req.off('data', onData);
      req.unpipe();
      upstreamOf(req)?.destroy();
      sendGroupError(res, group, 413, `The request body is larger than ${config.MAX_BODY_BYTES} bytes.`, { Connection: 'close' });
    };
    req.on('data', onData);
  };

  /**
   * The caller's identity from `X-Auth-Token` (or, on the ingest path, the Basic password), or null after answering
   * 401 (no or invalid token) or 503 (token service unavailable, in `group`'s shape when known).
   */
  const authenticate = async (
    req: PlainRequest,
    res: PlainResponse,
    r: Resolution,
  ): Promise<{ identity: Identity; token: string } | null> => {
    const group = r.kind === 'proxy' ? r.group : undefined;
    const given =
      req.headers['x-auth-token'] ?? (r.kind === 'proxy' && r.path === INGEST_PATH ? basicPassword(req.headers.authorization) : undefined);
    delete req.headers.authorization;
    const token = typeof given === 'string' ? given : '';
    let identity: Identity | null = null;
    if (token !== '') {
      try {
        identity = await tokens.validate(token);
      } catch (err) {
        if (!(err instanceof IdentityUnavailable)) throw err;
        sendGroupError(res, group, 503, err.message, { 'Retry-After': '5' });
        return null;
      }
    }
    if (!identity) {
      res.writeHead(401, {
        'WWW-Authenticate': `Keystone uri="${plainBaseUrl(req)}/identity"`,
        'Content-Type': 'application/json; charset=utf-8',
      });
      res.end(UNAUTHORIZED_BODY);
      return null;
    }
    return { identity, token };
  };

  /** A proxied path: body size, token, rate limits, signed identity, upstream. */
  const proxied = async (req: PlainRequest, res: PlainResponse, r: Extract<Resolution, { kind: 'proxy' }>, next: Next): Promise<void> => {
    res.locals.group = r.group;
    if (Number(req.headers['content-length'] ?? 0) > config.MAX_BODY_BYTES) {
      sendGroupError(res, r.group, 413, `The request body is larger than ${config.MAX_BODY_BYTES} bytes.`, { Connection: 'close' });
      return;
    }
    const caller = await authenticate(req, res, r);
    if (!caller) return;
    const { identity, token } = caller;
    if (!rateLimits.none) {
      const refusal = await rateLimits.consume(r.group, identity, tokenKey(token));
      if (refusal) {
        metrics.rateLimited.inc({ group: r.group, scope: refusal.scope });
        sendGroupError(res, r.group, 429, `Rate limit exceeded for this ${refusal.scope}: retry in ${refusal.retryAfterSeconds} s.`, {
          'Retry-After': String(refusal.retryAfterSeconds),
        });
        return;
      }
    }
    const h = req.headers;
    for (const name of CLIENT_IDENTITY_HEADERS) delete h[name];
    Object.assign(h, sign(identity));
    h['x-openstack-request-id'] = res.locals.requestId as string;
    h['x-forwarded-host'] = (h['x-forwarded-host'] as string | undefined) ?? h.host ?? '';
    h['x-forwarded-proto'] = (h['x-forwarded-proto'] as string | undefined) ?? ((req.socket as TLSSocket).encrypted ? 'https' : 'http');
    h['x-forwarded-prefix'] = r.prefix;
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    req.originalUrl ??= url;
    req.url = q < 0 ? r.path : `${r.path}${url.slice(q)}`;
    if (h['content-length'] === undefined && h['transfer-encoding'] !== undefined) limitStreamedBody(req, res, r.group);
    proxies[r.group](req, res, next);
  };

  /** The last resort of the fast path: a 500 in the group's shape, the cause logged. */
  const failed = (res: PlainResponse, group: Group) => (err: unknown) => {
    logger.error({ err, requestId: res.locals.requestId }, 'request failed');
    sendGroupError(res, group, 500, 'The server has either erred or is incapable of performing the requested operation.');
  };

  /** Everything but proxied paths, in express. */
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(withRequestId as unknown as RequestHandler, log as unknown as RequestHandler, measure as unknown as RequestHandler);
  app.use(async (req: Request, res: Response, next) => {
    const r = resolve(req.path);
    if (r.kind === 'none' || r.kind === 'proxy') {
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
      proxies[r.group](req as unknown as PlainRequest, res as unknown as PlainResponse, next);
      return;
    }
    // A Keystone look-up: 401 without a valid token, 403 with one.
    if (!(await authenticate(req as unknown as PlainRequest, res as unknown as PlainResponse, r))) return;
    next(
      new AppError(
        403,
        'This endpoint is not Keystone: identity look-ups are not served here. Give project IDs, or point the client at Keystone.',
      ),
    );
  });
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

  const front = ((req: IncomingMessage, res: ServerResponse) => {
    const r = resolve(pathOf(req.url ?? '/'));
    if (r.kind !== 'proxy') {
      app(req, res);
      return;
    }
    const plainReq = req as PlainRequest;
    const plainRes = res as PlainResponse;
    const next: Next = (err) => failed(plainRes, r.group)(err ?? new Error('the proxy passed the request on'));
    withRequestId(plainReq, plainRes, () =>
      log(plainReq, plainRes, () =>
        measure(plainReq, plainRes, () => void proxied(plainReq, plainRes, r, next).catch(failed(plainRes, r.group))),
      ),
    );
  }) as GatewayApp;
  front.listen = (port, host) => createServer(front).listen(port, host);
  return front;
}
