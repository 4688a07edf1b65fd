/**
 * Composition root of the lbaas-quota process.
 */
import { redisAnswers, revisionCache } from '@stratum/cache';
import { connectStore, type ReadinessCheck, type Store } from '@stratum/http-kit';
import pino, { type Logger } from 'pino';
import { defaultsOf, type LbaasQuotaConfig } from './config';
import { QuotaPolicy } from './quotas/quotas.policy';
import { QuotasRepository } from './quotas/quotas.repository';
import { QuotasService } from './quotas/quotas.service';

export interface LbaasQuotaDeps {
  config: LbaasQuotaConfig;
  logger: Logger;
  store: Store;
  quotas: QuotasService;
  /** The RBAC rules: the defaults, overridden by POLICY_FILE. */
  policy: QuotaPolicy;
  /** What `GET /ready` reports besides the store. */
  readiness: Record<string, ReadinessCheck>;
  close(): Promise<void>;
}

export async function createDeps(config: LbaasQuotaConfig, logger?: Logger): Promise<LbaasQuotaDeps> {
  const log = logger ?? pino({ name: 'lbaas-quota', level: config.LOG_LEVEL });
  const policy = QuotaPolicy.load(config.POLICY_FILE); // before any connection: a bad file stops the start
  const store = await connectStore(config.MONGODB_URI, config.MONGODB_DATABASE);
  const cache = revisionCache({
    redisUrl: config.REDIS_URL,
    prefix: `stratum:${config.MONGODB_DATABASE}:lbaas_quotas:`,
    ttlSeconds: config.QUOTA_CACHE_TTL_S,
    max: config.QUOTA_CACHE_MAX,
  });
  // Projects are keyed by `_id`, which the store indexes already: no index to create.
  const repo = new QuotasRepository(store.db, cache.cache);
  const quotas = new QuotasService(repo, Object.freeze(defaultsOf(config)), config.PAGINATION_MAX_LIMIT, {
    maxKeys: config.IDEMPOTENCY_KEYS_MAX,
    ttlMs: config.IDEMPOTENCY_KEY_TTL_S * 1000,
  });
  const close = async () => {
    cache.close();
    await store.close();
  };
  const redis = cache.redis;
  const readiness: Record<string, ReadinessCheck> = redis ? { redis: { required: false, check: () => redisAnswers(redis) } } : {};
  return { config, logger: log, store, quotas, policy, readiness, close };
}
