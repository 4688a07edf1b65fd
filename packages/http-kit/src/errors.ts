/**
 * Error classification: what status and client-safe message any error thrown in a request gets.
 *
 * Handlers throw `AppError` (app-error.ts); the error middleware renders it in the group's wire shape. Anything else
 * becomes a generic 500 (the message is logged, never echoed) — except a store outage, which is a 503 that says so,
 * and the 4xx errors of body parsing and routing.
 */
import { MongoError } from 'mongodb';
import { AppError, reasonPhrase } from './app-error';

/** Driver errors that mean the store cannot be reached: selection, network, pool and topology failures. */
const STORE_DOWN_ERRORS = new Set([
  'MongoServerSelectionError',
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongoServerClosedError',
  'MongoPoolClosedError',
  'MongoWaitQueueTimeoutError',
  'MongoOperationTimeoutError',
  'PoolClearedError',
  'PoolClearedOnNetworkError',
]);

/**
 * Error labels the server or driver puts on failures that a later attempt can get past (the driver's own retry
 * rules: a retryable write, a pool reset after a network error).
 */
const STORE_DOWN_LABELS = ['RetryableWriteError', 'ResetPool', 'PoolRequestedRetry', 'InterruptInUseConnections'];

/**
 * Server error codes of a store that is shutting down, stepping down or unreachable: the driver's "node is
 * recovering", "not primary" and retryable-write codes (MongoDB's error_codes.yml), also as a write concern error.
 */
const STORE_DOWN_CODES = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  89, // NetworkTimeout
  91, // ShutdownInProgress
  189, // PrimarySteppedDown
  262, // ExceededTimeLimit
  9001, // SocketException
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);

/** Socket error codes, when a driver error carries one (its cause, or the network error a bulk write wraps). */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * True when `err` means the document store cannot be reached (→ 503, recovers by itself when the store is back).
 *
 * Classified by what the error is made of, not by its class alone: a driver error by name, error label or server
 * code, and everything it wraps — `cause`, the error a `MongoBulkWriteError` was made from (`errorResponse`: an
 * insertMany cut off by a network error), a write concern error from a server shutting down — and errors of our own
 * code whose `cause` is such a driver error.
 */
export function isStoreDown(err: unknown): boolean {
  const pending: { e: unknown; mongo: boolean }[] = [{ e: err, mongo: false }];
  const seen = new Set<unknown>();
  while (pending.length > 0 && seen.size < 32) {
    const { e, mongo: underMongo } = pending.pop() as { e: unknown; mongo: boolean };
    if (e === null || typeof e !== 'object' || seen.has(e)) continue;
    seen.add(e);
    const mongo = underMongo || e instanceof MongoError;
    if (e instanceof MongoError) {
      if (STORE_DOWN_ERRORS.has(e.name)) return true;
      if (STORE_DOWN_LABELS.some((label) => e.hasErrorLabel(label))) return true;
    }
    const { code, cause, errorResponse, writeConcernError, errors } = e as Record<string, unknown>;
    if (mongo && typeof code === 'number' && STORE_DOWN_CODES.has(code)) return true;
    if (mongo && typeof code === 'string' && NETWORK_CODES.has(code)) return true;
    for (const next of [cause, errorResponse, writeConcernError, ...(Array.isArray(errors) ? errors : [])]) {
      pending.push({ e: next, mongo });
    }
  }
  return false;
}

/** An error carrying an HTTP status (http-errors, as body-parser and express's router throw), when it is a 4xx. */
function clientStatus(err: unknown): number | undefined {
  if (err === null || typeof err !== 'object') return undefined;
  const { status, statusCode } = err as { status?: unknown; statusCode?: unknown };
  const s = typeof status === 'number' ? status : statusCode;
  return typeof s === 'number' && Number.isInteger(s) && s >= 400 && s < 500 ? s : undefined;
}

/**
 * Maps an error thrown anywhere in a request to a status and a client-safe message.
 * body-parser errors carry `status` and `type` (`entity.parse.failed`, `entity.too.large`, `encoding.unsupported`);
 * a body whose Content-Encoding does not decode is a 400 without a type (zlib's error); a path parameter that is not
 * valid percent-encoding is express's URIError with status 400. Any other error carrying a 4xx status keeps it, with
 * a generic message (the thrower's message is not echoed).
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
  }
  const status = clientStatus(err);
  if (status === undefined) {
    return { status: 500, message: 'An unexpected error prevented the server from fulfilling the request.' };
  }
  if (err instanceof URIError) return { status, message: 'The request path is not valid percent-encoding.' };
  // zlib's errors (gzip, deflate, br) carry an errno.
  if (status === 400 && typeof (err as { errno?: unknown }).errno === 'number') {
    return { status, message: 'The request body could not be decoded (Content-Encoding).' };
  }
  return { status, message: `The request could not be processed: ${reasonPhrase(status)}.` };
}
