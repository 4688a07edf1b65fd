/**
 * The operator console's Keystone sign-in: a user's own credentials are forwarded to Keystone's
 * `POST /v3/auth/tokens?nocatalog` and the scoped token it issues is handed back, so a browser that cannot reach
 * Keystone can still get one. The gateway keeps nothing: the console then calls the API with that token like any
 * client (docs/api/README.md "Authentication").
 *
 * Password guessing is slowed by two fixed-window limits (RATE_LIMIT_SIGN_IN_PER_ADDRESS, RATE_LIMIT_SIGN_IN_PER_USER),
 * counted like the API's rate limits (ratelimit/ratelimit.ts: Redis shared by the replicas, in-process insurance).
 * Neither the password nor the issued token is ever logged.
 */
import { type AppError, unauthenticated } from '@stratum/http-kit';
import { type KeystoneClient, KeystoneError } from '@stratum/keystone';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { GatewayConfig } from '../config';
import { rateLimited, signInRejectedByKeystone, tokenCheckUnavailable } from '../errors';
import { makeLimiter, take } from '../ratelimit/ratelimit';
import { type SignInBody, SignInToken, userKey } from './sign-in.schema';

/** A token Keystone issued: the `X-Subject-Token` value and the answer's body (no catalog). */
export interface SignedIn {
  token: string;
  body: SignInToken;
}

export class SignInService {
  private readonly perAddress: RateLimiterAbstract | null;
  private readonly perUser: RateLimiterAbstract | null;

  /**
   * @param prefix Redis key prefix of the gateway (its limits are kept under `<prefix>sign-in:`).
   * @param onLimited told of each attempt a limit refused (the gateway's `stratum_gateway_rate_limited_total`).
   */
  constructor(
    private readonly keystone: KeystoneClient,
    config: Pick<GatewayConfig, 'RATE_LIMIT_SIGN_IN_PER_ADDRESS' | 'RATE_LIMIT_SIGN_IN_PER_USER'>,
    redis: Redis | undefined,
    prefix: string,
    private readonly logger: Logger,
    private readonly onLimited: (scope: 'sign_in_address' | 'sign_in_user') => void = () => undefined,
  ) {
    this.perAddress = makeLimiter(config.RATE_LIMIT_SIGN_IN_PER_ADDRESS, redis, `${prefix}sign-in:address`);
    this.perUser = makeLimiter(config.RATE_LIMIT_SIGN_IN_PER_USER, redis, `${prefix}sign-in:user`);
  }

  /**
   * Counts one sign-in attempt from `address` (every attempt, well-formed or not).
   * @returns null when it may go on, else the 429 to answer (`Retry-After` in whole seconds).
   */
  async countAddress(address: string): Promise<AppError | null> {
    const retry = await take(this.perAddress, address);
    if (retry === null) return null;
    this.onLimited('sign_in_address');
    return rateLimited('address', retry);
  }

  /**
   * Counts the attempt against its user, then asks Keystone for the token.
   * @returns the token and its body (Keystone's `token`, reduced to SignInToken).
   * @throws AppError: 429 past the user's limit; 401 when Keystone refuses the credentials or scope (its own text);
   *   400 when Keystone finds the request malformed; 503 when Keystone is down, failing or too slow.
   */
  async signIn(body: SignInBody, requestId?: string): Promise<SignedIn> {
    const user = userKey(body);
    const retry = await take(this.perUser, user);
    if (retry !== null) {
      this.onLimited('sign_in_user');
      throw rateLimited('user', retry);
    }
    let result: Awaited<ReturnType<KeystoneClient['issueToken']>>;
    try {
      result = await this.keystone.issueToken(body);
    } catch (err) {
      if (!(err instanceof KeystoneError)) throw err;
      this.logger.warn({ requestId, keystoneStatus: err.status, reason: err.message }, 'console sign-in: Keystone unavailable');
      throw tokenCheckUnavailable();
    }
    if (result.kind === 'refused') {
      this.logger.info({ requestId, user, keystoneStatus: result.status }, 'console sign-in refused');
      throw unauthenticated();
    }
    if (result.kind === 'invalid') throw signInRejectedByKeystone();
    const parsed = SignInToken.safeParse({ token: result.body });
    if (!parsed.success) {
      this.logger.error({ requestId, issues: parsed.error.issues.map((i) => i.path.join('.')) }, 'console sign-in: unexpected token body');
      throw tokenCheckUnavailable();
    }
    this.logger.info({ requestId, userId: parsed.data.token.user.id, expiresAt: parsed.data.token.expires_at }, 'console sign-in');
    return { token: result.token, body: parsed.data };
  }
}
