/**
 * A Keystone v3 client acting as a service user (keystoneauth's `password` plugin, reduced to what Stratum needs):
 * it authenticates with `POST /v3/auth/tokens` (password method, project scope), keeps the token until shortly
 * before its `expires_at`, re-authenticates once on a 401, and reads projects and domains. It also validates users'
 * tokens (the gateway's token check) and issues tokens for users' own credentials (the console's sign-in).
 */
import { z } from 'zod';

/** The service credentials, from the environment (the names of keystonemiddleware's `[keystone_authtoken]`). */
export const KeystoneEnv = z.object({
  /** Keystone's public endpoint, e.g. `http://keystone:5000/v3` (with or without `/v3`); '' = no Keystone. */
  KEYSTONE_URL: z.string().default(''),
  KEYSTONE_USERNAME: z.string().default(''),
  KEYSTONE_PASSWORD: z.string().default(''),
  KEYSTONE_USER_DOMAIN_NAME: z.string().default('Default'),
  KEYSTONE_PROJECT_NAME: z.string().default('service'),
  KEYSTONE_PROJECT_DOMAIN_NAME: z.string().default('Default'),
  /** Per-request timeout, in milliseconds. */
  KEYSTONE_TIMEOUT_MS: z.coerce.number().int().min(100).default(5000),
});
export type KeystoneSettings = z.infer<typeof KeystoneEnv>;

export interface KeystoneProject {
  id: string;
  name: string;
  domain_id: string;
  is_domain: boolean;
  enabled: boolean;
}
export interface KeystoneDomain {
  id: string;
  name: string;
  enabled: boolean;
}

/** Keystone answered something other than the expected success (or could not be reached). */
export class KeystoneError extends Error {
  constructor(
    message: string,
    /** HTTP status, or 0 when Keystone could not be reached or did not answer in time. */
    readonly status: number,
  ) {
    super(message);
    this.name = 'KeystoneError';
  }
}

/**
 * A validated token's body (`GET /v3/auth/tokens` → `token`), reduced to what decides a caller's identity: exactly one
 * of `project` (project scope), `domain` (domain scope) or `system` (system scope) is present on a scoped token.
 */
export interface KeystoneToken {
  expires_at: string;
  user: { id: string; name?: string; domain?: { id: string; name?: string } };
  roles?: { id: string; name: string }[];
  project?: { id: string; name?: string; domain: { id: string; name?: string } };
  domain?: { id: string; name?: string };
  system?: { all?: boolean };
}

/**
 * What `POST /v3/auth/tokens?nocatalog` answered for a user's credentials (issueToken):
 * - `issued`: 201 with `X-Subject-Token` (`token`) and the token's body (`body`: Keystone's `token`, no catalog);
 * - `refused`: Keystone did not accept the credentials or scope (401, and 403/404 which it answers for some scopes);
 * - `invalid`: Keystone found the request malformed (400; its message is not kept: it may echo what was sent).
 * Keystone unreachable, slow or failing (5xx) is a thrown KeystoneError instead.
 */
export type IssueResult =
  | { kind: 'issued'; token: string; body: KeystoneIssuedToken }
  | { kind: 'refused'; status: number }
  | { kind: 'invalid' };

/** The body of an issued token (`POST /v3/auth/tokens` → `token`), as Keystone gives it. */
export interface KeystoneIssuedToken extends KeystoneToken {
  issued_at?: string;
  methods?: string[];
  [key: string]: unknown;
}

/** Renew the service token this long before Keystone says it expires, in milliseconds (at most a quarter of its life). */
const RENEW_BEFORE_MS = 60_000;

export class KeystoneClient {
  private readonly base: string;
  private token: { value: string; renewAt: number } | null = null;
  private pending: Promise<string> | null = null;

  constructor(private readonly settings: KeystoneSettings) {
    if (!settings.KEYSTONE_URL) throw new Error('KEYSTONE_URL is not set');
    this.base = settings.KEYSTONE_URL.replace(/\/+$/, '').replace(/\/v3$/, '');
  }

  /** A client when KEYSTONE_URL is set, else undefined. */
  static fromSettings(settings: KeystoneSettings): KeystoneClient | undefined {
    return settings.KEYSTONE_URL ? new KeystoneClient(settings) : undefined;
  }

