/**
 * Composition root of the domain-quota process.
 */
import { redisAnswers, revisionCache } from '@stratum/cache';
import { connectStore, type ReadinessCheck, type Store } from '@stratum/http-kit';
import { KeystoneClient } from '@stratum/keystone';
import pino, { type Logger } from 'pino';
import { Connection, type Publisher } from 'rabbitmq-client';
import { AuditLog } from './audit/audit.log';
import { AuditPublisher } from './audit/audit.publisher';
import type { DomainQuotaConfig } from './config';
import { type EditHooks, QuotaTreeEdits } from './domain-quotas/domain-quotas.edits';
import { TreeIntegrity } from './domain-quotas/domain-quotas.integrity';
import { EditReconciler } from './domain-quotas/domain-quotas.reconciler';
import { QuotaTreeRepository } from './domain-quotas/domain-quotas.repository';
import { DomainQuotasService } from './domain-quotas/domain-quotas.service';
import { DomainQuotaPolicy } from './policy';
import { ProjectUsageService } from './registry/project-usage.service';
import { RegistryRepository } from './registry/registry.repository';
import { RegistryService } from './registry/registry.service';
import { RegistrySubscriber } from './registry/registry.subscriber';

export interface DomainQuotaDeps {
  config: DomainQuotaConfig;
  logger: Logger;
  store: Store;
  registry: RegistryRepository;
  /** The quota nodes (the registry's `tree`). */
  tree: QuotaTreeRepository;
  audit: AuditLog;
  domainQuotas: DomainQuotasService;
  registryService: RegistryService;
  /** Per-project actual use and its per-department sums. */
  projectUsage: ProjectUsageService;
  /** The RBAC rules: the defaults, overridden by POLICY_FILE. */
  policy: DomainQuotaPolicy;
  /** The sum check and repair of the quota tree. */
  integrity: TreeIntegrity;
  /** Settles edits left unfinished by a process that died (started here; stopped by close()). */
  reconciler: EditReconciler;
  /** Present when AMQP_URL is set. */
  subscriber?: RegistrySubscriber;
  /** Present when AMQP_URL is set. */
  auditPublisher?: AuditPublisher;
  /** What `GET /ready` reports besides the store. */
  readiness: Record<string, ReadinessCheck>;
  close(): Promise<void>;
}

/**
 * Connects the store and the bus, and starts the edit reconciler and (with AMQP_URL) the subscriber and publisher.
 * @param opts.editHooks runs between the steps of each edit (tests that stop an edit there, as a crash would).
 */
export async function createDeps(
  config: DomainQuotaConfig,
  logger?: Logger,
  opts: { editHooks?: EditHooks } = {},
): Promise<DomainQuotaDeps> {
  const log = logger ?? pino({ name: 'domain-quota', level: config.LOG_LEVEL });
  const policy = DomainQuotaPolicy.load(config.POLICY_FILE); // before any connection: a bad file stops the start
  const store = await connectStore(config.MONGODB_URI, config.MONGODB_DATABASE);
  const cache = revisionCache({
    redisUrl: config.REDIS_URL,
    prefix: `stratum:${config.MONGODB_DATABASE}:dq_quotas:`,
    ttlSeconds: config.QUOTA_CACHE_TTL_S,
    max: 100_000,
  });
  const tree = new QuotaTreeRepository(store.db, cache.cache);
  const registry = new RegistryRepository(store.db, tree, config.REGISTRY_CACHE_TTL_MS);
  await registry.ensureIndexes();
  const audit = new AuditLog(store.db);
  await audit.ensureIndexes();
  const treeEdits = new QuotaTreeEdits(tree, opts.editHooks);
  const registryService = new RegistryService(registry, treeEdits, audit);
  const integrity = new TreeIntegrity(tree, audit);
  const reconciler = new EditReconciler(
    treeEdits,
    tree,
    { intervalMs: config.EDIT_RECONCILE_INTERVAL_MS, leaseMs: config.EDIT_LEASE_MS, batch: config.EDIT_RECONCILE_BATCH },
    log,
  );
  reconciler.start();

  let bus: Connection | undefined;
  let subscriber: RegistrySubscriber | undefined;
  let auditPublisher: AuditPublisher | undefined;
  let publisher: Publisher | undefined;
  if (config.AMQP_URL) {
    bus = new Connection({ url: config.AMQP_URL, connectionName: 'stratum-domain-quota' });
    bus.on('error', (err) => log.warn({ err: String(err) }, 'bus error'));
    subscriber = new RegistrySubscriber(
      bus,
      registryService,
      registry,
      KeystoneClient.fromSettings(config),
      { exchange: config.REGISTRY_EVENTS_EXCHANGE, queue: config.REGISTRY_QUEUE, volumeTypeRegion: config.REGISTRY_VOLUME_TYPE_REGION },
      log,
    );
    await subscriber.start();
    publisher = bus.createPublisher({
      confirm: true,
      maxAttempts: 3,
      exchanges: [{ exchange: config.AUDIT_NOTIFICATION_EXCHANGE, type: 'topic', durable: config.AUDIT_NOTIFICATION_EXCHANGE_DURABLE }],
    });
    auditPublisher = new AuditPublisher(audit, publisher, config.AUDIT_NOTIFICATION_EXCHANGE, config.AUDIT_PUBLISH_INTERVAL_MS, log);
    auditPublisher.start();
    const kick = auditPublisher;
    audit.onWrite = () => kick.kick();
  }

  const close = async () => {
    await reconciler.close();
    await subscriber?.close();
    await auditPublisher?.close();
    await publisher?.close();
    await bus?.close();
    cache.close();
    await store.close();
  };
  const readiness: Record<string, ReadinessCheck> = {};
  const redis = cache.redis;
  if (redis) readiness.redis = { required: false, check: () => redisAnswers(redis) };
  if (bus) readiness.rabbitmq = { required: false, check: async () => bus?.ready === true };
  return {
    readiness,
    config,
    logger: log,
    store,
    registry,
    tree,
    audit,
    domainQuotas: new DomainQuotasService(tree, registry, treeEdits, audit),
    registryService,
    projectUsage: new ProjectUsageService(registry),
    policy,
    integrity,
    reconciler,
    subscriber,
    auditPublisher,
    close,
  };
}
