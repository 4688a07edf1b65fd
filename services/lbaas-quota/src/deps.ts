/**
 * Composition root of the lbaas-quota process.
 */
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
  const repo = new QuotasRepository(store.db);
  await repo.ensureIndexes();
  const quotas = new QuotasService(repo, Object.freeze(defaultsOf(config)), config.PAGINATION_MAX_LIMIT);
  return { config, logger: log, store, quotas, close: () => store.close() };
}
