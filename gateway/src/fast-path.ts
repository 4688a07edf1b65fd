/**
 * The fast path: every proxied request (nearly all of them) runs on node's own request and response, as plain
 * (req, res, next) functions: express's per-request set-up (prototype swaps, its router) costs more CPU than the rest
 * of the gateway together. After the common middleware (pipeline.ts): body size → token check → rate limits → body
 * read and decoded (requests with one) → identity forwarding (client identity headers stripped, the validated
 * identity signed for the very request sent upstream) → proxy to the group's upstream.
 *
 * Also here: what comes before any pipeline (request target form, request head size) and the answer to a request
 * node's parser refused.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { type AppError, reasonPhrase } from '@stratum/http-kit';
import type { authenticator } from './auth/authenticate';
import { stripClientIdentity } from './auth/identity';
import type { GatewayConfig } from './config';
import { bodyTooLarge, errorBody, headTooLarge, malformedRequest, rateLimited, requestTimeout, sendGroupError } from './errors';
import type { GatewayMetrics } from './metrics/metrics';
import { FORWARD, type Middleware, type Next, type PlainRequest, type PlainResponse } from './pipeline';
import { forwardedBody } from './proxy/body';
import type { PublicUrls } from './public-url';
import type { RateLimits } from './ratelimit/ratelimit';
import { type Group, type Resolution, resolve } from './routes';
import { tokenKey } from './tokens/tokens.cache';

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
export const pathOf = (url: string): string => {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
};

/**
 * Largest request line plus headers, in bytes: node's own default limit (`--max-http-header-size`), checked by the
 * gateway so that the 431 can be in the group's shape. The server's parser limit is raised above it
 * (PARSER_HEAD_LIMIT) so that such a request is parsed and its group told; past that limit node's parser refuses it
 * and `answerClientError` finds the group in the bytes the parser was reading, when the request line is there.
 */
export const MAX_REQUEST_HEAD_BYTES = 16_384;
export const PARSER_HEAD_LIMIT = 61_440;

/** The group a path belongs to, for the shape of an error, or undefined for the gateway's own paths. */
export function groupOfPath(path: string): Group | undefined {
  const r = resolve(path);
  return r.kind === 'proxy' || r.kind === 'versions' || r.kind === 'health' ? r.group : undefined;
}

/** Size of a request's head as received: the request line and every header line. */
export function headSize(req: IncomingMessage): number {
  let n = (req.method?.length ?? 0) + (req.url?.length ?? 0) + 12;
  for (const line of req.rawHeaders) n += line.length + 2;
  return n;
}

/**
 * Refuses a request whose head is past MAX_REQUEST_HEAD_BYTES with a 431 in its group's shape (a new request id, the
 * connection closed). @returns whether it did.
 */
export function refuseLargeHead(req: IncomingMessage, res: PlainResponse): boolean {
  if ((req.url?.length ?? 0) <= MAX_REQUEST_HEAD_BYTES && headSize(req) <= MAX_REQUEST_HEAD_BYTES) return false;
  res.shouldKeepAlive = false;
  sendGroupError(res, groupOfPath(pathOf(req.url ?? '/')), headTooLarge(MAX_REQUEST_HEAD_BYTES), {
    'X-Openstack-Request-Id': `req-${randomUUID()}`,
  });
  return true;
}

/**
 * Answers a request node's HTTP parser refused (node would send an empty 400 or 431) in the shape of the group its
 * request line names, then closes the connection: a head past PARSER_HEAD_LIMIT is 431, control characters or
 * non-ASCII bytes in the URL (and any other malformed request) 400, a request not received in time 408.
 */
export function answerClientError(err: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const error: AppError =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? headTooLarge(MAX_REQUEST_HEAD_BYTES)
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? requestTimeout()
        : malformedRequest();
  const line = err.rawPacket?.subarray(0, 4096).toString('latin1') ?? '';
  const target = /^[A-Z]+ ([^ ?\r\n]*)/.exec(line)?.[1];
  const group = target === undefined ? undefined : groupOfPath(originForm(target));
  const body = errorBody(group, error);
  socket.end(
    `HTTP/1.1 ${error.status} ${reasonPhrase(error.status)}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Openstack-Request-Id: req-${randomUUID()}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** What the fast path needs. */
export interface FastPathParts {
  config: GatewayConfig;
  metrics: GatewayMetrics;
  rateLimits: RateLimits;
  publicUrls: PublicUrls;
  authenticate: ReturnType<typeof authenticator>;
  proxies: Record<Group, Middleware>;
}

/** A resolved proxied path. */
export type ProxyResolution = Extract<Resolution, { kind: 'proxy' }>;

/** Returns the handler of a proxied path (after the common middleware): body size, token, rate limits, signed identity, upstream. */
export function proxiedHandler(parts: FastPathParts) {
  const { config, metrics, rateLimits, publicUrls, authenticate, proxies } = parts;
  return async (req: PlainRequest, res: PlainResponse, r: ProxyResolution, next: Next): Promise<void> => {
    res.locals.group = r.group;
    if (Number(req.headers['content-length'] ?? 0) > config.MAX_BODY_BYTES) {
      sendGroupError(res, r.group, bodyTooLarge(config.MAX_BODY_BYTES));
      return;
    }
    const caller = await authenticate(req, res, r);
    if (!caller) return;
    const { identity, token } = caller;
    if (!rateLimits.none) {
      const refusal = await rateLimits.consume(r.group, identity, tokenKey(token));
      if (refusal) {
        metrics.rateLimited.inc({ group: r.group, scope: refusal.scope });
        sendGroupError(res, r.group, rateLimited(refusal.scope, refusal.retryAfterSeconds));
        return;
      }
    }
    const body = await forwardedBody(req, config.MAX_BODY_BYTES);
    if (!body.ok) {
      sendGroupError(res, r.group, body.error);
      return;
    }
    req[FORWARD] = { identity, ...body.forward };
    const h = req.headers;
    stripClientIdentity(h);
    // The body is read already (node answered the client's 100 Continue); and node's client sends the head of a request
    // with `Expect` at once, before the signature could be set on it.
    if (h.expect !== undefined) delete h.expect;
    // Whether the id is the client's own (kept when valid) or made here: lbaas-quota takes a client's request id as
    // the idempotency key of consume/release (services/lbaas-quota/README.md), never one the gateway made up.
    const requestId = String(res.locals.requestId);
    if (h['x-openstack-request-id'] === requestId) h['x-stratum-client-request-id'] = requestId;
    else delete h['x-stratum-client-request-id'];
    h['x-openstack-request-id'] = requestId;
    publicUrls.forward(req, r.group, r.prefix);
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    req.originalUrl ??= url;
    req.url = q < 0 ? r.path : `${r.path}${url.slice(q)}`;
    proxies[r.group](req, res, next);
  };
}
