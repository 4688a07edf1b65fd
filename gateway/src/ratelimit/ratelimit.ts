/**
 * Rate limits per route group, per project and per token (rate-limiter-flexible): fixed windows counted in Redis, so
 * every gateway replica shares one count, with an in-process limiter taking over while Redis is down (each replica
 * then counts alone). A limiter that fails altogether lets the request through: limits protect the services, they
 * must not become an outage of their own.
 */
import type { Identity } from '@stratum/identity';
import type { Redis } from 'ioredis';
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { GatewayConfig, RateLimit } from '../config';
import type { Group } from '../routes';

/** Which limit refused a request, and when the caller may try again (whole seconds, at least 1: `Retry-After`). */
export interface RateLimitRefusal {
  scope: 'project' | 'token';
  retryAfterSeconds: number;
}

type Limiters = { project: RateLimiterAbstract | null; token: RateLimiterAbstract | null };

/**
 * The limits that apply to one group: its own setting (`RATE_LIMIT_<GROUP>_PER_<SCOPE>`) or else the default
 * (`RATE_LIMIT_PER_<SCOPE>`).
 */
export function groupLimits(config: GatewayConfig, group: Group): { project: RateLimit; token: RateLimit } {
  const own = {
    event: [config.RATE_LIMIT_EVENT_PER_PROJECT, config.RATE_LIMIT_EVENT_PER_TOKEN],
    lbaas: [config.RATE_LIMIT_LBAAS_PER_PROJECT, config.RATE_LIMIT_LBAAS_PER_TOKEN],
    domain: [config.RATE_LIMIT_DOMAIN_PER_PROJECT, config.RATE_LIMIT_DOMAIN_PER_TOKEN],
  }[group];
  return {
    project: own[0] === undefined ? config.RATE_LIMIT_PER_PROJECT : own[0],
    token: own[1] === undefined ? config.RATE_LIMIT_PER_TOKEN : own[1],
  };
}

/** The project a request is counted against: the token's project, else its domain (domain scope), else its user. */
export function limitSubject(identity: Identity): string {
  if (identity.projectId) return `p:${identity.projectId}`;
  if (identity.domainId) return `d:${identity.domainId}`;
  return `u:${identity.userId}`;
}

/**
 * One fixed-window limiter: counted in Redis under `keyPrefix` when there is one (an in-process limiter insures it
 * while Redis is down), else in this process. @returns null for no limit.
 */
export function makeLimiter(limit: RateLimit, redis: Redis | undefined, keyPrefix: string): RateLimiterAbstract | null {
  if (!limit) return null;
  const opts = { points: limit.points, duration: limit.seconds, keyPrefix };
  const memory = new RateLimiterMemory(opts);
  if (!redis) return memory;
  return new RateLimiterRedis({ ...opts, storeClient: redis, rejectIfRedisNotReady: true, insuranceLimiter: memory });
}

export class RateLimits {
  private readonly limiters: Record<Group, Limiters>;
  /** The gateway's own authenticated routes (the console's `GET /console/auth/tokens`): RATE_LIMIT_PER_TOKEN. */
  private readonly own: RateLimiterAbstract | null;

  /** @param prefix Redis key prefix (e.g. `stratum:gw:rl:`). */
  constructor(config: GatewayConfig, redis: Redis | undefined, prefix: string) {
    const make = (group: Group, scope: 'project' | 'token', limit: RateLimit) => makeLimiter(limit, redis, `${prefix}${group}:${scope}`);
    const forGroup = (group: Group): Limiters => {
      const l = groupLimits(config, group);
      return { project: make(group, 'project', l.project), token: make(group, 'token', l.token) };
    };
    this.limiters = { event: forGroup('event'), lbaas: forGroup('lbaas'), domain: forGroup('domain') };
    this.own = makeLimiter(config.RATE_LIMIT_PER_TOKEN, redis, `${prefix}gateway:token`);
  }

  /** True when no group has any limit (the check is skipped). */
  get none(): boolean {
    return Object.values(this.limiters).every((l) => !l.project && !l.token);
  }

  /**
   * Counts one request of `identity` with the token whose cache key is `tokenKey` against the group's limits.
   * @returns null when the request may go on, else the refusal (the project limit is checked first).
   */
  async consume(group: Group, identity: Identity, tokenKey: string): Promise<RateLimitRefusal | null> {
    const l = this.limiters[group];
    const [project, token] = await Promise.all([take(l.project, limitSubject(identity)), take(l.token, tokenKey)]);
    if (project !== null) return { scope: 'project', retryAfterSeconds: project };
    if (token !== null) return { scope: 'token', retryAfterSeconds: token };
    return null;
  }

  /**
   * Counts one request to the gateway's own authenticated routes (the console's `GET /console/auth/tokens`) with the
   * token whose cache key is `tokenKey`, against the default per-token limit (RATE_LIMIT_PER_TOKEN) in a count of its
   * own. @returns null when the request may go on, else the refusal.
   */
  async consumeOwn(tokenKey: string): Promise<RateLimitRefusal | null> {
    const retry = await take(this.own, tokenKey);
    return retry === null ? null : { scope: 'token', retryAfterSeconds: retry };
  }
}

/** Consumes one point. @returns null when allowed, else the seconds until the window resets (≥ 1). */
export async function take(limiter: RateLimiterAbstract | null, key: string): Promise<number | null> {
  if (!limiter) return null;
  try {
    await limiter.consume(key);
    return null;
  } catch (res) {
    if (res instanceof RateLimiterRes) return Math.max(1, Math.ceil(res.msBeforeNext / 1000));
    return null; // the limiter itself failed (Redis and the insurance both): let the request through
  }
}
