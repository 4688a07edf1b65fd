/**
 * lbaas-quota settings, from the environment, parsed once.
 * The deployment defaults mirror Octavia's `[quotas] default_*_quota` options (default -1 = unlimited); every replica
 * reads the same configuration, so replicas agree on them.
 */
import { BaseServiceEnv, parseConfig } from '@stratum/http-kit';
import { type LbaasResolved, MAX_QUOTA, MIN_QUOTA } from '@stratum/quota-items';
import { z } from 'zod';

const quota = z.coerce.number().int().min(MIN_QUOTA).max(MAX_QUOTA).default(-1);

export const LbaasQuotaEnv = BaseServiceEnv.extend({
  PORT: z.coerce.number().int().min(0).max(65535).default(8782),
  /**
   * oslo.policy-style policy file (YAML or JSON) overriding the RBAC rules (`[oslo_policy] policy_file`); '' = the
   * defaults. Read once at start: a bad file stops the service. Every rule is listed in etc/policy.yaml.sample.
   */
  POLICY_FILE: z.string().default(''),
  DEFAULT_LOAD_BALANCER_QUOTA: quota,
  DEFAULT_LISTENER_QUOTA: quota,
  DEFAULT_MEMBER_QUOTA: quota,
  DEFAULT_POOL_QUOTA: quota,
  DEFAULT_HEALTH_MONITOR_QUOTA: quota,
  DEFAULT_L7POLICY_QUOTA: quota,
  DEFAULT_L7RULE_QUOTA: quota,
  /**
   * How long a project's quota stays in the show cache (Redis, or in-process without REDIS_URL), in seconds. Also the
   * longest a show can lag a change whose cache update was lost to a Redis outage; enforcement never reads the cache.
   */
  QUOTA_CACHE_TTL_S: z.coerce.number().int().min(1).default(60),
  /** Entries of the in-process cache (used without REDIS_URL). */
  QUOTA_CACHE_MAX: z.coerce.number().int().min(1).default(100_000),
  /**
   * Idempotency keys of consume/release remembered per project: the last IDEMPOTENCY_KEYS_MAX of them, each for at
   * most IDEMPOTENCY_KEY_TTL_S seconds (the IETF idempotency-key draft leaves the window to the server; Stripe keeps
   * keys 24 h). A retry after that counts as a new call.
   */
  IDEMPOTENCY_KEYS_MAX: z.coerce.number().int().min(1).max(10_000).default(100),
  IDEMPOTENCY_KEY_TTL_S: z.coerce.number().int().min(1).default(86_400),
  /** Largest list page (Octavia `[api_settings] pagination_max_limit`). */
  PAGINATION_MAX_LIMIT: z.coerce.number().int().min(1).default(1000),
});
export type LbaasQuotaConfig = Readonly<z.infer<typeof LbaasQuotaEnv>>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): LbaasQuotaConfig {
  return parseConfig(LbaasQuotaEnv, env);
}

/** The deployment defaults as a resource → limit map. */
export function defaultsOf(c: LbaasQuotaConfig): LbaasResolved {
  return {
    load_balancer: c.DEFAULT_LOAD_BALANCER_QUOTA,
    listener: c.DEFAULT_LISTENER_QUOTA,
    member: c.DEFAULT_MEMBER_QUOTA,
    pool: c.DEFAULT_POOL_QUOTA,
    health_monitor: c.DEFAULT_HEALTH_MONITOR_QUOTA,
    l7policy: c.DEFAULT_L7POLICY_QUOTA,
    l7rule: c.DEFAULT_L7RULE_QUOTA,
  };
}
