/**
 * Composition root of the domain-quota process.
 */
import { connectStore, type Store } from '@stratum/http-kit';
import pino, { type Logger } from 'pino';
import type { DomainQuotaConfig } from './config';
import { DomainQuotasService } from './domain-quotas/domain-quotas.service';
import { RegistryRepository } from './registry/registry.repository';

export interface DomainQuotaDeps {
  config: DomainQuotaConfig;
  logger: Logger;
  store: Store;
  registry: RegistryRepository;
  domainQuotas: DomainQuotasService;
  close(): Promise<void>;
}

export async function createDeps(config: DomainQuotaConfig, logger?: Logger): Promise<DomainQuotaDeps> {
  const log = logger ?? pino({ name: 'domain-quota', level: config.LOG_LEVEL });
  const store = await connectStore(config.MONGODB_URI, config.MONGODB_DATABASE);
  const registry = new RegistryRepository(store.db);
  await registry.ensureIndexes();
  return { config, logger: log, store, registry, domainQuotas: new DomainQuotasService(registry), close: () => store.close() };
}
