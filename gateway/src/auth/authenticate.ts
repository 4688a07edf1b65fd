/**
 * Authentication at the front door: the caller's token from `X-Auth-Token` (or, on the ingest path only, the HTTP
 * Basic password, as Ceilometer's `http://` publisher sends it), checked by the token validator (a static file or
 * Keystone with its cache). Answers 401 in Keystone's shape without a valid token, 503 when the check cannot be made.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Identity } from '@stratum/identity';
import { errorBody, sendGroupError, tokenCheckUnavailable, unauthenticated } from '../errors';
import { INGEST_PATH, type Resolution } from '../routes';
import { IdentityUnavailable, type TokenValidator } from '../tokens/tokens.types';

/** The password of an HTTP Basic `Authorization` header, or undefined. */
export function basicPassword(header: string | undefined): string | undefined {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header ?? '');
  if (!m?.[1]) return undefined;
  const text = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = text.indexOf(':');
  return colon >= 0 ? text.slice(colon + 1) : undefined;
}

/** The token a request carries: `X-Auth-Token`, else on the ingest path the Basic password; '' when none. */
export function tokenOf(req: IncomingMessage, r: Resolution): string {
  const given =
    req.headers['x-auth-token'] ?? (r.kind === 'proxy' && r.path === INGEST_PATH ? basicPassword(req.headers.authorization) : undefined);
  return typeof given === 'string' ? given : '';
}

/** An authenticated caller: its identity and the token it was validated from (the rate limit key). */
export interface Caller {
  identity: Identity;
  token: string;
}

/** The 401 body: the same bytes for every refusal. */
const UNAUTHENTICATED_BODY = errorBody(undefined, unauthenticated(''));

/**
 * Returns `authenticate(req, res, r)`: the caller of a request, or null after answering 401 (no or invalid token)
 * or 503 (token service unavailable, in the group's shape when the path has one). The `Authorization` header is
 * removed either way: it is never forwarded.
 * @param identityUri the `WWW-Authenticate` URI of a request (the public base URL + `/identity`).
 */
export function authenticator(tokens: TokenValidator, identityUri: (req: IncomingMessage) => string) {
  return async (req: IncomingMessage, res: ServerResponse, r: Resolution): Promise<Caller | null> => {
    const group = r.kind === 'proxy' ? r.group : undefined;
    const token = tokenOf(req, r);
    delete req.headers.authorization;
    let identity: Identity | null = null;
    if (token !== '') {
      try {
        identity = await tokens.validate(token);
      } catch (err) {
        if (!(err instanceof IdentityUnavailable)) throw err;
        sendGroupError(res, group, tokenCheckUnavailable(err.message));
        return null;
      }
    }
    if (!identity) {
      const refusal = unauthenticated(identityUri(req));
      res.writeHead(refusal.status, { ...refusal.headers, 'Content-Type': 'application/json; charset=utf-8' });
      res.end(UNAUTHENTICATED_BODY);
      return null;
    }
    return { identity, token };
  };
}
