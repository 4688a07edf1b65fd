/**
 * Gateway settings, from the environment, parsed once.
 */
import { BaseServiceEnv, parseConfig } from '@stratum/http-kit';
import { KeystoneEnv } from '@stratum/keystone';
import { z } from 'zod';
import { parseTrustedProxies } from './public-url';

/**
 * A rate limit, `<requests>/<seconds>` (e.g. `600/60`: 600 requests a minute); `0` or empty = no limit.
 * Parsed to `{ points, seconds }` or null.
 */
export const RateLimit = z
  .string()
  .trim()
  .transform((text, ctx) => {
    if (text === '' || text === '0') return null;
    const m = /^(\d+)\/(\d+)$/.exec(text);
    const points = Number(m?.[1]);
    const seconds = Number(m?.[2]);
    if (!m || points < 1 || seconds < 1) {
      ctx.addIssue({ code: 'custom', message: `expected <requests>/<seconds> (e.g. 600/60) or 0, got "${text}"` });
      return z.NEVER;
    }
    return { points, seconds };
  });
export type RateLimit = z.infer<typeof RateLimit>;

/** An absolute http(s) URL without query or fragment, or empty. */
const PublicUrl = z
  .string()
  .trim()
  .default('')
  .refine((v) => {
    if (v === '') return true;
    try {
      const u = new URL(v);
      return (
        (u.protocol === 'http:' || u.protocol === 'https:') && u.search === '' && u.hash === '' && u.username === '' && u.password === ''
      );
    } catch {
      return false;
    }
  }, 'expected an absolute http(s) URL without query, fragment or credentials, e.g. https://api.example.com');

/**
 * One upstream service: a base URL, or several (its replicas) separated by commas, each an absolute http(s) URL.
 * Parsed to the list, in order. In Kubernetes it is the Service's one name (the cluster spreads the connections).
 */
const UpstreamUrls = z.string().transform((text, ctx) => {
  const urls = text
    .split(',')
    .map((u) => u.trim())
    .filter((u) => u !== '');
  const bad = urls.filter((u) => !/^https?:$/.test(URL.parse(u)?.protocol ?? ''));
  if (urls.length === 0 || bad.length > 0) {
    ctx.addIssue({ code: 'custom', message: `expected one or more http(s) URLs separated by commas, got "${text.slice(0, 200)}"` });
    return z.NEVER;
  }
  if (new Set(urls).size !== urls.length) {
    ctx.addIssue({ code: 'custom', message: 'a replica is listed twice' });
    return z.NEVER;
  }
  return urls;
});

/**
 * The gateway's settings. HOST, STRATUM_IDENTITY_SECRET, REDIS_URL and LOG_LEVEL are the services' own keys
 * (http-kit BaseServiceEnv), read the same way; the gateway has no store (no MONGODB_* keys). Its Redis, when set, is
 * shared by the gateway replicas for the token cache and the rate-limit counters; empty, or while Redis is down, both
 * live in this process.
 */
