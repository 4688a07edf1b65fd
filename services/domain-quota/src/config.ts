/**
 * domain-quota settings, from the environment, parsed once.
 */
import { BaseServiceEnv, parseConfig } from '@stratum/http-kit';
import { KeystoneEnv } from '@stratum/keystone';
import { EVENTS_FORWARD_EXCHANGE } from '@stratum/traits';
import { z } from 'zod';

export const DomainQuotaEnv = BaseServiceEnv.extend({
  PORT: z.coerce.number().int().min(0).max(65535).default(8783),
  /**
   * oslo.policy-style policy file (YAML or JSON) overriding the RBAC rules (`[oslo_policy] policy_file`); '' = the
   * defaults. Read once at start: a bad file stops the service. Every rule is listed in etc/policy.yaml.sample.
   */
  POLICY_FILE: z.string().default(''),
  /** How long a quota node stays in the view cache (Redis, or in-process without REDIS_URL), in seconds. */
  QUOTA_CACHE_TTL_S: z.coerce.number().int().min(1).default(60),
  /**
   * How long a process reuses the region catalogue and a department's existence, in milliseconds. Its own registry
   * changes apply at once; another replica's within this time. 0 reads them on every request.
   */
  REGISTRY_CACHE_TTL_MS: z.coerce.number().int().min(0).default(2000),
  /**
   * RabbitMQ URL (`amqp://user:pass@host:5672/vhost`) of the bus the event service forwards identity and volume
   * type events on, and where audit notifications are published; unset = neither (the registry then follows the
   * cloud through its admin endpoints only, and the audit log stays in the store).
   */
  AMQP_URL: z.string().default(''),
  /** The exchange the event service forwards to (its EVENT_FORWARD_EXCHANGE). */
  REGISTRY_EVENTS_EXCHANGE: z.string().min(1).default(EVENTS_FORWARD_EXCHANGE),
  /** The durable queue this service reads forwarded events from (one per deployment; replicas share it). */
  REGISTRY_QUEUE: z.string().min(1).default('stratum.domain-quota.registry'),
  /**
   * The region whose Cinder publishes the volume_type.* events on this bus (Cinder's notifications do not name
   * their region). Empty: the registry's only region, when it has exactly one; otherwise such events are skipped.
   */
  REGISTRY_VOLUME_TYPE_REGION: z.string().default(''),
  /** Topic exchange the audit notifications (`domain_quota.update`) go to, with routing key `notifications.info`. */
  AUDIT_NOTIFICATION_EXCHANGE: z.string().min(1).default('stratum'),
  /** Whether that exchange is declared durable: as oslo.messaging's `amqp_durable_queues` of the consumers (default false). */
  AUDIT_NOTIFICATION_EXCHANGE_DURABLE: z.stringbool().default(false),
  /** How often unpublished audit entries are looked for, in milliseconds. */
  AUDIT_PUBLISH_INTERVAL_MS: z.coerce.number().int().min(50).default(1000),
  /**
   * How often the reconciler looks for department and project edits left unfinished by a process that died between
   * their steps (domain-quotas.reconciler.ts), in milliseconds; it also runs once at start. 0: at start only.
   */
  EDIT_RECONCILE_INTERVAL_MS: z.coerce.number().int().min(0).default(15_000),
  /** Age of an edit's reservation after which the reconciler settles it, in milliseconds. */
  EDIT_LEASE_MS: z.coerce.number().int().min(1000).default(10_000),
  /** Most unfinished edits settled per reconciler pass (the rest wait for the next). */
  EDIT_RECONCILE_BATCH: z.coerce.number().int().min(1).default(100),
}).extend(KeystoneEnv.shape);
export type DomainQuotaConfig = Readonly<z.infer<typeof DomainQuotaEnv>>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): DomainQuotaConfig {
  return parseConfig(DomainQuotaEnv, env);
}
