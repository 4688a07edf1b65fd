/**
 * The proxy to each group's upstream (http-proxy-middleware over kept-alive connections): signs the forwarded
 * identity onto the upstream request (auth/identity.ts) and answers an upstream failure in the group's shape.
 *
 * A group's upstream may be several replicas (replicas.ts): each request goes to one round-robin; a request the
 * replica could not be reached for (any method), or a GET or HEAD that got nothing back, is sent once more to another
 * replica (signed anew for that request, the buffered body written again: `retriable`); anything else is answered
 * 502/503/504 as with one replica.
 */
import { Agent, type ClientRequest, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { createProxyMiddleware, proxyEventsPlugin } from 'http-proxy-middleware';
import type { Logger } from 'pino';
import { signForwarded } from '../auth/identity';
import type { GatewayConfig } from '../config';
import { sendGroupError, upstreamFailed } from '../errors';
import type { GatewayMetrics } from '../metrics/metrics';
import { FORWARD, type Middleware, type Next, type PlainRequest, type PlainResponse, UPSTREAM } from '../pipeline';
import { GROUPS, type Group } from '../routes';
import { failedToConnect, type Replicas, retriable } from './replicas';

/**
 * Maps a proxy failure to a status: refused, unreachable or not connected in time (nothing reached a replica) → 503,
 * timed out answering → 504, anything else (reset, garbage) → 502.
 */
export function upstreamStatus(err: NodeJS.ErrnoException, timedOut: boolean): number {
  if (timedOut) return 504;
  if (failedToConnect(err.code)) return 503;
  if (['ETIMEDOUT', 'ESOCKETTIMEDOUT'].includes(err.code ?? '')) return 504;
  return 502;
}

/** The current attempt of a proxied request: which replica it went to, whether it is the retry, what came back. */
const ATTEMPT = Symbol('upstream attempt');
interface Attempt {
  replica: number;
  retried: boolean;
  /** The upstream's response head arrived (from then on nothing is retried). */
  responded: boolean;
  /** The pipeline's `next`, for the retry. */
  next: Next;
}
type ProxiedRequest = PlainRequest & { [ATTEMPT]?: Attempt };

/**
 * Whether the upstream took longer than UPSTREAM_TIMEOUT_MS: http-proxy then aborts the upstream request (`abort()`,
 * which nothing else here calls) and reports a reset.
 */
const timedOut = (req: PlainRequest): boolean => req[UPSTREAM]?.aborted === true;

/**
 * Fails `proxyReq` with code UPSTREAM_CONNECT_TIMEOUT when its socket is not connected within `ms` (a replica that
 * is down but whose host drops packets, rather than refusing, would otherwise hold a read until UPSTREAM_TIMEOUT_MS).
 */
function limitConnect(proxyReq: ClientRequest, ms: number): void {
  // A request queued by the agent (all maxSockets in use) has no socket yet: watch the one it is given later.
  const watch = (socket: Socket) => {
    if (!socket.connecting) return; // a kept-alive connection, already open
    const timer = setTimeout(() => {
      proxyReq.destroy(Object.assign(new Error(`upstream not connected within ${ms} ms`), { code: 'UPSTREAM_CONNECT_TIMEOUT' }));
    }, ms);
    const clear = () => clearTimeout(timer);
    socket.once('connect', clear);
    proxyReq.once('close', clear);
  };
  if (proxyReq.socket) watch(proxyReq.socket);
  else proxyReq.once('socket', watch);
}

/**
 * One proxy middleware per group, over the group's replicas (deps.ts `upstreams`). It forwards `req.url` as set by
 * the fast path (the group prefix removed) with the identity and body in `req[FORWARD]`; a request without (a group's
 * public health check) goes unsigned.
 */
export function createProxies(
  config: GatewayConfig,
  logger: Logger,
  metrics: GatewayMetrics,
  upstreams: Record<Group, Replicas>,
): Record<Group, Middleware> {
  const secret = config.STRATUM_IDENTITY_SECRET;

  const groupProxy = (group: Group): Middleware => {
    const replicas = upstreams[group];
    const sent = replicas.urls.map((url) => metrics.upstreamRequests.labels(group, url));
    const several = replicas.urls.length > 1;

    /** Sends the request to replica `i` (its `retried` attempt when true). */
    const send = (req: ProxiedRequest, res: PlainResponse, next: Next, i: number, retried: boolean) => {
      req[ATTEMPT] = { replica: i, retried, responded: false, next };
      sent[i]?.inc();
      perReplica[i]?.(req, res, next);
    };

    const failed = (i: number, err: NodeJS.ErrnoException, req: ProxiedRequest, res: ServerResponse | unknown) => {
      const attempt = req[ATTEMPT];
      // A listener of an earlier attempt (http-proxy listens on the client request once per attempt).
      if (attempt?.replica !== i) return;
      if (failedToConnect(err.code)) replicas.failed(i, Date.now());
      const out = res instanceof ServerResponse ? (res as PlainResponse) : undefined;
      if (!out || out.headersSent) {
        // The upstream failed mid-response (or the gateway already answered, e.g. 413): nothing more to say.
        if (res instanceof ServerResponse && !res.writableEnded) res.destroy();
        return;
      }
      const wasTimedOut = timedOut(req);
      if (
        retriable({ method: req.method, code: err.code, responded: attempt.responded, retried: attempt.retried, timedOut: wasTimedOut })
      ) {
        const other = replicas.pick(Date.now(), i);
        if (other >= 0) {
          metrics.upstreamRetries.inc({ group });
          logger.info(
            { group, code: err.code, from: replicas.urls[i], to: replicas.urls[other], requestId: out.getHeader('x-openstack-request-id') },
            'upstream retried on another replica',
          );
          send(req, out, attempt.next, other, true);
          return;
        }
      }
      const status = upstreamStatus(err, wasTimedOut);
      metrics.upstreamErrors.inc({ group, status: String(status) });
      logger.warn(
        { group, status, code: err.code, replica: replicas.urls[i], requestId: out.getHeader('x-openstack-request-id') },
        'upstream failed',
      );
      sendGroupError(out, group, upstreamFailed(GROUPS[group].name, status));
    };

    const perReplica: Middleware[] = replicas.urls.map((target, i) =>
      createProxyMiddleware({
        target,
        // Reuse upstream connections; without an agent http-proxy sends `Connection: close` and passes the upstream's
        // close on to the client, so every request would pay for two new TCP connections.
        agent: new Agent({ keepAlive: true, maxSockets: 256 }),
        changeOrigin: true,
        proxyTimeout: config.UPSTREAM_TIMEOUT_MS,
        // Only the plugin that wires `on`: the default logger and debug plugins cost CPU on every request.
        ejectPlugins: true,
        plugins: [proxyEventsPlugin],
        on: {
          proxyReq: (proxyReq, incoming) => {
            const req: ProxiedRequest = incoming;
            req[UPSTREAM] = proxyReq;
            // With one replica there is nowhere else to go: it keeps today's behaviour (UPSTREAM_TIMEOUT_MS alone).
            if (several) limitConnect(proxyReq, config.UPSTREAM_CONNECT_TIMEOUT_MS);
            proxyReq.once('response', () => {
              const attempt = req[ATTEMPT];
              if (attempt?.replica === i) attempt.responded = true;
              replicas.succeeded(i);
            });
            const forward = req[FORWARD];
            // Signed for this very upstream request: a retry is a new request, signed anew with its body written again.
            if (forward) signForwarded(proxyReq, forward, secret);
          },
          error: (err: NodeJS.ErrnoException, req, res) => failed(i, err, req, res),
        },
      }),
    );

    return (req, res, next) => {
      const i = replicas.pick(Date.now());
      send(req, res, next, i, false);
    };
  };
  return { event: groupProxy('event'), lbaas: groupProxy('lbaas'), domain: groupProxy('domain') };
}
