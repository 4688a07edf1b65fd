/**
 * The console's only way to the data: the gateway's public API, with the signed-in token in `X-Auth-Token`. The
 * console can therefore do nothing that the API would not let that identity do.
 */
import { type ZodType, z } from 'zod';

/**
 * A non-2xx answer: `message` is the group's error text (errorText), `body` the parsed body, `retryAfter` the
 * answer's `Retry-After` in seconds when it gave one (429, 503).
 */
export class ApiError extends Error {
  status: number;
  body: unknown;
  retryAfter: number | undefined;
  constructor(status: number, body: unknown, retryAfter?: number) {
    super(errorText(body) || `HTTP ${status}`);
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
    this.retryAfter = retryAfter;
  }
}

/** `Retry-After` in whole seconds, when it is a number. */
function retryAfterOf(res: Response): number | undefined {
  const v = Number(res.headers.get('retry-after') ?? Number.NaN);
  return Number.isFinite(v) && v >= 0 ? Math.ceil(v) : undefined;
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
      // JSON without a known member (a number, `null`, `{}`) keeps the string itself.
      return errorText(JSON.parse(panko)) || panko;
    } catch {
      return panko;
    }
  }
  if (typeof body.faultstring === 'string') return body.faultstring;
  if (typeof body.description === 'string') return body.description;
  if (typeof body.message === 'string') return body.message;
  return '';
}

/** The API's text for an error, else the exception's. */
export function errorMessage(e: unknown): string {
  if (e instanceof ApiError) return e.message;
  if (e instanceof z.ZodError) return 'Unexpected answer from the API.';
  return e instanceof Error ? e.message : String(e);
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
    const { body, etag } = await this.#answer('GET', path);
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
    const answer = await this.#answer(method, path, body, headers);
    return answer as { status: number; body: T; etag?: string };
  }

  /** One call's answer: its status, parsed body and ETag (when sent). @throws ApiError on a non-2xx answer. */
  async #answer(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: unknown; etag?: string }> {
    const res = await this.#fetch(method, path, body, headers);
    const parsed = await readBody(res);
    if (!res.ok) throw new ApiError(res.status, parsed, retryAfterOf(res));
    const etag = res.headers.get('etag') ?? undefined;
    return etag === undefined ? { status: res.status, body: parsed } : { status: res.status, body: parsed, etag };
  }
}

/**
 * `GET /console/auth/tokens`: who the signed-in token stands for (gateway/README.md "Console sign-in"): the user,
 * the project (project scope) or the domain (domain scope: a department admin), the role names, and the scope.
 */
export const Caller = z.object({
  token: z.object({
    user: z.object({ id: z.string() }),
    project: z.object({ id: z.string() }).nullable(),
    domain: z.object({ id: z.string() }).nullable(),
    roles: z.array(z.object({ name: z.string() })),
    scope: z.enum(['project', 'domain', 'system', 'unscoped']),
  }),
});
export type Caller = z.infer<typeof Caller>['token'];

/** The caller of `api`'s token (kept in memory only). @throws ApiError (401 token not accepted, 503, …). */
export async function whoAmI(api: Api): Promise<Caller> {
  return (await api.get('/console/auth/tokens', Caller)).token;
}

/** What the Keystone sign-in form gathers: the user (named within a domain), the password and the scope asked for. */
export interface KeystoneCredentials {
  username: string;
  password: string;
  userDomain: string;
  scope: { kind: 'project'; name: string; domain: string } | { kind: 'domain'; name: string } | { kind: 'system' };
}

/** Keystone's v3 password-auth body for `c` (what the gateway forwards to Keystone as is). */
export function keystoneAuthBody(c: KeystoneCredentials): unknown {
  const scope =
    c.scope.kind === 'project'
      ? { project: { name: c.scope.name, domain: { name: c.scope.domain } } }
      : c.scope.kind === 'domain'
        ? { domain: { name: c.scope.name } }
        : { system: { all: true } };
  return {
    auth: {
      identity: { methods: ['password'], password: { user: { name: c.username, domain: { name: c.userDomain }, password: c.password } } },
      scope,
    },
  };
}

/**
 * `GET /console/auth`: the ways this gateway lets the console sign in (`token` always; `password` with Keystone).
 * Anything unexpected (an older gateway, a failure) is `['token']`.
 */
export async function signInMethods(base = ''): Promise<string[]> {
  try {
    const res = await fetch(`${base.replace(/\/+$/, '')}/console/auth`, { headers: { Accept: 'application/json' }, credentials: 'omit' });
    const body = (await readBody(res)) as { methods?: unknown } | undefined;
    return res.ok && Array.isArray(body?.methods) ? body.methods.filter((m): m is string => typeof m === 'string') : ['token'];
  } catch {
    return ['token'];
  }
}

/**
 * Signs in with Keystone credentials through the gateway (`POST /console/auth/tokens`, in the request body only: never
 * in a URL). @returns the scoped token Keystone issued (`X-Subject-Token`).
 * @throws ApiError: 400 malformed, 401 not accepted, 429 too many attempts (`retryAfter`), 503 Keystone not answering.
 */
export async function keystoneSignIn(c: KeystoneCredentials, base = ''): Promise<string> {
  const res = await fetch(`${base.replace(/\/+$/, '')}/console/auth/tokens`, {
    method: 'POST',
    headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
    body: JSON.stringify(keystoneAuthBody(c)),
    credentials: 'omit',
  });
  const body = await readBody(res);
  const token = res.headers.get('x-subject-token');
  if (res.status !== 201 || !token) throw new ApiError(res.status, body, retryAfterOf(res));
  return token;
}
