/**
 * The gateway: request id → access log → metrics → request head size → route resolution → body size check → token
 * check → rate limits → body read and decoded (requests with one) → identity forwarding (client identity headers
 * stripped; the validated identity signed for the very request sent upstream) → proxy to the group's upstream.
 *
 * Proxied paths (nearly every request) run that chain on node's own request and response, as plain (req, res, next)
 * functions: express's per-request set-up (prototype swaps, its router) cost more CPU than the rest of the gateway
 * together. Every other path (versions documents, health, readiness, OpenAPI, Keystone look-ups, 404) is served by
 * the express app, with the same request id, access log and metrics middleware.
 */
import { randomUUID } from 'node:crypto';
import { Agent, type ClientRequest, createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { AppError, accessLog, errorHandler, readinessHandler, reasonPhrase, renderKeystoneError, requestId } from '@stratum/http-kit';
import { bodyDigest, CLIENT_IDENTITY_HEADERS, EMPTY_BODY_SHA256, type Identity, signIdentity } from '@stratum/identity';
import express, { type Request, type RequestHandler, type Response } from 'express';
import { createProxyMiddleware, type Plugin, proxyEventsPlugin } from 'http-proxy-middleware';
import type { GatewayDeps } from './deps';
import { openapiRouter } from './openapi/openapi.router';
import { PublicUrls } from './public-url';
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
  const body = JSON.stringify(render(status, message));
  res.writeHead(status, { ...headers, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

const UPSTREAM = Symbol('upstream request');
const FORWARD = Symbol('identity and body to forward');

/** What the gateway sends upstream for an authenticated request: the identity to sign for, and the buffered body. */
interface Forward {
  identity: Identity;
  /** The decoded body bytes, or undefined for a request without a body. */
  body: Buffer | undefined;
  digest: string;
}

const NO_BODY: Pick<Forward, 'body' | 'digest'> = { body: undefined, digest: EMPTY_BODY_SHA256 };

/** A node request and response as the fast path sees them: `locals` as express would have them. */
type PlainRequest = IncomingMessage & { originalUrl?: string; [UPSTREAM]?: ClientRequest; [FORWARD]?: Forward };
type PlainResponse = ServerResponse & { locals: Record<string, unknown> };
type Next = (err?: unknown) => void;
type Middleware = (req: PlainRequest, res: PlainResponse, next: Next) => void;

/** The route group a request was resolved to, for metrics and logs (`gateway` for the gateway's own answers). */
const groupOf = (res: PlainResponse): string => (res.locals.group as string | undefined) ?? 'gateway';

const ABSOLUTE_FORM = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i;

/**
 * A request target in origin form (`/path?query`). An HTTP/1.1 server must accept the absolute form
 * (`http://host/path`, RFC 9112 §3.2.2); its authority is dropped rather than trusted: links come from PUBLIC_URL or
 * the Host header as for any request. Other targets (`*`, authority form) are left as they are (a 404).
 */
export function originForm(target: string): string {
  if (target.startsWith('/')) return target;
  const m = ABSOLUTE_FORM.exec(target);
  if (!m) return target;
  const rest = target.slice(m[0].length);
  return rest.startsWith('/') ? rest : `/${rest}`;
}

/** The path of a request URL (express's `req.path`). */
const pathOf = (url: string): string => {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
};

/** The decoder of each Content-Encoding the gateway accepts on a request body (those body-parser reads). */
const DECODERS: Record<string, () => NodeJS.ReadWriteStream> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/** A request body read whole, or the client error that stopped the read. */
type BodyRead = { ok: true; body: Buffer } | { ok: false; status: 400 | 413 | 415; message: string };

/**
 * Reads a request body whole, undoing its Content-Encoding (gzip, deflate, br), at most `limit` bytes both as sent
 * and once decoded (so a small gzip body that inflates past the limit is a 413, as body-parser's limit counts
 * decoded bytes). Garbage that does not decode is a 400, an encoding not listed a 415.
 */
function readBody(req: IncomingMessage, limit: number): Promise<BodyRead> {
  const coding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  const decoder = coding === 'identity' || coding === '' ? undefined : Object.hasOwn(DECODERS, coding) ? DECODERS[coding]?.() : null;
  if (decoder === null) {
    return Promise.resolve({ ok: false, status: 415, message: `Unsupported Content-Encoding: ${coding.slice(0, 64)}.` });
  }
  const tooLarge = { ok: false, status: 413, message: `The request body is larger than ${limit} bytes.` } as const;
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let sent = 0;
    let size = 0;
    let done = false;
    const finish = (result: BodyRead) => {
      if (done) return;
      done = true;
      if (decoder) {
        req.unpipe(decoder as NodeJS.WritableStream);
        (decoder as unknown as { destroy(): void }).destroy();
      }
      resolve(result);
    };
    const out: NodeJS.ReadableStream = decoder ? req.pipe(decoder) : req;
    if (decoder) {
      req.on('data', (chunk: Buffer) => {
        sent += chunk.length;
        if (sent > limit) finish(tooLarge);
      });
      decoder.on('error', () => finish({ ok: false, status: 400, message: `The request body is not valid ${coding} data.` }));
    }
    out.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) finish(tooLarge);
      else chunks.push(chunk);
    });
    out.on('end', () => finish({ ok: true, body: Buffer.concat(chunks, size) }));
    const aborted = { ok: false, status: 400, message: 'Request aborted.' } as const;
    req.on('error', () => finish(aborted));
    req.once('close', () => {
      if (!req.complete) finish(aborted);
    });
  });
}

