/**
 * Group B request parsing: the PUT body, the enforcement bodies and the list/show query parameters.
 *
 * Stricter than Octavia (reference/lbaas-quota.md §3): integers only, no string/float/bool coercion, and every
 * malformed body is a 400 (Octavia answers 500 to `{}`, `{"quota": 5}`, list/object values). The bodies are parsed by
 * hand to keep Octavia's messages; the zod schemas below state the same rules for `/openapi.json`.
 */
import { AppError, hasUnsafeChars } from '@stratum/http-kit';
import {
  LBAAS_INPUT_NAMES,
  LBAAS_NEW_NAME,
  LBAAS_RESOURCES,
  type LbaasLimits,
  type LbaasResource,
  MAX_QUOTA,
  MIN_QUOTA,
  QuotaLimit,
} from '@stratum/quota-items';
import { z } from 'zod';

const bad = (m: string) => new AppError(400, m);

/**
 * `body[wrapper]` as an object.
 * @param argument the name Octavia gives the whole body in its messages (`quotas` for PUT).
 * @throws AppError 400 when the body is not an object, has other top-level keys, or lacks an object `wrapper`.
 */
function unwrap(body: unknown, argument: string, wrapper: string): Record<string, unknown> {
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw bad(`Missing argument: "${argument}"`);
  }
  const unknownTop = Object.keys(body).filter((k) => k !== wrapper);
  if (unknownTop.length > 0) throw bad(`Unknown attribute for argument ${argument}: ${unknownTop.join(', ')}`);
  const inner = (body as Record<string, unknown>)[wrapper];
  if (inner === undefined) throw bad(`Missing argument: "${wrapper}"`);
  if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) {
    throw bad(`Invalid input for field/attribute ${wrapper}. Value: '${JSON.stringify(inner)}'. Value should be an object`);
  }
  return inner as Record<string, unknown>;
}

/**
 * Maps each key of `obj` (either spelling of a resource) through `check`; when both spellings of one resource are
 * sent, the underscore spelling (`load_balancer`, `health_monitor`) wins.
 * @throws AppError 400 `Unknown attribute for argument <argument>: <key>`, or what `check` throws.
 */
function byResource<T>(obj: Record<string, unknown>, argument: string, check: (key: string, value: unknown) => T) {
  const out: Partial<Record<LbaasResource, T>> = {};
  const fromUnderscore = new Set<LbaasResource>();
  for (const [key, value] of Object.entries(obj)) {
    // Own keys only: `constructor`, `__proto__`, `toString`… are unknown attributes, not Object.prototype's.
    const resource = Object.hasOwn(LBAAS_INPUT_NAMES, key) ? LBAAS_INPUT_NAMES[key] : undefined;
    if (!resource) throw bad(`Unknown attribute for argument ${argument}: ${key}`);
    const checked = check(key, value);
    const isUnderscore = key === resource;
    if (fromUnderscore.has(resource) && !isUnderscore) continue;
    if (isUnderscore) fromUnderscore.add(resource);
    out[resource] = checked;
  }
  return out;
}

/**
 * Parses `{"quota": {<resource>: int | null, ...}}`. Both spellings are accepted; when both are sent, the underscore
 * spelling wins. Omitted keys are unchanged; null restores the default.
 * @throws AppError 400 with Octavia's messages.
 */
export function parseQuotaPut(body: unknown): Partial<LbaasLimits> {
  return byResource(unwrap(body, 'quotas', 'quota'), 'quotas.quota', (key, value) => {
    if (value === null) return null;
    if (typeof value !== 'number' || !Number.isInteger(value)) {
      throw bad(`Invalid input for field/attribute ${key}. Value: '${JSON.stringify(value)}'. Value should be an integer`);
    }
    if (value < MIN_QUOTA)
      throw bad(`Invalid input for field/attribute ${key}. Value: '${value}'. Value should be greater or equal to ${MIN_QUOTA}`);
    if (value > MAX_QUOTA)
      throw bad(`Invalid input for field/attribute ${key}. Value: '${value}'. Value should be lower or equal to ${MAX_QUOTA}`);
    return value;
  });
}

