/**
 * domain-quota settings, from the environment, parsed once.
 */
import { BaseServiceEnv, parseConfig } from '@stratum/http-kit';
import { z } from 'zod';

export const DomainQuotaEnv = BaseServiceEnv.extend({
  PORT: z.coerce.number().int().min(0).max(65535).default(8783),
  /** How long a quota node stays in the view cache (Redis, or in-process without REDIS_URL), in seconds. */
  QUOTA_CACHE_TTL_S: z.coerce.number().int().min(1).default(60),
  /**
   * RabbitMQ for the audit notifications (published) and the registry's identity/volume type events (consumed from
   * the event service's forwarding exchange). Empty: both off; the audit log is still written.
   */
  AMQP_URL: z.string().default(''),
  /** Exchange the audit notifications go to (oslo.messaging style, topic `notifications.info`). */
  AUDIT_NOTIFY_EXCHANGE: z.string().min(1).default('stratum'),
  /** Durable queue of the registry subscriber. */
  REGISTRY_EVENTS_QUEUE: z.string().min(1).default('stratum.domain-quota.registry'),
  /** How often the audit outbox is drained, in milliseconds. */
  AUDIT_PUBLISH_INTERVAL_MS: z.coerce.number().int().min(10).default(1000),
});
export type DomainQuotaConfig = Readonly<z.infer<typeof DomainQuotaEnv>>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): DomainQuotaConfig {
  return parseConfig(DomainQuotaEnv, env);
}
