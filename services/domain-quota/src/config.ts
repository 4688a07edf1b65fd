/**
 * domain-quota settings, from the environment, parsed once.
 */
import { BaseServiceEnv, parseConfig } from '@stratum/http-kit';
import { z } from 'zod';

export const DomainQuotaEnv = BaseServiceEnv.extend({
  PORT: z.coerce.number().int().min(0).max(65535).default(8783),
  /** How long a quota node stays in the view cache (Redis, or in-process without REDIS_URL), in seconds. */
  QUOTA_CACHE_TTL_S: z.coerce.number().int().min(1).default(60),
});
export type DomainQuotaConfig = Readonly<z.infer<typeof DomainQuotaEnv>>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): DomainQuotaConfig {
  return parseConfig(DomainQuotaEnv, env);
}
