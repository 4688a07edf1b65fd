/**
 * The gateway's own wire errors, one named factory each (the texts clients and tests see), and how they are written:
 * in the shape of the route group a request was for (Panko, Octavia or Keystone), or Keystone's for the gateway's own
 * paths. An `AppError` carries the status, the message and the headers that go with it (`Retry-After`, `Allow`,
 * `Connection: close`).
 */
import type { ServerResponse } from 'node:http';
import { AppError, type ErrorRenderer, reasonPhrase, renderKeystoneError, UNAUTHENTICATED } from '@stratum/http-kit';
import { GROUPS, type Group } from './routes';

/** The 401 text, http-kit's (Keystone's, as keystonemiddleware answers a missing or invalid token). */
export { UNAUTHENTICATED };

/** 401: no token, or one Keystone (or the static tokens file) does not know. `WWW-Authenticate` names the identity URL. */
export const unauthenticated = (identityUri: string) =>
  new AppError(401, UNAUTHENTICATED, undefined, { 'WWW-Authenticate': `Keystone uri="${identityUri}"` });

/** The message of a token check Keystone could not answer (tokens.keystone.ts). */
export const IDENTITY_UNAVAILABLE = 'The identity service is unavailable.';

/** 503: the token could not be checked (Keystone down or failing); `message` is the token validator's. */
export const tokenCheckUnavailable = (message = IDENTITY_UNAVAILABLE) => new AppError(503, message, undefined, { 'Retry-After': '5' });

/** 413: a body past MAX_BODY_BYTES, as sent or once decoded. The connection is closed (the rest is not read). */
export const bodyTooLarge = (limitBytes: number) =>
  new AppError(413, `The request body is larger than ${limitBytes} bytes.`, undefined, { Connection: 'close' });

/** 415: a Content-Encoding the gateway does not decode (at most 64 characters of it are echoed). */
export const unsupportedEncoding = (coding: string) =>
  new AppError(415, `Unsupported Content-Encoding: ${coding.slice(0, 64)}.`, undefined, { Connection: 'close' });

/** 400: a body that does not decode as its Content-Encoding says (`coding` is one the gateway accepts). */
export const bodyNotDecodable = (coding: string) =>
  new AppError(400, `The request body is not valid ${coding} data.`, undefined, { Connection: 'close' });

/** 400: the client went away (or the connection failed) before its body was read. */
export const requestAborted = () => new AppError(400, 'Request aborted.', undefined, { Connection: 'close' });

/** 429: a rate limit of the project (or domain) or of the token; `Retry-After` in whole seconds. */
export const rateLimited = (scope: string, retryAfterSeconds: number) =>
  new AppError(429, `Rate limit exceeded for this ${scope}: retry in ${retryAfterSeconds} s.`, undefined, {
    'Retry-After': String(retryAfterSeconds),
  });

/** 502/503/504 by the upstream's failure: `serviceName` is the group's human name (routes.ts GROUPS). */
export const upstreamFailed = (serviceName: string, status: number) =>
  new AppError(status, `The ${serviceName} service is unavailable (${reasonPhrase(status)}).`);

/** 405: a path asked with a method it does not serve (versions documents and health checks: GET and HEAD only). */
export const methodNotAllowed = (allow = 'GET, HEAD') =>
  new AppError(405, 'The method is not allowed for the requested URL.', undefined, { Allow: allow });

/**
 * 400: a console sign-in body that is not Keystone's password auth (sign-in/sign-in.schema.ts), with Keystone's
 * wording (`Invalid input for field '<path>': <reason>`); the value sent is never echoed.
 */
export const signInInvalid = (field: string, reason: string, details?: unknown[]) =>
  new AppError(400, `Invalid input for field '${field}': ${reason}`, details);

/** 400: a console sign-in body that is not valid JSON (Keystone's text for one). */
export const signInMalformed = () => new AppError(400, 'Expecting to find valid JSON in request body.');

/** 400: Keystone found a sign-in request malformed that the gateway's schema let through (its text is not echoed). */
export const signInRejectedByKeystone = () => new AppError(400, 'Keystone refused the request as malformed.');

/** 415: a console sign-in whose body is not `application/json`. */
export const signInNotJson = () => new AppError(415, 'The request body must be application/json.');

/** 404: password sign-in asked of a gateway with static tokens (no Keystone to ask). */
export const signInNotOffered = () =>
  new AppError(404, 'Password sign-in is not offered: this gateway uses static tokens. Sign in with a token.');

/** 403: a Keystone look-up (routes.ts IDENTITY_LOOKUPS) with a valid token. */
export const identityLookupRefused = () =>
  new AppError(
    403,
    'This endpoint is not Keystone: identity look-ups are not served here. Give project IDs, or point the client at Keystone.',
  );

/** 404: a path no group and no public route serves. */
export const notFound = () => new AppError(404, 'The resource could not be found.');

/** 500: a failure of the gateway itself (logged with its cause, never echoed). */
export const internalError = () => new AppError(500, 'The server has either erred or is incapable of performing the requested operation.');

/** 431: a request line and headers past `maxBytes`; the connection is closed. */
export const headTooLarge = (maxBytes: number) =>
  new AppError(431, `The request line and headers are larger than ${maxBytes} bytes.`, undefined, { Connection: 'close' });

/** 408: a request node's parser did not receive in time. */
export const requestTimeout = () => new AppError(408, 'The request was not received in time.');

/** 400: a request node's HTTP parser refused. */
export const malformedRequest = () =>
  new AppError(400, 'The request is not valid HTTP (control characters or non-ASCII bytes in the URL, or a malformed header).');

/** The error renderer of `group`, or Keystone's for the gateway's own paths. */
export const renderOf = (group: Group | undefined): ErrorRenderer => (group ? GROUPS[group].render : renderKeystoneError);

/** The JSON body of `err` in `group`'s shape (Keystone's when undefined). */
export const errorBody = (group: Group | undefined, err: AppError): string => JSON.stringify(renderOf(group)(err.status, err.message));

/**
 * Answers `err` in the shape of `group` on a plain node response, with its headers and any `extra` ones, unless a
 * response has begun.
 */
export function sendGroupError(res: ServerResponse, group: Group | undefined, err: AppError, extra: Record<string, string> = {}): void {
  if (res.headersSent) return;
  const body = errorBody(group, err);
  res.writeHead(err.status, { ...err.headers, ...extra, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}
