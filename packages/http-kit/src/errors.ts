/**
 * One error type and one renderer per API group.
 *
 * Handlers throw `AppError`; the error middleware renders it in the group's wire shape. Anything else becomes a
 * generic 500 (the message is logged, never echoed) — except a store outage, which is a 503 that says so.
 */
import { STATUS_CODES } from 'node:http';
import { MongoError } from 'mongodb';

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

/** Keystone's `render_exception` envelope, plus `details` when given (reference/domain-quota.md §6.7). */
export const renderKeystoneError: ErrorRenderer = (status, message, details) => ({
  error: {
    code: status,
    title: reasonPhrase(status),
    message,
    ...(details && details.length > 0 ? { details } : {}),
  },
});

const STORE_DOWN_ERRORS = new Set([
  'MongoServerSelectionError',
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'PoolClearedError',
  'PoolClearedOnNetworkError',
]);

/** True when `err` means the document store cannot be reached (→ 503, recovers by itself when the store is back). */
export function isStoreDown(err: unknown): boolean {
  return err instanceof MongoError && STORE_DOWN_ERRORS.has(err.name);
}

/**
 * Maps an error thrown anywhere in a request to a status and a client-safe message.
 * body-parser errors carry `status` and `type` (`entity.parse.failed`, `entity.too.large`, `encoding.unsupported`).
 */
export function classify(err: unknown): { status: number; message: string; details?: unknown[]; headers?: Record<string, string> } {
  if (err instanceof AppError) {
    return { status: err.status, message: err.message, details: err.details, headers: err.headers };
  }
  if (isStoreDown(err)) {
    return { status: 503, message: 'The document store is unavailable; try again shortly.', headers: { 'Retry-After': '1' } };
  }
  const e = err as { type?: string; status?: number } | null;
  switch (e?.type) {
    case 'entity.parse.failed':
      return { status: 400, message: 'Request is not in valid JSON format' };
    case 'entity.too.large':
      return { status: 413, message: 'Request body is too large.' };
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return { status: 415, message: 'Unsupported request body encoding.' };
    case 'request.aborted':
      return { status: 400, message: 'Request aborted.' };
    default:
      return { status: 500, message: 'An unexpected error prevented the server from fulfilling the request.' };
  }
}