export const GatewayEnv = BaseServiceEnv.pick({ HOST: true, STRATUM_IDENTITY_SECRET: true, REDIS_URL: true, LOG_LEVEL: true })
  .extend({
    PORT: z.coerce.number().int().min(0).max(65535).default(8780),
    /** Upstream base URLs, each a list of replicas (UpstreamUrls); each service may run on its own hosts. */
    EVENT_QUERY_URL: UpstreamUrls.default(['http://127.0.0.1:8781']),
    LBAAS_QUOTA_URL: UpstreamUrls.default(['http://127.0.0.1:8782']),
    DOMAIN_QUOTA_URL: UpstreamUrls.default(['http://127.0.0.1:8783']),
    /** How long a replica that failed to connect is skipped (unless every replica of its service is), in milliseconds. */
    UPSTREAM_COOLDOWN_MS: z.coerce.number().int().min(0).default(2000),
    /**
     * How long connecting to a replica may take before it counts as unreachable (a 504, a read retried elsewhere), in
     * milliseconds; only for a service with several replicas (with one, UPSTREAM_TIMEOUT_MS alone applies, as before).
     */
    UPSTREAM_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(10).default(2000),
    /**
     * The gateway's public URL (`https://api.example.com`), on which links are built (versions documents, paging
     * links, WWW-Authenticate), followed by the group prefix the client used. Empty: the request's own Host, or a
     * trusted proxy's forwarded host. Set it in production: it is keystonemiddleware's `www_authenticate_uri`.
     */
    PUBLIC_URL: PublicUrl,
    /** A group's own public URL (its links use it as is, without a prefix); empty = PUBLIC_URL. */
    PUBLIC_URL_EVENT: PublicUrl,
    PUBLIC_URL_LBAAS: PublicUrl,
    PUBLIC_URL_DOMAIN: PublicUrl,
    /**
     * Proxies (IP addresses or CIDR blocks, comma-separated) whose `Forwarded`/`X-Forwarded-*` headers are believed
     * (oslo.middleware's `enable_proxy_headers_parsing`); empty (the default) = nobody's. From any other peer those
     * headers are removed.
     */
    TRUSTED_PROXIES: z
      .string()
      .default('')
      .transform((text, ctx) => {
        try {
          return parseTrustedProxies(text);
        } catch (err) {
          ctx.addIssue({ code: 'custom', message: (err as Error).message });
          return z.NEVER;
        }
      }),
    /**
     * Static tokens file (JSON: {"tokens": {"<token>": {user_id, project_id, domain_id, roles}}}): the embedded
     * default. Exactly one of TOKENS_FILE and KEYSTONE_URL is set.
     */
    TOKENS_FILE: z.string().default(''),
    /** Longest a valid Keystone token is trusted without asking Keystone again, in seconds (keystonemiddleware's token_cache_time); never past the token's expires_at. */
    TOKEN_CACHE_SECONDS: z.coerce.number().int().min(0).default(300),
    /** How long a token Keystone refused stays refused without asking again, in seconds. */
    TOKEN_NEGATIVE_CACHE_SECONDS: z.coerce.number().int().min(0).default(5),
    /** Entries of the in-process token cache. */
    TOKEN_CACHE_MAX_ENTRIES: z.coerce.number().int().min(1).default(10_000),
    /** Default rate limits per project (or domain, for a domain-scoped token) and per token, for every route group. */
    RATE_LIMIT_PER_PROJECT: RateLimit.default(null),
    RATE_LIMIT_PER_TOKEN: RateLimit.default(null),
    /** Per-group overrides of the two limits above (group: EVENT, LBAAS, DOMAIN); unset = the default. */
    RATE_LIMIT_EVENT_PER_PROJECT: RateLimit.optional(),
    RATE_LIMIT_EVENT_PER_TOKEN: RateLimit.optional(),
    RATE_LIMIT_LBAAS_PER_PROJECT: RateLimit.optional(),
    RATE_LIMIT_LBAAS_PER_TOKEN: RateLimit.optional(),
    RATE_LIMIT_DOMAIN_PER_PROJECT: RateLimit.optional(),
    RATE_LIMIT_DOMAIN_PER_TOKEN: RateLimit.optional(),
    /**
     * Limits of the console's Keystone sign-in (`POST /console/auth/tokens`, sign-in/), every attempt counted: per
     * client address (the peer's, or a trusted proxy's forwarded one) and per user (domain and name, lower-cased).
     * They slow password guessing; `0` = no limit.
     */
    RATE_LIMIT_SIGN_IN_PER_ADDRESS: RateLimit.default({ points: 30, seconds: 60 }),
    RATE_LIMIT_SIGN_IN_PER_USER: RateLimit.default({ points: 10, seconds: 60 }),
    /** How long an upstream may take before the gateway answers 504, in milliseconds. */
    UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
    /** Largest request body the gateway forwards, in bytes; larger is a 413. */
    MAX_BODY_BYTES: z.coerce.number().int().min(1).default(1_048_576),
    /** Prometheus metrics (`GET /metrics`) listen here, apart from the API; empty port = no metrics listener. */
    METRICS_HOST: z.string().default('127.0.0.1'),
    METRICS_PORT: z
      .string()
      .default('')
      .transform((v, ctx) => {
        if (v === '') return null;
        const n = Number(v);
        if (!Number.isInteger(n) || n < 0 || n > 65535) {
          ctx.addIssue({ code: 'custom', message: 'METRICS_PORT must be a port number or empty' });
          return z.NEVER;
        }
        return n;
      }),
  })
  .extend(KeystoneEnv.shape)
  .superRefine((c, ctx) => {
    if ((c.TOKENS_FILE === '') === (c.KEYSTONE_URL === '')) {
      ctx.addIssue({
        code: 'custom',
        path: ['KEYSTONE_URL'],
        message: 'set exactly one of KEYSTONE_URL (Keystone tokens) and TOKENS_FILE (static tokens)',
      });
    }
    if (c.KEYSTONE_URL && (!c.KEYSTONE_USERNAME || !c.KEYSTONE_PASSWORD)) {
      ctx.addIssue({
        code: 'custom',
        path: ['KEYSTONE_USERNAME'],
        message: 'KEYSTONE_USERNAME and KEYSTONE_PASSWORD (the service user) are required with KEYSTONE_URL',
      });
    }
  });
export type GatewayConfig = Readonly<z.infer<typeof GatewayEnv>>;

/**
 * Parses the gateway's settings from `env`.
 * @throws Error listing every invalid key (http-kit parseConfig).
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  return parseConfig(GatewayEnv, env);
}
