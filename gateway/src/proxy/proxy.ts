/**
 * The proxy to each group's upstream (http-proxy-middleware over kept-alive connections): signs the forwarded
 * identity onto the upstream request (auth/identity.ts) and answers an upstream failure in the group's shape.
 */
import { Agent, type IncomingMessage, ServerResponse } from 'node:http';
import { createProxyMiddleware, proxyEventsPlugin } from 'http-proxy-middleware';
import type { Logger } from 'pino';
import { signForwarded } from '../auth/identity';
import type { GatewayConfig } from '../config';
import { sendGroupError, upstreamFailed } from '../errors';
import type { GatewayMetrics } from '../metrics/metrics';
import { FORWARD, type Middleware, type PlainRequest, UPSTREAM } from '../pipeline';
import { GROUPS, type Group } from '../routes';

/** Maps a proxy failure to a status: refused/unreachable → 503, timed out → 504, anything else (reset, garbage) → 502. */
export function upstreamStatus(err: NodeJS.ErrnoException, timedOut: boolean): number {
  if (timedOut) return 504;
  if (['ECONNREFUSED', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN'].includes(err.code ?? '')) return 503;
  if (['ETIMEDOUT', 'ESOCKETTIMEDOUT'].includes(err.code ?? '')) return 504;
  return 502;
}

/**
 * Whether the upstream took longer than UPSTREAM_TIMEOUT_MS: http-proxy then aborts the upstream request (`abort()`,
 * which nothing else here calls) and reports a reset.
 */
const timedOut = (req: PlainRequest): boolean => req[UPSTREAM]?.aborted === true;

/** The upstream base URL of each group. */
const upstreamsOf = (config: GatewayConfig): Record<Group, string> => ({
  event: config.EVENT_QUERY_URL,
  lbaas: config.LBAAS_QUOTA_URL,
  domain: config.DOMAIN_QUOTA_URL,
});

/**
 * One proxy middleware per group. It forwards `req.url` as set by the fast path (the group prefix removed) with the
 * identity and body in `req[FORWARD]`; a request without (a group's public health check) goes unsigned.
 */
export function createProxies(config: GatewayConfig, logger: Logger, metrics: GatewayMetrics): Record<Group, Middleware> {
  const upstreams = upstreamsOf(config);
  const secret = config.STRATUM_IDENTITY_SECRET;
  const proxyFor = (group: Group): Middleware =>
    createProxyMiddleware({
      target: upstreams[group],
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
          const req: PlainRequest = incoming;
          req[UPSTREAM] = proxyReq;
          const forward = req[FORWARD];
          if (forward) signForwarded(proxyReq, forward, secret);
        },
        error: (err: NodeJS.ErrnoException, req, res) => {
          const status = upstreamStatus(err, timedOut(req));
          if (!(res instanceof ServerResponse) || res.headersSent) {
            // The upstream failed mid-response (or the gateway already answered, e.g. 413): nothing more to say.
            if (!res.writableEnded) res.destroy();
            return;
          }
          const out: ServerResponse<IncomingMessage> = res;
          metrics.upstreamErrors.inc({ group, status: String(status) });
          logger.warn({ group, status, code: err.code, requestId: out.getHeader('x-openstack-request-id') }, 'upstream failed');
          sendGroupError(out, group, upstreamFailed(GROUPS[group].name, status));
        },
      },
    });
  return { event: proxyFor('event'), lbaas: proxyFor('lbaas'), domain: proxyFor('domain') };
}
