/**
 * Keystone tokens, validated as keystonemiddleware's auth_token does (`GET /v3/auth/tokens` with the service token and
 * `X-Subject-Token`), answers cached in a TokenCache, concurrent checks of one token sharing one Keystone call.
 */
import type { Identity } from '@stratum/identity';
import { type KeystoneClient, KeystoneError, type KeystoneToken } from '@stratum/keystone';
import type { Logger } from 'pino';
import { IDENTITY_UNAVAILABLE } from '../errors';
import { type TokenCache, tokenKey } from './tokens.cache';
import { IdentityUnavailable, type TokenValidator } from './tokens.types';

/**
 * The identity a validated token stands for (the headers keystonemiddleware would set):
 * - project scope: the project and the project's domain;
 * - domain scope: the domain, no project (a department admin holds `admin` here);
 * - system scope: neither (a system `admin` is a cloud admin);
 * - unscoped: neither, and no roles (every policy refuses it).
 */
export function identityOfToken(token: KeystoneToken): Identity {
  const scoped = Boolean(token.project || token.domain || token.system);
  return {
    userId: token.user.id,
    projectId: token.project?.id ?? null,
    domainId: token.project?.domain.id ?? token.domain?.id ?? null,
    roles: scoped ? (token.roles ?? []).map((r) => r.name.toLowerCase()) : [],
  };
}

export class KeystoneTokens implements TokenValidator {
  private readonly inflight = new Map<string, Promise<Identity | null>>();

  constructor(
    private readonly client: KeystoneClient,
    private readonly cache: TokenCache,
    private readonly logger: Logger,
  ) {}

  /**
   * @returns the token's identity, or null when Keystone says it is not valid (malformed, expired, revoked).
   * @throws IdentityUnavailable when Keystone cannot answer (unreachable, timed out, 5xx, service user refused).
   */
  async validate(token: string): Promise<Identity | null> {
    const key = tokenKey(token);
    const cached = await this.cache.get(key);
    if (cached) return cached.identity;
    let pending = this.inflight.get(key);
    if (!pending) {
      pending = this.ask(key, token).finally(() => this.inflight.delete(key));
      this.inflight.set(key, pending);
    }
    return pending;
  }

  private async ask(key: string, token: string): Promise<Identity | null> {
    let body: KeystoneToken | null;
    try {
      body = await this.client.validateToken(token);
    } catch (err) {
      const status = err instanceof KeystoneError ? err.status : 0;
      this.logger.error({ status, err: (err as Error).message }, 'token validation failed');
      throw new IdentityUnavailable(IDENTITY_UNAVAILABLE);
    }
    const expiresAt = body ? Date.parse(body.expires_at) : Number.NaN;
    if (!body || !(expiresAt > Date.now())) {
      await this.cache.set(key, null);
      return null;
    }
    const identity = identityOfToken(body);
    await this.cache.set(key, identity, expiresAt);
    return identity;
  }
}