/** Which spelling an input key is: Octavia's canonical one or the underscore one (which wins when both are sent). */
function spelling(key: string): string {
  const resource = LBAAS_INPUT_NAMES[key] as LbaasResource;
  if (LBAAS_NEW_NAME[resource] === resource) return '';
  return key === resource ? `; wins over ${LBAAS_NEW_NAME[resource]} when both are sent` : `; same as ${resource}`;
}

/** One object per input spelling of the seven resources (parseQuotaPut/parseCounts accept both). */
function byInputName<T extends z.ZodType>(schema: (key: string) => T): Record<string, z.ZodOptional<T>> {
  return Object.fromEntries(Object.keys(LBAAS_INPUT_NAMES).map((k) => [k, schema(k).optional()]));
}

/** `PUT /quotas/{project_id}` body, as parseQuotaPut reads it: omitted keys unchanged, null = the default again. */
export const QuotaPutBody = z.strictObject({
  quota: z.strictObject(
    byInputName((k) => QuotaLimit.nullable().describe(`-1 unlimited, 0 none, null the deployment default${spelling(k)}`)),
  ),
});

/** Enforcement body `{"<wrapper>": {<resource>: count}}` as parseCounts reads it (at least one resource). */
export function countsBody<W extends string>(wrapper: W) {
  const counts = z.strictObject(
    byInputName((k) =>
      z
        .int()
        .min(0)
        .max(MAX_QUOTA)
        .describe(`a count${spelling(k)}`),
    ),
  );
  return z.strictObject({ [wrapper]: counts } as Record<W, typeof counts>);
}

/** Attribute names a list item may be narrowed to with `fields`. */
export const LIST_ATTRIBUTES = new Set<string>([
  'project_id',
  'tenant_id',
  ...Object.keys(LBAAS_INPUT_NAMES),
  ...LBAAS_RESOURCES.map((r) => `in_use_${r}`),
]);

/** Attribute names a single quota may be narrowed to with `fields`. */
export const SINGLE_ATTRIBUTES = new Set<string>(LBAAS_RESOURCES);

