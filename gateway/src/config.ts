/**
 * Gateway settings, from the environment, parsed once.
 */
import { parseConfig } from '@stratum/http-kit';
import { z } from 'zod';

export const GatewayEnv = z.object({
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8780),
  /** Upstream base URLs; each service may run on its own host. */
  EVENT_QUERY_URL: z.url().default('http://127.0.0.1:8781'),
  LBAAS_QUOTA_URL: z.url().default('http://127.0.0.1:8782'),
  DOMAIN_QUOTA_URL: z.url().default('http://127.0.0.1:8783'),
  /** Secret shared with the services for signing forwarded identities. */
  STRATUM_IDENTITY_SECRET: z.string().min(16, 'STRATUM_IDENTITY_SECRET must be at least 16 characters'),
  /** Static tokens file (JSON: {"tokens": {"<token>": {user_id, project_id, domain_id, roles}}}). */
  TOKENS_FILE: z.string().min(1),
  /** How long an upstream may take before the gateway answers 504. */
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});
export type GatewayConfig = Readonly<z.infer<typeof GatewayEnv>>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  return parseConfig(GatewayEnv, env);
}
