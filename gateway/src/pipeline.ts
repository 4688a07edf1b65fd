/**
 * The middleware every request goes through, declared once: request id → access log → metrics. Both pipelines run
 * this list: the fast path (proxied paths, on node's own request and response, `runChain`) and the express app of the
 * public routes (`app.use(...list)`).
 *
 * A middleware here is a plain `(req, res, next)` over node's request and response, with `res.locals` as express
 * has it; express's Request and Response are subtypes, so the same functions are express middleware as they are.
 */
import type { ClientRequest, IncomingMessage, ServerResponse } from 'node:http';
import { accessLog, requestId } from '@stratum/http-kit';
import type { Identity } from '@stratum/identity';
import type { Logger } from 'pino';
import type { GatewayMetrics } from './metrics/metrics';

/** The upstream request of a proxied request (proxy.ts sets it; its `aborted` tells a timeout). */
export const UPSTREAM = Symbol('upstream request');
/** What the gateway forwards for an authenticated request (auth/identity.ts signs it). */
export const FORWARD = Symbol('identity and body to forward');

/** What the gateway sends upstream for an authenticated request: the identity to sign for, and the buffered body. */
export interface Forward {
  identity: Identity;
  /** The decoded body bytes, or undefined for a request without a body. */
  body: Buffer | undefined;
  /** SHA-256 (hex) of `body`, or of nothing. */
  digest: string;
}

/**
 * A node request as the gateway's middleware sees it. The per-request state is kept on the request itself rather
 * than in a WeakMap: thousands of short-lived weak entries a second make every garbage collection slower.
 */
export type PlainRequest = IncomingMessage & { originalUrl?: string; [UPSTREAM]?: ClientRequest; [FORWARD]?: Forward };
/** A node response with `locals` as express has them (`requestId`, `group`). */
export type PlainResponse = ServerResponse & { locals: Record<string, unknown> };
export type Next = (err?: unknown) => void;
export type Middleware = (req: PlainRequest, res: PlainResponse, next: Next) => void;

/** The route group a request was resolved to, for metrics and logs (`gateway` for the gateway's own answers). */
export const groupOf = (res: PlainResponse): string => (res.locals.group as string | undefined) ?? 'gateway';

/** Counts each request and observes its duration (seconds) by group, method and status, once it has finished. */
export function measure(metrics: GatewayMetrics): Middleware {
  // Labelled children looked up once per label set rather than on every request.
  const counters = new Map<string, ReturnType<typeof metrics.requests.labels>>();
  const histograms = new Map<string, ReturnType<typeof metrics.duration.labels>>();
  return (req, res, next) => {
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
}

/** The one list of middleware both pipelines run first, in order. */
export function commonMiddleware(logger: Logger, metrics: GatewayMetrics): Middleware[] {
  return [requestId(), accessLog(logger), measure(metrics)];
}

/**
 * Runs `list` on a plain request and response, then `done`. A middleware that passes an error stops the chain
 * (none of the common ones does); `failed` gets it.
 */
export function runChain(list: readonly Middleware[], req: PlainRequest, res: PlainResponse, done: () => void, failed: Next): void {
  let i = 0;
  const next: Next = (err) => {
    if (err !== undefined) {
      failed(err);
      return;
    }
    const mw = list[i++];
    if (mw) mw(req, res, next);
    else done();
  };
  next();
}
