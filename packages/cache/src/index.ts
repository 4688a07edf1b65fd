/**
 * Revision-checked caches of record heads (the RevisionCache of @stratum/revisions), in two kinds with one interface:
 * - Redis (ioredis), shared by every replica: `offer` is one Lua script that keeps the newer revision, entries expire
 *   after `ttlSeconds`; when Redis is down, calls fail fast (no offline queue, short command timeout) and count as
 *   misses, so requests fall through to the store and the cache comes back by itself;
 * - in-process LRU (lru-cache), for the embedded default's single process. It cannot see other replicas' writes:
 *   deployments with more than one replica must give a Redis URL.
 */
import type { RevisionCache } from '@stratum/revisions';
import { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';

/** Keeps ARGV[1] (revision) + ARGV[2] (JSON) under KEYS[1] for ARGV[3] seconds unless a newer revision is there. */
const OFFER = `
local cur = redis.call('GET', KEYS[1])
if cur then
  local r = tonumber(string.match(cur, '^(%d+):'))
  if r and r > tonumber(ARGV[1]) then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. ARGV[2], 'EX', ARGV[3])
return 1
`;

function decode(raw: string | null | undefined): { revision: number; json: string } | null {
  if (!raw) return null;
  const colon = raw.indexOf(':');
  const revision = Number(raw.slice(0, colon));
  return colon > 0 && Number.isInteger(revision) ? { revision, json: raw.slice(colon + 1) } : null;
}

/** Heads in Redis under `<prefix><key>`, as `<revision>:<json>`. */
export class RedisRevisionCache implements RevisionCache {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly ttlSeconds: number,
  ) {}

  async get(key: string) {
    try {
      return decode(await this.redis.get(this.prefix + key));
    } catch {
      return null;
    }
  }

  async offer(key: string, revision: number, json: string): Promise<void> {
    try {
      await this.redis.eval(OFFER, 1, this.prefix + key, String(revision), json, String(this.ttlSeconds));
    } catch {
      // A cache that cannot be written is a cache that misses; the entry expires or is overwritten later.
    }
  }
}

/** Heads in this process only (one replica). */
export class MemoryRevisionCache implements RevisionCache {
  private readonly lru: LRUCache<string, { revision: number; json: string }>;

  constructor(max: number, ttlSeconds: number) {
    this.lru = new LRUCache({ max, ttl: ttlSeconds * 1000 });
  }

  async get(key: string) {
    return this.lru.get(key) ?? null;
  }

  async offer(key: string, revision: number, json: string): Promise<void> {
    const cur = this.lru.get(key);
    if (!cur || cur.revision <= revision) this.lru.set(key, { revision, json });
  }
}

/**
 * A Redis client for caches: commands fail within `commandTimeoutMs` instead of queueing while Redis is away, and it
 * reconnects by itself.
 */
export function cacheRedis(url: string, commandTimeoutMs = 200): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: commandTimeoutMs,
    lazyConnect: false,
    // The reads of one request (a view reads several records at once) share a round trip.
    enableAutoPipelining: true,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
  redis.on('error', () => undefined); // reported as misses; ioredis keeps reconnecting
  return redis;
}

/**
 * The revision cache a service configures: Redis under `prefix` when `redisUrl` is set (replicas share it), else an
 * in-process LRU of `max` entries.
 * @returns the cache and how to release its connection.
 */
export function revisionCache(opts: { redisUrl: string; prefix: string; ttlSeconds: number; max: number }): {
  cache: RevisionCache;
  /** The Redis client, when the cache is in Redis (for readiness checks). */
  redis?: Redis;
  close(): void;
} {
  if (!opts.redisUrl) return { cache: new MemoryRevisionCache(opts.max, opts.ttlSeconds), close: () => undefined };
  const redis = cacheRedis(opts.redisUrl);
  return { cache: new RedisRevisionCache(redis, opts.prefix, opts.ttlSeconds), redis, close: () => redis.disconnect() };
}

/** Whether Redis answers PING now (readiness checks). Never throws. */
export async function redisAnswers(redis: Redis): Promise<boolean> {
  try {
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  }
}
