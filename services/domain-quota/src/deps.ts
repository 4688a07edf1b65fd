/**
 * Composition root of the domain-quota process.
 */
import { revisionCache } from '@stratum/cache';
import { connectStore, type Store } from '@stratum/http-kit';
import pino, { type Logger } from 'pino';
import { AuditLog } from './audit/audit.log';
import type { DomainQuotaConfig } from './config';
import { QuotaTreeEdits } from './domain-quotas/domain-quotas.edits';
import { DomainQuotasService } from './domain-quotas/domain-quotas.service';
import { RegistryRepository } from './registry/registry.repository';
import { RegistryService } from './registry/registry.service';

export interface DomainQuotaDeps {
  config: DomainQuotaConfig;
  logger: Logger;
  store: Store;
  registry: RegistryRepository;
  audit: AuditLog;
  domainQuotas: DomainQuotasService;
  registryService: RegistryService;
  close(): Promise<void>;
}

export async function createDeps(config: DomainQuotaConfig, logger?: Logger): Promise<DomainQuotaDeps> {
  const log = logger ?? pino({ name: 'domain-quota', level: config.LOG_LEVEL });
  const store = await connectStore(config.MONGODB_URI, config.MONGODB_DATABASE);
  const cache = revisionCache({
    redisUrl: config.REDIS_URL,
    prefix: `stratum:${config.MONGODB_DATABASE}:dq_quotas:`,
    ttlSeconds: config.QUOTA_CACHE_TTL_S,
    max: 100_000,
  });
  const registry = new RegistryRepository(store.db, cache.cache);
  await registry.ensureIndexes();
  const audit = new AuditLog(store.db);
  await audit.ensureIndexes();
  const close = async () => {
    cache.close();
    await store.close();
  };
  const edits = new QuotaTreeEdits(registry);
  return {
    config,
    logger: log,
    store,
    registry,
    audit,
    domainQuotas: new DomainQuotasService(registry, edits, audit),
    registryService: new RegistryService(registry, edits, audit),
    close,
  };
}
