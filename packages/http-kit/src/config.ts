/**
 * Settings every service reads from its environment, parsed once with zod.
 */
import { z } from 'zod';

/** Environment keys shared by all services. Each service extends this schema with its own keys. */
export const BaseServiceEnv = z.object({
  /** Listen address; 127.0.0.1 unless the service must be reached from other hosts. */
  HOST: z.string().default('127.0.0.1'),
  /** MongoDB connection string (FerretDB or MongoDB). */
  MONGODB_URI: z.string().min(1).default('mongodb://127.0.0.1:27017/'),
  /** Database (MongoDB sense) holding this service's collections. */
  MONGODB_DATABASE: z.string().min(1).default('stratum'),
  /** Shared secret the gateway signs forwarded identities with. Required: a service never trusts unsigned headers. */
  STRATUM_IDENTITY_SECRET: z.string().min(16, 'STRATUM_IDENTITY_SECRET must be at least 16 characters'),
  /**
   * Redis for caches shared by replicas (`redis://host:6379/0`). Empty: an in-process cache, right for one process
   * (the embedded default); more than one replica needs Redis, or a replica would not see another's writes.
   */
  REDIS_URL: z.string().default(''),
  /** pino level. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

/**
 * Parses `env` with `schema` and freezes the result.
 * @throws Error listing every invalid key, so a misconfigured process fails at start, not on a request.
 */
export function parseConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv): Readonly<z.infer<S>> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid configuration:\n${lines.join('\n')}`);
  }
  return Object.freeze(parsed.data);
}
