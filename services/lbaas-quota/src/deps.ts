/**
 * Composition root of the lbaas-quota process.
 */
import { cacheRedis, MemoryRevisionCache, RedisRevisionCache } from '@stratum/cache';
import { connectStore, type Store } from '@stratum/http-kit';
import pino, { type Logger } from 'pino';
import { defaultsOf, type LbaasQuotaConfig } from './config';
import { QuotasRepository } from './quotas/quotas.repository';
import { QuotasService } from './quotas/quotas.service';

export interface LbaasQuotaDeps {
  config: LbaasQuotaConfig;
  logger: Logger;
  store: Store;
  quotas: QuotasService;
  close(): Promise<void>;
}

export async function createDeps(config: LbaasQuotaConfig, logger?: Logger): Promise<LbaasQuotaDeps> {
  const log = logger ?? pino({ name: 'lbaas-quota', level: config.LOG_LEVEL });
  const store = await connectStore(config.MONGODB_URI, config.MONGODB_DATABASE);
  const redis = config.REDIS_URL ? cacheRedis(config.REDIS_URL) : undefined;
  const cache = redis
    ? new RedisRevisionCache(redis, `stratum:${config.MONGODB_DATABASE}:lbaas_quotas:`, config.QUOTA_CACHE_TTL_S)
    : new MemoryRevisionCache(config.QUOTA_CACHE_MAX, config.QUOTA_CACHE_TTL_S);
  const repo = new QuotasRepository(store.db, cache);
  await repo.ensureIndexes();
  const quotas = new QuotasService(repo, Object.freeze(defaultsOf(config)), config.PAGINATION_MAX_LIMIT);
  const close = async () => {
    redis?.disconnect();
    await store.close();
  };
  return { config, logger: log, store, quotas, close };
}
