/**
 * The console's sign-in routes, public (no token), in Keystone's error shape:
 *
 * - `GET /console/auth` → `{"methods": ["token", "password"]}` with Keystone, `{"methods": ["token"]}` with static
 *   tokens: what the sign-in page offers.
 * - `POST /console/auth/tokens` (Keystone only; 404 with static tokens) → 201, the token in `X-Subject-Token` and
 *   its body (no catalog), as Keystone's `POST /v3/auth/tokens` answers. Counted per client address first (every
 *   attempt), then: 415 unless `application/json`, 413 past SIGN_IN_MAX_BODY_BYTES, 400 for a body that is not
 *   Keystone's password auth (sign-in.schema.ts), 429, 401, 503 (sign-in.service.ts).
 *
 * And one that needs a token: `GET /console/auth/tokens` → 200, who the caller's own `X-Auth-Token` stands for
 * (CallerToken, sign-in.presenter.ts), as Keystone's `GET /v3/auth/tokens` answers a user validating their own token.
 * The gateway's usual token check (auth/authenticate.ts: 401 with `WWW-Authenticate`, 503 when Keystone cannot
 * answer); `X-Subject-Token` is ignored, so no one learns about a token but their own. Counted against the default
 * per-token limit (ratelimit.ts `consumeOwn`: 429 with `Retry-After`). Other methods than GET, HEAD and POST: 405.
 *
 * Every answer is `Cache-Control: no-store`. Nothing of the body reaches a log (http-kit's access log writes the
 * method, URL and status only).
 */
import { type AppError, fieldIssues, validate } from '@stratum/http-kit';
import express, { type NextFunction, type Request, type Response, Router } from 'express';
import type { authenticator } from '../auth/authenticate';
import { bodyTooLarge, methodNotAllowed, rateLimited, signInInvalid, signInMalformed, signInNotJson, signInNotOffered } from '../errors';
import type { PublicUrls } from '../public-url';
import type { RateLimits } from '../ratelimit/ratelimit';
import { tokenKey } from '../tokens/tokens.cache';
import { callerToken } from './sign-in.presenter';
import { SignInBody, type SignInMethods } from './sign-in.schema';
import type { SignInService } from './sign-in.service';

/** Where the console asks how it may sign in, and where it signs in with a password. */
export const SIGN_IN_METHODS_PATH = '/console/auth';
export const SIGN_IN_PATH = '/console/auth/tokens';
/** Largest sign-in body, in bytes: a request of the longest names and password fits in well under it. */
export const SIGN_IN_MAX_BODY_BYTES = 16 * 1024;

const JSON_TYPE = 'application/json';

/** The body parser of the sign-in only, its errors in the gateway's own words (errors.ts). */
const parseJson = express.json({ limit: SIGN_IN_MAX_BODY_BYTES, type: JSON_TYPE, strict: true });
function jsonBody(req: Request, res: Response, next: NextFunction): void {
  parseJson(req, res, (err?: unknown) => {
    const type = (err as { type?: string } | undefined)?.type;
    if (type === 'entity.too.large') next(bodyTooLarge(SIGN_IN_MAX_BODY_BYTES));
    else if (type === 'entity.parse.failed') next(signInMalformed());
    else next(err);
  });
}

/** Whether the request carries a body (a length above zero, or chunks). */
const hasBody = (req: Request) => Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;

const validBody = validate({ body: SignInBody }, (invalid): AppError => {
  const issues = fieldIssues(invalid);
  const first = issues[0] ?? { field: '(body)', reason: 'Invalid input.' };
  return signInInvalid(first.field === '(body)' ? 'auth' : first.field, first.reason, issues);
});

/** What `GET /console/auth/tokens` needs: the gateway's token check and its rate limits. */
export interface CallerParts {
  authenticate: ReturnType<typeof authenticator>;
  rateLimits: RateLimits;
  /** Told of each request the per-token limit refused (the gateway's `stratum_gateway_rate_limited_total`). */
  onLimited?: () => void;
}

/**
 * The sign-in router.
 * @param service the Keystone sign-in (sign-in.service.ts), or undefined with static tokens (password not offered).
 * @param publicUrls tells the client's address (the peer, or a trusted proxy's forwarded one).
 * @param caller the token check and rate limits of `GET /console/auth/tokens`.
 */
export function signInRouter(service: SignInService | undefined, publicUrls: PublicUrls, caller: CallerParts): Router {
  const router = Router({ strict: false });
  const allowed = service ? 'GET, HEAD, POST' : 'GET, HEAD';
  const methods: SignInMethods = { methods: service ? ['token', 'password'] : ['token'] };

  router.all(SIGN_IN_METHODS_PATH, (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      next(methodNotAllowed());
      return;
    }
    res.set('Cache-Control', 'no-store').json(methods);
  });

  router.all(
    SIGN_IN_PATH,
    async (req, res, next) => {
      if (req.method === 'GET' || req.method === 'HEAD') {
        const who = await caller.authenticate(req, res, { kind: 'none' });
        if (!who) return; // answered 401 or 503
        const refusal = await caller.rateLimits.consumeOwn(tokenKey(who.token));
        if (refusal) {
          caller.onLimited?.();
          return next(rateLimited(refusal.scope, refusal.retryAfterSeconds));
        }
        res.set('Cache-Control', 'no-store').json(callerToken(who.identity));
        return;
      }
      if (req.method !== 'POST') return next(methodNotAllowed(allowed));
      if (!service) return next(signInNotOffered());
      const refused = await service.countAddress(publicUrls.clientAddress(req));
      if (refused) return next(refused);
      if (hasBody(req) && !req.is(JSON_TYPE)) return next(signInNotJson());
      next();
    },
    jsonBody,
    validBody,
    async (_req, res) => {
      const { body } = validBody.input(res);
      const signedIn = await (service as SignInService).signIn(body, res.locals.requestId as string | undefined);
      res.status(201).set({ 'X-Subject-Token': signedIn.token, 'Cache-Control': 'no-store' }).json(signedIn.body);
    },
  );
  return router;
}
