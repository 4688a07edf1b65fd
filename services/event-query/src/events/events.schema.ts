/**
 * Request shapes of group A and their parsing.
 */
import { AppError } from '@stratum/http-kit';
import { z } from 'zod';
import { type SimpleQuery, TRUE_STRINGS } from './events.query';

/** The roots of group A's query routes (events.router.ts); each is also the start of longer paths. */
export const EVENTS_PATH = '/v2/events';
export const QUERY_PATH = '/v2/query/events';
export const EVENT_TYPES_PATH = '/v2/event_types';
export const CAPABILITIES_PATH = '/v2/capabilities';

/** Panko's capabilities, flattened with `:` as Panko does; the complex query is this service's extension. */
export const CAPABILITIES = {
  api: { 'events:query:simple': true, 'events:query:complex': true },
  event_storage: { 'storage:production_ready': true },
};

const Q_KEY = /^q(?:\[(\d+)\])?\.(field|op|value|type)$/;

/** One filter of the list (Panko's `Query`): `field op value`, the value converted by `type`. */
export const QItem = z.strictObject({
  field: z.string().min(1).describe('event_type, message_id, start_timestamp, end_timestamp, all_tenants, or a trait name'),
  op: z.string().optional().describe('lt, le, eq (default), ne, ge, gt'),
  value: z.union([z.string(), z.number(), z.boolean()]).transform(String),
  type: z.string().optional().describe('string (default), integer, float or datetime; any case'),
});

/** JSON body of `GET/POST /v2/events` (Panko reads it on GET too); its keys are the list's arguments. */
export const ListBody = z.strictObject({
  q: z.array(QItem).optional(),
  limit: z.union([z.int().positive(), z.string()]).optional().describe('positive integer; default 100, at most EVENTS_MAX_LIMIT'),
  sort: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .describe('`key[:asc|desc]`, keys generated, message_id, event_type'),
  marker: z.string().optional().describe('message_id of the last row of the previous page'),
});

/** Query-string and body keys `GET/POST /v2/events` accepts. */
const LIST_ARGS = new Set(Object.keys(ListBody.shape));

/** Repeatable query parameter (`?k=a&k=b`). */
const repeated = (description: string) => z.array(z.string()).optional().describe(description);

/**
 * Query string of `GET/POST /v2/events`: positional `q.*` (the i-th of each key forms the i-th filter); the indexed
 * form `q[i].field`, … is accepted too.
 */
export const ListQueryString = z.object({
  'q.field': repeated(QItem.shape.field.description as string),
  'q.op': repeated(QItem.shape.op.description as string),
  'q.value': repeated('value compared with the field'),
  'q.type': repeated(QItem.shape.type.description as string),
  limit: z
    .int()
    .positive()
    .optional()
    .describe(ListBody.shape.limit.description as string),
  sort: repeated(ListBody.shape.sort.description as string),
  marker: z
    .string()
    .optional()
    .describe(ListBody.shape.marker.description as string),
});

/** `all_tenants`: admins only, oslo boolean string; lifts the project restriction. */
const AllTenants = z.string().optional().describe('admins: true lifts the project restriction (oslo boolean string)');

/** Query string of the event and event-type reads (parsePageInput's `all_tenants`). */
export const AllTenantsQuery = z.object({ all_tenants: AllTenants });

/** Query string of `GET /v2/event_types/{type}/traits/{name}` (parsePageInput's keys). */
export const PageQuery = z.object({
  limit: z.int().positive().optional().describe('positive integer; default 100, at most EVENTS_MAX_LIMIT'),
  marker: z.string().optional().describe('the `Link: rel="next"` header gives it'),
  all_tenants: AllTenants,
});

/** Parsed `GET/POST /v2/events` input. */
export interface ListInput {
  q: SimpleQuery[];
  limit: number | undefined;
  sort: string[];
  /** message_id of the last row of the previous page. */
  marker: string | undefined;
}