function list(v: unknown): string[] {
  if (v === undefined) return [];
  return (Array.isArray(v) ? v : [v])
    .flatMap((x) => String(x).split(','))
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * Parses the repeatable `fields` parameter (also comma-separated).
 * @returns undefined when absent (all attributes).
 * @throws AppError 400 naming an unknown attribute.
 */
export function parseFields(raw: unknown, allowed: Set<string>): string[] | undefined {
  const fields = list(raw);
  if (fields.length === 0) return undefined;
  const unknown = fields.filter((f) => !allowed.has(f));
  if (unknown.length > 0) throw bad(`Unknown field(s) requested: ${unknown.join(', ')}`);
  return fields;
}

/** Parsed list parameters. */
export interface ListQuery {
  fields?: string[];
  projectId?: string;
  /** Undefined: the largest page; 0 or less (or `infinite`) also means the largest page (Octavia: no limit). */
  limit?: number;
  marker?: string;
  /** project_id order: 1 ascending (default), -1 descending. */
  direction: 1 | -1;
  pageReverse: boolean;
}

/** Query string of the list, as parseListQuery reads it. */
export const ListQueryParams = z.object({
  fields: z
    .array(z.enum([...LIST_ATTRIBUTES]))
    .optional()
    .describe('attributes to return (repeatable or comma-separated); all when absent'),
  project_id: z.string().optional().describe('only this project'),
  limit: z
    .string()
    .regex(/^(-?\d+|infinite)$/)
    .optional()
    .describe('page size, capped at PAGINATION_MAX_LIMIT; 0, negative or `infinite` = the largest page'),
  marker: z.string().optional().describe('project_id the page starts after'),
  page_reverse: z
    .string()
    .regex(/^(true|false)$/i)
    .optional()
    .describe('True: the page before the marker'),
  sort: z.string().optional().describe('`project_id[:asc|desc]`'),
  sort_key: z.literal('project_id').optional(),
  sort_dir: z.enum(['asc', 'desc']).optional(),
});

const LIST_PARAMS = new Set(Object.keys(ListQueryParams.shape));
/** The one sort key: records are keyed and paged by project_id. */
const SORT_KEYS = new Set(['project_id']);

function direction(dir: string): 1 | -1 {
  if (dir === 'asc') return 1;
  if (dir === 'desc') return -1;
  throw bad(`Supplied sort direction '${dir}' is not valid.`);
}

/**
 * Parses list parameters as Octavia's PaginationHelper: `limit`, `marker`, `page_reverse`, `fields`, `project_id`,
 * and `sort=project_id:desc` or `sort_key=project_id&sort_dir=desc`.
 * @throws AppError 400 for unknown or invalid parameters (Octavia's messages).
 */
export function parseListQuery(query: Record<string, unknown>): ListQuery {
  for (const key of Object.keys(query)) {
    if (!LIST_PARAMS.has(key)) throw bad('One or more arguments are either duplicate or invalid');
  }
  const one = (k: string): string | undefined => {
    const v = query[k];
    if (v === undefined) return undefined;
    if (Array.isArray(v) || typeof v !== 'string') throw bad('One or more arguments are either duplicate or invalid');
    return v;
  };
  const out: ListQuery = { fields: parseFields(query.fields, LIST_ATTRIBUTES), direction: 1, pageReverse: false };
  const projectId = one('project_id');
  if (projectId !== undefined) out.projectId = parseProjectId(projectId);
  const marker = one('marker');
  if (marker !== undefined) out.marker = parseProjectId(marker, 'marker');
  const limit = one('limit');
  if (limit !== undefined) {
    if (limit === 'infinite') out.limit = 0;
    else if (/^-?\d+$/.test(limit)) out.limit = Number(limit);
    else throw bad(`Supplied pagination limit '${limit}' is not valid.`);
  }
  const pageReverse = one('page_reverse');
  if (pageReverse !== undefined) {
    if (!/^(true|false)$/i.test(pageReverse)) throw bad(`Supplied page_reverse '${pageReverse}' is not valid.`);
    out.pageReverse = pageReverse.toLowerCase() === 'true';
  }
  const sorts: [string, string][] = [];
  const sort = one('sort');
  if (sort !== undefined) {
    for (const part of sort.split(',')) {
      const [key = '', dir = 'asc'] = part.trim().split(':');
      sorts.push([key, dir]);
    }
  }
  const sortKey = one('sort_key');
  const sortDir = one('sort_dir');
  if (sortKey !== undefined) {
    const dirs = (sortDir ?? '').split(',').filter(Boolean);
    for (const [i, key] of sortKey.split(',').entries()) sorts.push([key.trim(), dirs[i] ?? 'asc']);
  } else if (sortDir !== undefined) sorts.push(['project_id', sortDir]);
  for (const [key, dir] of sorts) {
    if (!SORT_KEYS.has(key)) throw bad(`Supplied sort key '${key}' is not valid.`);
    out.direction = direction(dir);
  }
  return out;
}

/**
 * Parses `{"<wrapper>": {<resource>: count, ...}}` (consume, release, or absolute in_use). Both spellings are
 * accepted (the underscore one wins when both are sent); counts are integers from 0 to 2000000000.
 * @throws AppError 400 for a missing wrapper, an unknown resource, a non-integer or out-of-range count, or no resource.
 */
export function parseCounts(body: unknown, wrapper: string): Partial<Record<LbaasResource, number>> {
  const out = byResource(unwrap(body, wrapper, wrapper), wrapper, (key, value) => {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_QUOTA) {
      throw bad(
        `Invalid input for field/attribute ${key}. Value: '${JSON.stringify(value)}'. Value should be an integer from 0 to ${MAX_QUOTA}`,
      );
    }
    return value;
  });
  if (Object.keys(out).length === 0) throw bad(`Invalid input for field/attribute ${wrapper}. Value: '{}'. Name at least one resource`);
  return out;
}

/** Longest project id accepted (Keystone's ids are 32 to 64 characters; Octavia's column is 36). */
export const MAX_PROJECT_ID_LENGTH = 255;

/** A project id in the path: not checked against Keystone (as Octavia), only for length and characters. */
export const ProjectIdParam = z
  .string()
  .min(1)
  .max(MAX_PROJECT_ID_LENGTH)
  .refine((s) => !hasUnsafeChars(s), 'no control or bidirectional-control characters');

