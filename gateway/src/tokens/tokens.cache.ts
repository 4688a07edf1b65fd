/**
 * The token cache: answers of the token service kept in two tiers, this process (lru-cache) and Redis (shared by the
 * gateway's replicas). Keys are SHA-256 digests of the tokens, so neither tier ever holds a token.
 *
 * - A valid token is kept until the earlier of its `expires_at` and `validSeconds` after Keystone said so
 *   (keystonemiddleware's token_cache_time: how long a revocation may go unnoticed).
 * - A refused token is kept `invalidSeconds` (a burst of bad tokens does not become a burst of Keystone calls).
 * - Redis down (commands fail fast, see `cacheRedis`): the process tier alone serves, and Keystone is asked on its
 *   misses; Redis is used again as soon as it answers.
 */
import { createHash } from 'node:crypto';
import type { Identity } from '@stratum/identity';
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { TokenCacheResult } from '../metrics/metrics';

/** A cached answer: the identity (valid token) or null (refused), and until when it may be used (epoch ms). */
interface Entry {
  identity: Identity | null;
  until: number;
}

export interface TokenCacheOptions {
  redis?: Redis;
  /** Key prefix in Redis. */
  prefix: string;
  maxEntries: number;
  validSeconds: number;
  invalidSeconds: number;
  /** Called once per lookup with where the answer came from. */
  onLookup?: (result: TokenCacheResult) => void;
}

/** The cache key of a token: hex SHA-256. */
export const tokenKey = (token: string): string => createHash('sha256').update(token).digest('hex');

export class TokenCache {
  private readonly memory: LRUCache<string, Entry>;

  constructor(private readonly opts: TokenCacheOptions) {
    this.memory = new LRUCache({ max: opts.maxEntries, ttlAutopurge: false });
  }

  /**
   * The cached answer for a token key: `{ identity }` (null identity = refused), or undefined on a miss.
   * Never throws: a Redis failure is a miss.
   */
  async get(key: string): Promise<{ identity: Identity | null } | undefined> {
    const now = Date.now();
    const local = this.memory.get(key);
    if (local && local.until > now) {
      this.opts.onLookup?.('memory');
      return { identity: local.identity };
    }
    if (this.opts.redis) {
      try {
        const raw = await this.opts.redis.get(this.opts.prefix + key);
        const entry = raw ? (JSON.parse(raw) as Entry) : undefined;
        if (entry && entry.until > now) {
          this.memory.set(key, entry, { ttl: entry.until - now });
          this.opts.onLookup?.('redis');
          return { identity: entry.identity };
        }
      } catch {
        // Redis unreachable or slow: a miss; the caller asks the token service.
      }
    }
    this.opts.onLookup?.('miss');
    return undefined;
  }

  /**
   * Keeps the token service's answer: `identity` valid until `expiresAt` (epoch ms), or null for a refusal.
   * Never throws.
   */
  async set(key: string, identity: Identity | null, expiresAt = Number.POSITIVE_INFINITY): Promise<void> {
    const now = Date.now();
    const until = identity ? Math.min(expiresAt, now + this.opts.validSeconds * 1000) : now + this.opts.invalidSeconds * 1000;
    const ttl = Math.floor(until - now);
    if (ttl <= 0) return;
    const entry: Entry = { identity, until };
    this.memory.set(key, entry, { ttl });
    if (!this.opts.redis) return;
    try {
      await this.opts.redis.set(this.opts.prefix + key, JSON.stringify(entry), 'PX', ttl);
    } catch {
      // Not shared this time; the process tier has it.
    }
  }
}