/**
 * Largest request line plus headers, in bytes: node's own default limit (`--max-http-header-size`), checked by the
 * gateway so that the 431 can be in the group's shape. The server's parser limit is raised above it
 * (PARSER_HEAD_LIMIT) so that such a request is parsed and its group told; past that limit node's parser refuses it
 * and `answerClientError` finds the group in the bytes the parser was reading, when the request line is there.
 */
export const MAX_REQUEST_HEAD_BYTES = 16_384;
const PARSER_HEAD_LIMIT = 61_440;

/** The group a path belongs to, for the shape of an error, or undefined for the gateway's own paths. */
function groupOfPath(path: string): Group | undefined {
  const r = resolve(path);
  return r.kind === 'proxy' || r.kind === 'versions' || r.kind === 'health' ? r.group : undefined;
}

/** Size of a request's head as received: the request line and every header line. */
function headSize(req: IncomingMessage): number {
  let n = (req.method?.length ?? 0) + (req.url?.length ?? 0) + 12;
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i++) n += (raw[i] as string).length + 2;
  return n;
}

/**
 * Answers a request node's HTTP parser refused (node would send an empty 400 or 431) in the shape of the group its
 * request line names, then closes the connection: a head past PARSER_HEAD_LIMIT is 431, control characters or
 * non-ASCII bytes in the URL (and any other malformed request) 400, a request not received in time 408.
 */