/**
 * A project id from the path (or the `project_id` and `marker` of a list). Not checked against Keystone (as
 * Octavia), only for length and characters.
 * @param field the name the 400 gives the value.
 * @throws AppError 400 when empty, longer than MAX_PROJECT_ID_LENGTH, or holding a control or bidi-control character.
 */
export function parseProjectId(raw: string | undefined, field = 'project_id'): string {
  if (typeof raw !== 'string' || raw.length < 1 || raw.length > MAX_PROJECT_ID_LENGTH) {
    throw bad(`Invalid input for field/attribute ${field}. Value should be 1 to ${MAX_PROJECT_ID_LENGTH} characters`);
  }
  if (hasUnsafeChars(raw)) {
    throw bad(`Invalid input for field/attribute ${field}. Value should hold no control or bidirectional-control characters`);
  }
  return raw;
}

/** Longest idempotency key accepted. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
const IDEMPOTENCY_KEY_RE = /^[\x20-\x7e]+$/;
const REQUEST_ID_RE = /^req-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The gateway's copy of the `X-Openstack-Request-Id` the client itself sent (absent when the gateway made the id up),
 * so the service can tell a client's id from a generated one.
 */
export const CLIENT_REQUEST_ID_HEADER = 'x-stratum-client-request-id';

/** `Idempotency-Key` request header (IETF draft-ietf-httpapi-idempotency-key-header; Stripe's). */
export const IdempotencyKeyHeader = z
  .string()
  .min(1)
  .max(MAX_IDEMPOTENCY_KEY_LENGTH)
  .regex(IDEMPOTENCY_KEY_RE)
  .describe(
    'a key the caller makes up per enforcement call (a UUID, say) and sends again on every retry of that call: a retry ' +
      'gets the first outcome and counts once. Plain or as a structured-field string ("…"). Without it, the ' +
      'X-Openstack-Request-Id the client sent (req-<uuid>) together with the request itself is the key.',
  );

/** An enforcement call's idempotency key and where it came from. */
export interface IdempotencyKey {
  key: string;
  /**
   * True when the key is the client's `X-Openstack-Request-Id`: OpenStack services pass one global request id along a
   * whole workflow, so such a key names a call only together with the request (another call under the same id is a
   * new call, never a 422).
   */
  fromRequestId: boolean;
}

/**
 * The idempotency key of an enforcement call: the `Idempotency-Key` header (an sf-string's quotes removed), else the
 * `X-Openstack-Request-Id` the client sent when it is a valid `req-<uuid>` (oslo.middleware's format).
 * @returns undefined when the call has no key.
 * @throws AppError 400 when `Idempotency-Key` is empty, longer than 255 characters, not printable ASCII, or repeated.
 */
export function parseIdempotencyKey(headers: Record<string, string | string[] | undefined>): IdempotencyKey | undefined {
  const given = headers['idempotency-key'];
  if (given !== undefined) {
    let key = Array.isArray(given) ? '' : given.trim();
    if (key.length >= 2 && key.startsWith('"') && key.endsWith('"')) key = key.slice(1, -1);
    if (!IdempotencyKeyHeader.safeParse(key).success) {
      throw bad(`Invalid Idempotency-Key header. Value should be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters`);
    }
    return { key, fromRequestId: false };
  }
  const requestId = headers[CLIENT_REQUEST_ID_HEADER];
  return typeof requestId === 'string' && REQUEST_ID_RE.test(requestId) ? { key: requestId, fromRequestId: true } : undefined;
}

/** Query string of show and defaults: only `fields`. */
export const ShowQueryParams = z.object({
  fields: z
    .array(z.enum([...SINGLE_ATTRIBUTES]))
    .optional()
    .describe('attributes to return (repeatable or comma-separated); all when absent'),
});

/** Query string of DELETE. */
export const ResetQueryParams = z.object({
  force: z.string().optional().describe('true: reset even when usage is above a finite default (else 409)'),
});

/** Only `fields` is accepted on show. */
export function parseShowQuery(query: Record<string, unknown>): string[] | undefined {
  for (const key of Object.keys(query)) if (key !== 'fields') throw bad(`Unknown argument: "${key}"`);
  return parseFields(query.fields, SINGLE_ATTRIBUTES);
}