function asList(v: unknown): string[] {
  if (v === undefined) return [];
  return (Array.isArray(v) ? v : [v]).map(String);
}

/** Parses a positive integer limit, Panko's message otherwise. */
export function parseLimit(raw: unknown): number | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  const text = String(raw);
  const n = Number(text);
  if (!/^-?\d+$/.test(text.trim()) || !Number.isSafeInteger(n)) {
    throw new AppError(400, `Invalid input for field/attribute limit. Value: '${text}'. unable to convert to int`);
  }
  if (n <= 0) throw new AppError(400, `Invalid input for field/attribute limit. Value: '${text}'. the limit should be a positive integer.`);
  return n;
}

/**
 * Parses Panko's list parameters from the query string (positional `q.field=a&q.op=eq&q.value=x&...`, or indexed
 * `q[0].field=...`) and from a JSON body (`{"q":[...], "limit": n}`), which Panko accepts on GET too.
 * @throws AppError 400: unknown argument, a parameter given twice, a malformed q element.
 */
export function parseListInput(query: Record<string, unknown>, body: unknown): ListInput {
  const positional: Record<string, string[]> = { field: [], op: [], value: [], type: [] };
  const indexed = new Map<number, Record<string, string>>();
  const given = new Set<string>();
  for (const [key, value] of Object.entries(query)) {
    const m = Q_KEY.exec(key);
    if (m) {
      given.add('q');
      const sub = m[2] as string;
      if (m[1] !== undefined) {
        const i = Number(m[1]);
        const entry = indexed.get(i) ?? {};
        entry[sub] = asList(value).at(-1) ?? '';
        indexed.set(i, entry);
      } else {
        (positional[sub] as string[]).push(...asList(value));
      }
      continue;
    }
    if (!LIST_ARGS.has(key) || key === 'q') throw new AppError(400, `Unknown argument: "${key}"`);
    given.add(key);
  }

  let q: SimpleQuery[] = [];
  const fields = positional.field as string[];
  for (let i = 0; i < fields.length; i++) {
    q.push({
      field: fields[i] as string,
      op: positional.op?.[i] ?? 'eq',
      value: positional.value?.[i] ?? '',
      type: positional.type?.[i] ?? '',
    });
  }
  if ((positional.value as string[]).length < fields.length) throw new AppError(400, 'Mandatory field missing: q.value');
  for (const [, e] of [...indexed.entries()].sort((a, b) => a[0] - b[0])) {
    if (!e.field || e.value === undefined) throw new AppError(400, 'Each q element needs a field and a value');
    q.push({ field: e.field, op: e.op ?? 'eq', value: e.value, type: e.type ?? '' });
  }

  let limit: unknown = query.limit;
  let marker: unknown = query.marker;
  const sort = asList(query.sort);
  // No body at all is undefined; a JSON `null` is a body, and not an object.
  const emptyObject = typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 0;
  if (body !== undefined && !emptyObject) {
    if (body === null || typeof body !== 'object' || Array.isArray(body))
      throw new AppError(400, 'The request body must be a JSON object.');
    for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
      if (!LIST_ARGS.has(key)) throw new AppError(400, `Unknown argument: "${key}"`);
      if (given.has(key)) throw new AppError(400, `Parameter ${key} was given several times`);
      if (key === 'q') {
        const parsed = z.array(QItem).safeParse(value);
        if (!parsed.success) throw new AppError(400, `Invalid input for field/attribute q: ${parsed.error.issues[0]?.message}`);
        q = parsed.data.map((e) => ({ field: e.field, op: e.op ?? 'eq', value: e.value, type: e.type ?? '' }));
      } else if (key === 'limit') {
        limit = value;
      } else if (key === 'sort') {
        sort.push(...asList(value));
      } else if (key === 'marker') {
        marker = value;
      }
    }
  }
  if (Array.isArray(marker) || (marker !== undefined && typeof marker !== 'string')) {
    throw new AppError(400, 'Invalid input for field/attribute marker: give one message_id.');
  }
  return { q, limit: parseLimit(limit), sort, marker: marker === '' ? undefined : marker };
}

