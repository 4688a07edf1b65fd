/**
 * The console's only way to the data: the gateway's public API, with the signed-in token in `X-Auth-Token`. The
 * console can therefore do nothing that the API would not let that identity do.
 */
import type { ZodType } from 'zod';

/** A non-2xx answer: `message` is the group's error text (errorText), `body` the parsed body. */
export class ApiError extends Error {
  status: number;
  body: unknown;
  constructor(status: number, body: unknown) {
    super(errorText(body) || `HTTP ${status}`);
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The message of an error body in any of the groups' shapes: Keystone `{"error": {"message"}}`, Octavia
 * `{"faultstring"}` / `{"description"}`, Panko `{"error_message": {"faultstring"}}` (or a string), else text as is.
 */
export function errorText(body: unknown): string {
  if (typeof body === 'string') return body.trim();
  if (!isRecord(body)) return '';
  const err = body.error;
  if (isRecord(err) && typeof err.message === 'string') return err.message;
  if (typeof err === 'string') return err;
  const panko = body.error_message;
  if (isRecord(panko) && typeof panko.faultstring === 'string') return panko.faultstring;
  if (typeof panko === 'string') {
    try {
      return errorText(JSON.parse(panko));
    } catch {
      return panko;
    }
  }
  if (typeof body.faultstring === 'string') return body.faultstring;
  if (typeof body.description === 'string') return body.description;
  if (typeof body.message === 'string') return body.message;
  return '';
}

/** Reads a response body: JSON when it is JSON, else text; `undefined` when empty. */
async function readBody(res: Response): Promise<unknown> {
  const text = await res.text();
  if (text === '') return undefined;
  if ((res.headers.get('content-type') ?? '').includes('json')) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

/** A client of the public API for one token. */
export class Api {
  readonly #token: string;
  readonly #base: string;

  /** @param base the gateway's URL; '' = the origin that served the console. */
  constructor(token: string, base = '') {
    this.#token = token;
    this.#base = base.replace(/\/+$/, '');
  }

  async #fetch(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
    const h: Record<string, string> = { Accept: 'application/json', 'X-Auth-Token': this.#token, ...headers };
    const init: RequestInit = { method, headers: h, credentials: 'omit' };
    if (body !== undefined) {
      h['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    return fetch(`${this.#base}${path}`, init);
  }

  /** GET `path`; throws ApiError on a non-2xx answer; parses with `schema` when given. */
  async get<T>(path: string, schema?: ZodType<T>): Promise<T> {
    return (await this.getWithEtag<T>(path, schema)).body;
  }

  /** GET `path` with the answer's ETag (for a later If-Match). */
  async getWithEtag<T>(path: string, schema?: ZodType<T>): Promise<{ body: T; etag?: string }> {
    const res = await this.#fetch('GET', path);
    const body = await readBody(res);
    if (!res.ok) throw new ApiError(res.status, body);
    const etag = res.headers.get('etag') ?? undefined;
    const parsed = schema ? schema.parse(body) : (body as T);
    return etag === undefined ? { body: parsed } : { body: parsed, etag };
  }

  /** A write; throws ApiError on a non-2xx answer (its body carries the refusal `details`). */
  async send<T>(
    method: 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: T; etag?: string }> {
    const res = await this.#fetch(method, path, body, headers);
    const parsed = await readBody(res);
    if (!res.ok) throw new ApiError(res.status, parsed);
    const etag = res.headers.get('etag') ?? undefined;
    return etag === undefined ? { status: res.status, body: parsed as T } : { status: res.status, body: parsed as T, etag };
  }
}
