/**
 * Composition root of the gateway process: the token check (static file or Keystone with its cache), the console's
 * Keystone sign-in, the rate limits, the metrics and the readiness checks, all sharing one Redis connection when
 * REDIS_URL is set.
 */
import { cacheRedis, redisAnswers } from '@stratum/cache';
import type { ReadinessCheck } from '@stratum/http-kit';
import { KeystoneClient } from '@stratum/keystone';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { GatewayConfig } from './config';
import { GatewayMetrics } from './metrics/metrics';
import { Replicas } from './proxy/replicas';
import { RateLimits } from './ratelimit/ratelimit';
import type { Group } from './routes';
import { SignInService } from './sign-in/sign-in.service';
import { TokenCache } from './tokens/tokens.cache';
import { KeystoneTokens } from './tokens/tokens.keystone';
import { StaticTokens } from './tokens/tokens.static';
import type { TokenValidator } from './tokens/tokens.types';

export interface GatewayDeps {
  config: GatewayConfig;
  logger: Logger;
  tokens: TokenValidator;
  rateLimits: RateLimits;
  /** The console's Keystone sign-in (sign-in/), on the same Keystone client as the token check; none with static tokens. */
  signIn: SignInService | undefined;
  metrics: GatewayMetrics;
  /** Each group's upstream replicas (proxy/replicas.ts), shared by the proxies and the readiness checks. */
  upstreams: Record<Group, Replicas>;
  /** What `GET /ready` checks: each upstream's own `/ready` (required), Keystone (required when used), Redis. */
  readiness: Record<string, ReadinessCheck>;
  close(): Promise<void>;
}

export interface GatewayDepsOptions {
  /** Prefix of every Redis key the gateway writes (default `stratum:gateway:`); tests give each stack its own. */
  redisPrefix?: string;
  /** Process metrics (event loop, heap, CPU) in /metrics; off when several gateways share a process (tests). */
  processMetrics?: boolean;
}

/** GET `url` within `timeoutMs`. @returns the status and JSON body (undefined when not JSON), or null when unreachable. */
async function probe(url: string, timeoutMs = 2000): Promise<{ status: number; body: unknown } | null> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), headers: { Accept: 'application/json' } });
    const body = await res.json().catch(() => undefined);
    return { status: res.status, body };
  } catch {
    return null;
  }
}

/** Resolves when `redis` is ready, fails to connect, or after `timeoutMs` (a Redis that is down is not fatal). */
function connected(redis: Redis, timeoutMs: number): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((ok) => {
    const done = () => {
      clearTimeout(timer);
      redis.off('ready', done).off('error', done);
      ok();
    };
    const timer = setTimeout(done, timeoutMs);
    redis.once('ready', done).once('error', done);
  });
}

/**
 * Builds the gateway's dependencies from its configuration. Waits up to two seconds for Redis, so the first requests
 * share counters and cache with the other replicas; a Redis that is down does not stop the gateway.
 * @throws Error when the static tokens file is unreadable or malformed.
 */
export async function createGatewayDeps(config: GatewayConfig, logger: Logger, opts: GatewayDepsOptions = {}): Promise<GatewayDeps> {
  const prefix = opts.redisPrefix ?? 'stratum:gateway:';
  const redis: Redis | undefined = config.REDIS_URL ? cacheRedis(config.REDIS_URL) : undefined;
  if (redis) await connected(redis, 2000);
  const metrics = new GatewayMetrics({ processMetrics: opts.processMetrics });
  const keystone = KeystoneClient.fromSettings(config);
  const cacheResults = {
    memory: metrics.tokenCache.labels('memory'),
    redis: metrics.tokenCache.labels('redis'),
    miss: metrics.tokenCache.labels('miss'),
  };
  const tokens: TokenValidator = keystone
    ? new KeystoneTokens(
        keystone,
        new TokenCache({
          redis,
          prefix: `${prefix}token:`,
          maxEntries: config.TOKEN_CACHE_MAX_ENTRIES,
          validSeconds: config.TOKEN_CACHE_SECONDS,
          invalidSeconds: config.TOKEN_NEGATIVE_CACHE_SECONDS,
          onLookup: (result) => cacheResults[result].inc(),
        }),
        logger,
      )
    : StaticTokens.fromFile(config.TOKENS_FILE);

  const cooldown = config.UPSTREAM_COOLDOWN_MS;
  const upstreams: Record<Group, Replicas> = {
    event: new Replicas(config.EVENT_QUERY_URL, cooldown),
    lbaas: new Replicas(config.LBAAS_QUOTA_URL, cooldown),
    domain: new Replicas(config.DOMAIN_QUOTA_URL, cooldown),
  };
  /** One replica's own `/ready`: ok and its checks. */
  const replicaReady = async (url: string): Promise<{ ok: boolean; checks?: unknown }> => {
    const r = await probe(`${url.replace(/\/+$/, '')}/ready`, 1500);
    const checks = (r?.body as { checks?: unknown } | undefined)?.checks;
    return { ok: r?.status === 200, ...(checks ? { checks } : {}) };
  };
  /**
   * A service with one replica reports that replica's checks, as before replicas; with several it is ok while one
   * replica is, and reports each by its URL: its status, whether the proxy skips it (cooling down) and its checks.
   */
  const upstream = (replicas: Replicas): ReadinessCheck => ({
    required: true,
    check: async () => {
      const [only, ...more] = replicas.urls;
      if (only !== undefined && more.length === 0) return replicaReady(only);
      const each = await Promise.all(replicas.urls.map(async (url, i) => ({ url, i, ...(await replicaReady(url)) })));
      const now = Date.now();
      const checks = Object.fromEntries(
        each.map((r) => [
          r.url,
          { status: r.ok ? 'ok' : 'down', cooling_down: replicas.coolingDown(r.i, now), ...(r.checks ? { checks: r.checks } : {}) },
        ]),
      );
      return { ok: each.some((r) => r.ok), checks };
    },
  });
  const readiness: Record<string, ReadinessCheck> = {
    'event-query': upstream(upstreams.event),
    'lbaas-quota': upstream(upstreams.lbaas),
    'domain-quota': upstream(upstreams.domain),
  };
  if (config.KEYSTONE_URL) {
    // Keystone's version document needs no token; a 2xx/3xx means it serves.
    const url = `${config.KEYSTONE_URL.replace(/\/+$/, '').replace(/\/v3$/, '')}/v3`;
    readiness.keystone = { required: true, check: async () => ((await probe(url))?.status ?? 500) < 400 };
  }
  if (redis) readiness.redis = { required: false, check: () => redisAnswers(redis) };

  return {
    config,
    logger,
    tokens,
    rateLimits: new RateLimits(config, redis, `${prefix}rl:`),
    signIn: keystone
      ? new SignInService(keystone, config, redis, `${prefix}rl:`, logger, (scope) => metrics.rateLimited.inc({ group: 'gateway', scope }))
      : undefined,
    metrics,
    upstreams,
    readiness,
    close: async () => {
      redis?.disconnect();
    },
  };
}