/** `POST /v2/query/events` body: Ceilometer's complex query, plus SPEC.md's `desc` sort mode. */
export const ComplexQueryBody = z.strictObject({
  filter: z
    .union([z.string(), z.record(z.string(), z.unknown())])
    .optional()
    .describe('JSON text of the filter expression (an object is accepted too), e.g. `{"and":[{"=":{"resource_id":"…"}},…]}`'),
  orderby: z
    .union([z.string(), z.array(z.unknown())])
    .optional()
    .describe('JSON text of the order-by list (a list is accepted too), e.g. `[{"timestamp":"desc"}]`'),
  limit: z.union([z.number(), z.string()]).optional().describe('positive integer; default 100, at most EVENTS_MAX_LIMIT'),
  desc: z
    .union([z.string(), z.boolean()])
    .optional()
    .describe("SPEC.md's sort mode, when orderby is absent: true/desc newest first (default), false/asc oldest first"),
  all_tenants: z
    .union([z.string(), z.boolean()])
    .optional()
    .describe('admins only: true lifts the project restriction, as all_tenants does on the list'),
});
export type ComplexQueryBody = z.infer<typeof ComplexQueryBody>;

const FALSE_STRINGS = new Set(['0', 'f', 'false', 'off', 'n', 'no', '']);

/**
 * oslo's `bool_from_string` in strict form: `true/1/yes/on/t/y` or `false/0/no/off/f/n` in any case.
 * @throws AppError 400 naming the parameter for anything else.
 */
export function parseBoolean(value: unknown, name: string): boolean {
  if (value === undefined || typeof value === 'boolean') return value === true;
  if (Array.isArray(value)) throw new AppError(400, `Parameter ${name} was given several times`);
  if (typeof value !== 'string') throw new AppError(400, `Invalid input for field/attribute ${name}. Expected a boolean.`);
  const v = value.trim().toLowerCase();
  if (TRUE_STRINGS.has(v)) return true;
  if (FALSE_STRINGS.has(v)) return false;
  throw new AppError(400, `Invalid input for field/attribute ${name}. Value: '${value}'. Expected a boolean.`);
}

/**
 * SPEC.md's `desc` sort mode of the complex query: absent → newest first (Ceilometer's default order); `true`,
 * `desc` → newest first; `false`, `asc` → oldest first.
 * @throws AppError 400 for anything else.
 */
export function parseDesc(desc: string | boolean | undefined): boolean {
  if (desc === undefined || desc === '') return true;
  if (typeof desc === 'boolean') return desc;
  const v = desc.trim().toLowerCase();
  if (v === 'desc') return true;
  if (v === 'asc') return false;
  try {
    return parseBoolean(desc, 'desc');
  } catch {
    throw new AppError(400, `Invalid input for field/attribute desc. Value: '${desc}'. Expected true/false or asc/desc.`);
  }
}

/** Query string of the trait-values and event-type endpoints: `limit`, `marker`, `all_tenants`. */
export function parsePageInput(
  query: Record<string, unknown>,
  allowed: readonly string[],
): { limit?: number; marker?: string; allTenants: boolean } {
  for (const key of Object.keys(query)) {
    if (!allowed.includes(key)) throw new AppError(400, `Unknown argument: "${key}"`);
  }
  const one = (k: string) => {
    const v = query[k];
    if (Array.isArray(v)) throw new AppError(400, `Parameter ${k} was given several times`);
    return v === undefined || v === '' ? undefined : String(v);
  };
  return { limit: parseLimit(one('limit')), marker: one('marker'), allTenants: parseBoolean(one('all_tenants'), 'all_tenants') };
}
