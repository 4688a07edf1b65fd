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
   * How old (or, with clock skew, how far ahead) a gateway signature may be, in seconds. The signature is bound to
   * one request (method, path and query, body digest), so this only bounds the replay of that same request by someone
   * who captured it, and the skew tolerated between the gateway's clock and the service's (NTP keeps hosts well within
   * a second). 10 s leaves room for a slow upstream queue without keeping a captured request good for long.
   */
  IDENTITY_MAX_AGE_SECONDS: z.coerce.number().int().min(1).max(300).default(10),
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
