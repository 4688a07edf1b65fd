/**
 * The gateway's Prometheus metrics (prom-client), in a registry of its own (one per gateway, so tests can build
 * several), served on a separate port by `metricsServer`.
 */
import { createServer, type Server } from 'node:http';
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/** Where a token check's answer came from. */
export type TokenCacheResult = 'memory' | 'redis' | 'miss';

export class GatewayMetrics {
  readonly registry = new Registry();
  /** Requests answered, by route group (`event`, `lbaas`, `domain`, or `gateway` for its own documents), method and status. */
  readonly requests = new Counter({
    name: 'stratum_gateway_requests_total',
    help: 'Requests answered by the gateway.',
    labelNames: ['group', 'method', 'status'] as const,
    registers: [this.registry],
  });
  /** Time from the request's arrival to the response's end, in seconds, by route group. */
  readonly duration = new Histogram({
    name: 'stratum_gateway_request_duration_seconds',
    help: 'Request latency through the gateway, in seconds.',
    labelNames: ['group'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  /** Upstream failures the gateway answered itself (502, 503, 504), by route group and status. */
  readonly upstreamErrors = new Counter({
    name: 'stratum_gateway_upstream_errors_total',
    help: 'Upstream failures answered by the gateway (502 bad gateway, 503 unreachable, 504 timed out).',
    labelNames: ['group', 'status'] as const,
    registers: [this.registry],
  });
  /** Requests sent upstream (a retry counts again), by route group and replica (its base URL). */
  readonly upstreamRequests = new Counter({
    name: 'stratum_gateway_upstream_requests_total',
    help: 'Requests sent to an upstream replica, retries included.',
    labelNames: ['group', 'replica'] as const,
    registers: [this.registry],
  });
  /** Requests sent again to another replica after the first could not be reached (or a read got nothing back), by route group. */
  readonly upstreamRetries = new Counter({
    name: 'stratum_gateway_upstream_retries_total',
    help: 'Requests retried on another replica after a connection failure.',
    labelNames: ['group'] as const,
    registers: [this.registry],
  });
  /** Token checks, by where the answer came from: the in-process cache, Redis, or a miss (Keystone asked). */
  readonly tokenCache = new Counter({
    name: 'stratum_gateway_token_cache_total',
    help: 'Token checks by cache outcome (memory hit, redis hit, miss).',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });
  /**
   * Requests refused by a rate limit (429), by route group and the limit's scope (project or token); the console's
   * sign-in counts as group `gateway`, scope `sign_in_address` or `sign_in_user`.
   */
  readonly rateLimited = new Counter({
    name: 'stratum_gateway_rate_limited_total',
    help: 'Requests refused with 429 by a rate limit.',
    labelNames: ['group', 'scope'] as const,
    registers: [this.registry],
  });

  constructor(opts: { processMetrics?: boolean } = {}) {
    // Event loop lag, heap and CPU of the process; off in tests, where several gateways share one process.
    if (opts.processMetrics) collectDefaultMetrics({ register: this.registry, prefix: 'stratum_gateway_' });
  }
}

/**
 * An HTTP server answering `GET /metrics` in the Prometheus text format (anything else: 404). Kept off the API port
 * so metrics need no token and are not exposed where the API is.
 */
export function metricsServer(metrics: GatewayMetrics): Server {
  return createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not Found\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => res.writeHead(200, { 'Content-Type': metrics.registry.contentType }).end(text),
      (err: Error) => res.writeHead(500, { 'Content-Type': 'text/plain' }).end(`${err.message}\n`),
    );
  });
}