  private async request(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Response> {
    try {
      return await fetch(`${this.base}${path}`, {
        method,
        headers: { Accept: 'application/json', ...(body ? { 'Content-Type': 'application/json' } : {}), ...headers },
        body: body ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(this.settings.KEYSTONE_TIMEOUT_MS),
      });
    } catch (e) {
      throw new KeystoneError(`Keystone at ${this.base} is unreachable: ${(e as Error).message}`, 0);
    }
  }

  /**
   * The service user's token, authenticating when there is none or it is about to expire (one request at a time).
   * @throws KeystoneError when Keystone refuses the credentials or cannot be reached.
   */
  async serviceToken(): Promise<string> {
    if (this.token && this.token.renewAt > Date.now()) return this.token.value;
    this.pending ??= this.authenticate().finally(() => {
      this.pending = null;
    });
    return this.pending;
  }

  private async authenticate(): Promise<string> {
    const s = this.settings;
    const res = await this.request(
      'POST',
      '/v3/auth/tokens',
      {},
      {
        auth: {
          identity: {
            methods: ['password'],
            password: { user: { name: s.KEYSTONE_USERNAME, domain: { name: s.KEYSTONE_USER_DOMAIN_NAME }, password: s.KEYSTONE_PASSWORD } },
          },
          scope: { project: { name: s.KEYSTONE_PROJECT_NAME, domain: { name: s.KEYSTONE_PROJECT_DOMAIN_NAME } } },
        },
      },
    );
    const value = res.headers.get('x-subject-token');
    if (res.status !== 201 || !value) throw new KeystoneError(`Keystone refused the service credentials (HTTP ${res.status})`, res.status);
    const body = (await res.json()) as { token?: { expires_at?: string } };
    const expiresAt = Date.parse(body.token?.expires_at ?? '') || Date.now() + RENEW_BEFORE_MS * 2;
    // Renew a minute early, or a quarter of the lifetime early when tokens live less than four minutes.
    this.token = { value, renewAt: expiresAt - Math.min(RENEW_BEFORE_MS, (expiresAt - Date.now()) / 4) };
    return value;
  }

  /**
   * Issues a token for a user's own credentials: `POST /v3/auth/tokens?nocatalog` with `auth` (Keystone's v3 request
   * body, sent as is), without the service token. The password is never part of an error message.
   * @returns the token and its body, or why Keystone did not issue one (IssueResult).
   * @throws KeystoneError (status 0) when Keystone cannot be reached or does not answer within KEYSTONE_TIMEOUT_MS,
   *   and with the status when it fails (5xx, or a 201 without a token or a readable body).
   */
  async issueToken(auth: unknown): Promise<IssueResult> {
    const res = await this.request('POST', '/v3/auth/tokens?nocatalog', {}, auth);
    if (res.status === 401 || res.status === 403 || res.status === 404) {
      await res.body?.cancel().catch(() => undefined);
      return { kind: 'refused', status: res.status };
    }
    if (res.status === 400) {
      await res.body?.cancel().catch(() => undefined);
      return { kind: 'invalid' };
    }
    const token = res.headers.get('x-subject-token');
    let body: { token?: KeystoneIssuedToken } | undefined;
    try {
      body = res.status === 201 && token ? ((await res.json()) as { token?: KeystoneIssuedToken }) : undefined;
    } catch {
      body = undefined; // an answer cut off or not JSON (a timeout while reading included)
    }
    if (!token || !body?.token || typeof body.token !== 'object') {
      await res.body?.cancel().catch(() => undefined);
      throw new KeystoneError(`Keystone answered ${res.status} to POST /v3/auth/tokens without a token`, res.status);
    }
    return { kind: 'issued', token, body: body.token };
  }

  /** GET with the service token; a 401 (a revoked token) re-authenticates once. @returns the body, or null on 404. */
  private async get<T>(path: string, headers: Record<string, string> = {}): Promise<T | null> {
    for (let attempt = 0; ; attempt++) {
      const res = await this.request('GET', path, { ...headers, 'X-Auth-Token': await this.serviceToken() });
      if (res.status === 401 && attempt === 0) {
        this.token = null;
        continue;
      }
      if (res.status === 404) return null;
      if (res.status !== 200) throw new KeystoneError(`Keystone answered ${res.status} to GET ${path}`, res.status);
      return (await res.json()) as T;
    }
  }

  /** `GET /v3/projects/{id}`. @returns null when Keystone has no such project. @throws KeystoneError. */
  async getProject(projectId: string): Promise<KeystoneProject | null> {
    const body = await this.get<{ project: KeystoneProject }>(`/v3/projects/${encodeURIComponent(projectId)}`);
    return body?.project ?? null;
  }

  /** `GET /v3/domains/{id}`. @returns null when Keystone has no such domain. @throws KeystoneError. */
  async getDomain(domainId: string): Promise<KeystoneDomain | null> {
    const body = await this.get<{ domain: KeystoneDomain }>(`/v3/domains/${encodeURIComponent(domainId)}`);
    return body?.domain ?? null;
  }

  /**
   * Validates a user's token as keystonemiddleware does: `GET /v3/auth/tokens?nocatalog` with the service token and
   * `X-Subject-Token`. Keystone answers 404 for a token that is malformed, expired or revoked.
   * @returns the token's body, or null when Keystone says the token is not valid.
   * @throws KeystoneError when Keystone cannot be reached, refuses the service user, or fails (5xx).
   */
  async validateToken(subjectToken: string): Promise<KeystoneToken | null> {
    const body = await this.get<{ token: KeystoneToken }>('/v3/auth/tokens?nocatalog', { 'X-Subject-Token': subjectToken });
    return body?.token ?? null;
  }
}