function answerClientError(err: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const line = err.rawPacket?.subarray(0, 4096).toString('latin1') ?? '';
  const target = /^[A-Z]+ ([^ ?\r\n]*)/.exec(line)?.[1];
  const group = target === undefined ? undefined : groupOfPath(originForm(target));
  const message =
    status === 431
      ? `The request line and headers are larger than ${MAX_REQUEST_HEAD_BYTES} bytes.`
      : status === 408
        ? 'The request was not received in time.'
        : 'The request is not valid HTTP (control characters or non-ASCII bytes in the URL, or a malformed header).';
  const body = JSON.stringify((group ? GROUPS[group].render : renderKeystoneError)(status, message));
  socket.end(
    `HTTP/1.1 ${status} ${reasonPhrase(status)}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Openstack-Request-Id: req-${randomUUID()}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** The gateway as a request listener, with `listen` like an express app's. */
export interface GatewayApp {
  (req: IncomingMessage, res: ServerResponse): void;
  listen(port: number, host: string): Server;
}

export function buildGateway(deps: GatewayDeps): GatewayApp {
  const { config, logger, tokens, rateLimits, metrics } = deps;
  const secret = config.STRATUM_IDENTITY_SECRET;
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

  /** Where links point: PUBLIC_URL, a trusted proxy's forwarded host, or the request's own (public-url.ts). */
  const publicUrls = new PublicUrls(config);
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
          const forward = req[FORWARD];
          if (!forward) return; // a group's public health check
          // Signed here, per request, over the method and request target exactly as they go on the wire (after the
          // group prefix is removed and http-proxy has joined the path), which the service reads as req.originalUrl.
          const signed = signIdentity(forward.identity, secret, {
            method: proxyReq.method,
            url: proxyReq.path,
            bodyDigest: forward.digest,
          });
          for (const name in signed) proxyReq.setHeader(name, signed[name] as string);
          // The client's body was read whole; http-proxy then pipes the ended request, which ends this one.
          if (forward.body) proxyReq.write(forward.body);
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
   * The body to forward and its digest. A request without one (nearly every GET) costs nothing here; one with a body
   * is read whole and decoded (readBody): the service then verifies the signed digest over exactly the bytes it
   * receives, and reads no Content-Encoding. Null after answering the client's error in the group's shape.
   */
  const forwardedBody = async (req: PlainRequest, res: PlainResponse, group: Group): Promise<Pick<Forward, 'body' | 'digest'> | null> => {
    const h = req.headers;
    if (h['transfer-encoding'] === undefined && (h['content-length'] === undefined || h['content-length'] === '0')) {
      if (h['content-encoding'] !== undefined) delete h['content-encoding'];
      return NO_BODY;
    }
    const read = await readBody(req, config.MAX_BODY_BYTES);
    if (!read.ok) {
      sendGroupError(res, group, read.status, read.message, { Connection: 'close' });
      return null;
    }
    delete h['transfer-encoding'];
    delete h['content-encoding'];
    h['content-length'] = String(read.body.length);
    return read.body.length === 0 ? NO_BODY : { body: read.body, digest: bodyDigest(read.body) };
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
        'WWW-Authenticate': `Keystone uri="${publicUrls.base(req)}/identity"`,
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
    const body = await forwardedBody(req, res, r.group);
    if (!body) return;
    req[FORWARD] = { identity, ...body };
    const h = req.headers;
    for (const name of CLIENT_IDENTITY_HEADERS) delete h[name];
    // The body is read already (node answered the client's 100 Continue); and node's client sends the head of a request
    // with `Expect` at once, before the signature could be set on it.
    if (h.expect !== undefined) delete h.expect;
    // Whether the id is the client's own (kept when valid) or made here: lbaas-quota takes a client's request id as
    // the idempotency key of consume/release (services/lbaas-quota/README.md), never one the gateway made up.
    if (h['x-openstack-request-id'] === res.locals.requestId) h['x-stratum-client-request-id'] = res.locals.requestId as string;
    else delete h['x-stratum-client-request-id'];
    h['x-openstack-request-id'] = res.locals.requestId as string;
    publicUrls.forward(req, r.group, r.prefix);
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    req.originalUrl ??= url;
    req.url = q < 0 ? r.path : `${r.path}${url.slice(q)}`;
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
    if ((r.kind === 'versions' || r.kind === 'health') && req.method !== 'GET' && req.method !== 'HEAD') {
      sendGroupError(res, r.group, 405, 'The method is not allowed for the requested URL.', { Allow: 'GET, HEAD' });
      return;
    }
    if (r.kind === 'versions') {
      res.json(GROUPS[r.group].versions(publicUrls.base(req, r.group, r.prefix)));
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
    res.json(octaviaVersions(publicUrls.base(req, 'lbaas')));
  });
  app.get('/healthcheck', (_req, res) => {
    res.type('text/plain').send('OK');
  });
  app.get('/ready', readinessHandler(deps.readiness));
  app.use(openapiRouter());
  app.use((_req, _res, next) => next(new AppError(404, 'The resource could not be found.')));
  app.use(errorHandler(renderKeystoneError, logger));

  const front = ((req: IncomingMessage, res: ServerResponse) => {
    if (req.url !== undefined && !req.url.startsWith('/')) req.url = originForm(req.url);
    if ((req.url?.length ?? 0) > MAX_REQUEST_HEAD_BYTES || headSize(req) > MAX_REQUEST_HEAD_BYTES) {
      const group = groupOfPath(pathOf(req.url ?? '/'));
      res.shouldKeepAlive = false;
      sendGroupError(res, group, 431, `The request line and headers are larger than ${MAX_REQUEST_HEAD_BYTES} bytes.`, {
        Connection: 'close',
        'X-Openstack-Request-Id': `req-${randomUUID()}`,
      });
      return;
    }
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
  front.listen = (port, host) =>
    createServer({ maxHeaderSize: PARSER_HEAD_LIMIT }, front).on('clientError', answerClientError).listen(port, host);
  return front;
}
