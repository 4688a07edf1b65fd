/**
 * Wire errors: the error type handlers throw and each group's error body. No express, no driver: a service's
 * contract module (schemas, error factories) may import this (`@stratum/http-kit/wire`) without loading either.
 */
import { STATUS_CODES } from 'node:http';

/** A client-visible error: HTTP status, human message, optional machine-readable details (group C). */
export class AppError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details?: unknown[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

/**
 * The 401 text: Keystone's, as keystonemiddleware answers a missing or invalid token. The gateway answers it for a
 * token, a service for identity headers the gateway did not sign for this request.
 */
export const UNAUTHENTICATED = 'The request you have made requires authentication.';

/** 401 with the UNAUTHENTICATED text (the error middleware adds `WWW-Authenticate`). */
export const unauthenticated = () => new AppError(401, UNAUTHENTICATED);

/** Renders a status and message into a group's error body. */
export type ErrorRenderer = (status: number, message: string, details?: unknown[]) => unknown;

/** HTTP reason phrase, e.g. 409 → `Conflict`. */
export function reasonPhrase(status: number): string {
  return STATUS_CODES[status] ?? 'Error';
}

/** Panko's body (`ParsableErrorMiddleware` around a WSME fault): `{"error_message":{faultcode,faultstring,debuginfo}}`. */
export const renderPankoError: ErrorRenderer = (status, message) => ({
  error_message: { faultcode: status < 500 ? 'Client' : 'Server', faultstring: message, debuginfo: null },
});

/** Octavia's WSME fault: `{"faultcode","faultstring","debuginfo":null}`; python-octaviaclient reads `faultstring`. */
export const renderOctaviaError: ErrorRenderer = (status, message) => ({
  faultcode: status < 500 ? 'Client' : 'Server',
  faultstring: message,
  debuginfo: null,
});

/** Keystone's `render_exception` envelope, plus `details` when given (docs/upstream/domain-quota.md §6.7). */
export const renderKeystoneError: ErrorRenderer = (status, message, details) => ({
  error: {
    code: status,
    title: reasonPhrase(status),
    message,
    ...(details && details.length > 0 ? { details } : {}),
  },
});
