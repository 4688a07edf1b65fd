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
 * Both answers are `Cache-Control: no-store`. Nothing of the body reaches a log (http-kit's access log writes the
 * method, URL and status only).
 */
import { type AppError, fieldIssues, validate } from '@stratum/http-kit';
import express, { type NextFunction, type Request, type Response, Router } from 'express';
import { bodyTooLarge, methodNotAllowed, signInInvalid, signInMalformed, signInNotJson, signInNotOffered } from '../errors';
import type { PublicUrls } from '../public-url';
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

/**
 * The sign-in router.
 * @param service the Keystone sign-in (sign-in.service.ts), or undefined with static tokens (password not offered).
 * @param publicUrls tells the client's address (the peer, or a trusted proxy's forwarded one).
 */
export function signInRouter(service: SignInService | undefined, publicUrls: PublicUrls): Router {
  const router = Router({ strict: false });
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
    async (req, _res, next) => {
      if (!service) return next(signInNotOffered());
      if (req.method !== 'POST') return next(methodNotAllowed('POST'));
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
