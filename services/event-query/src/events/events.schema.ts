/**
 * Request shapes of group A: the zod schemas the routes validate with (http-kit `validate()`, events.router.ts) and
 * the OpenAPI document describes (events.openapi.ts). Each rule is stated here once, with Panko's message for it
 * (errors.ts); what a schema cannot see (a key in both the query string and the body) is `listInput`.
 */
import { z } from 'zod';
import * as errors from '../errors';
import { parseQueryJson } from './events.complex';
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

// --- Rules shared by several parameters ---------------------------------------------------------------------------

type Ctx = z.core.$RefinementCtx;

/** Reports `error`'s message as the issue and ends the transform. */
function fail(ctx: Ctx, error: Error): never {
  ctx.addIssue({ code: 'custom', message: error.message });
  return z.NEVER;
}

/** zod's own text for an issue (as `safeParse` would give it), for messages that quote it. */
function zodMessage(iss: z.core.$ZodRawIssue): string {
  const m = z.config().localeError?.(iss);
  return (typeof m === 'string' ? m : m?.message) ?? 'Invalid input';
}

const LIMIT_DESCRIPTION = 'positive integer; default 100, at most EVENTS_MAX_LIMIT';
/** How the OpenAPI document shows a `limit` the transform below checks (its input may be any JSON type or text). */
const LIMIT_META = { type: 'integer', minimum: 1, description: LIMIT_DESCRIPTION } as const;

/**
 * Panko's `limit`: a positive integer, as a number or its text; absent, null or '' is none (the default applies).
 * Anything else echoes the value as given (`String(raw)`: `'1,2'` for a repeated parameter).
 */
function positiveLimit(raw: unknown, ctx: Ctx): number | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  const text = String(raw);
  const n = Number(text);
  if (!/^-?\d+$/.test(text.trim()) || !Number.isSafeInteger(n)) return fail(ctx, errors.limitNotInteger(text));
  if (n <= 0) return fail(ctx, errors.limitNotPositive(text));
  return n;
}

/** `limit` of the list, from the query string or the body, whatever its JSON type. */
const ListLimit = z.unknown().transform(positiveLimit).meta(LIMIT_META);

const FALSE_STRINGS = new Set(['0', 'f', 'false', 'off', 'n', 'no', '']);

/**
 * oslo's `bool_from_string` in strict form: `true/1/yes/on/t/y` or `false/0/no/off/f/n` in any case; a JSON
 * boolean as is; anything else a 400 naming the parameter.
 */
const osloBoolean =
  (name: string) =>
  (value: string | boolean, ctx: Ctx): boolean => {
    if (typeof value === 'boolean') return value;
    const v = value.trim().toLowerCase();
    if (TRUE_STRINGS.has(v)) return true;
    if (FALSE_STRINGS.has(v)) return false;
    return fail(ctx, errors.notBoolean(name, value));
  };

/** A query parameter given at most once (`?k=a&k=b` is a 400); '' is as absent. */
const once = (name: string) =>
  z
    .string({ error: (iss) => (Array.isArray(iss.input) ? errors.givenSeveralTimes(name).message : undefined) })
    .transform((v) => (v === '' ? undefined : v));

/** Unknown query-string or body keys: Panko's `Unknown argument: "<key>"` for the first. */
const unknownKeys = (iss: z.core.$ZodRawIssue): string | undefined =>
  iss.code === 'unrecognized_keys' ? errors.unknownArgument(String(iss.keys[0])).message : undefined;

// --- GET/POST /v2/events (A3) ------------------------------------------------------------------------------------

/** zod's text for a body `q` element, under Panko's `Invalid input for field/attribute q:`. */
const inQ = { error: (iss: z.core.$ZodRawIssue) => errors.invalidQ(zodMessage(iss)).message };

/** One filter of the list (Panko's `Query`): `field op value`, the value converted by `type`. */
export const QItem = z
  .strictObject(
    {
      field: z.string(inQ).min(1, inQ).describe('event_type, message_id, start_timestamp, end_timestamp, all_tenants, or a trait name'),
      op: z.string(inQ).optional().describe('lt, le, eq (default), ne, ge, gt'),
      value: z.union([z.string(), z.number(), z.boolean()], inQ).transform(String),
      type: z.string(inQ).optional().describe('string (default), integer, float or datetime; any case'),
    },
    inQ,
  )
  .transform((e): SimpleQuery => ({ field: e.field, op: e.op ?? 'eq', value: e.value, type: e.type ?? '' }));

/**
 * What the list takes, from the query string or the body. A key is present when the client gave it (even with no
 * value), so `listInput` can refuse one given in both.
 */
export interface ListArgs {
  q?: SimpleQuery[];
  limit?: number | undefined;
  sort?: string[];
  /** message_id of the last row of the previous page. */
  marker?: string | undefined;
}

const MARKER_DESCRIPTION = 'message_id of the last row of the previous page';
const SORT_DESCRIPTION = '`key[:asc|desc]`, keys generated, message_id, event_type';

/** One marker: a string ('' is none). */
const Marker = z
  .string({ error: () => errors.markerNotOne().message })
  .transform((v) => (v === '' ? undefined : v))
  .describe(MARKER_DESCRIPTION);

/** JSON body of `GET/POST /v2/events` (Panko reads it on GET too); its keys are the list's arguments. */
export const ListBody = z.strictObject(
  {
    q: z.array(QItem, inQ).optional(),
    limit: ListLimit.optional(),
    sort: z
      .union([z.string().transform((s) => [s]), z.array(z.string())], {
        error: (iss) => errors.invalidSortKey(String(iss.input)).message,
      })
      .optional()
      .describe(SORT_DESCRIPTION),
    marker: Marker.optional(),
  },
  { error: (iss) => (iss.code === 'invalid_type' ? errors.bodyNotObject().message : unknownKeys(iss)) },
);

/** Indexed filter keys `q[i].field`, `q[i].op`, `q[i].value`, `q[i].type`. */
const Q_INDEXED = /^q\[(\d+)\]\.(field|op|value|type)$/;

/** Positional filter keys: the i-th of each forms the i-th filter. */
const Q_POSITIONAL = new Set(['q.field', 'q.op', 'q.value', 'q.type']);

/** Repeatable query parameter (`?k=a&k=b`), as a list. */
const repeated = (description: string) =>
  z
    .union([z.string().transform((s) => [s]), z.array(z.string())])
    .optional()
    .describe(description);

/**
 * Query string of `GET/POST /v2/events`: positional `q.*` (the i-th of each key forms the i-th filter), or the
 * indexed form `q[i].field`, …; then `limit`, `sort` (repeatable) and `marker`. Parsed into ListArgs.
 */
export const ListQueryString = z
  .looseObject({
    'q.field': repeated(QItem.in.shape.field.description as string),
    'q.op': repeated(QItem.in.shape.op.description as string),
    'q.value': repeated('value compared with the field'),
    'q.type': repeated(QItem.in.shape.type.description as string),
    limit: ListLimit.optional(),
    sort: repeated(SORT_DESCRIPTION),
    marker: Marker.optional(),
  })
  .transform((query, ctx): ListArgs => {
    const out: ListArgs = {};
    const indexed = new Map<number, Partial<Record<'field' | 'op' | 'value' | 'type', string>>>();
    for (const [key, value] of Object.entries(query)) {
      const m = Q_INDEXED.exec(key);
      if (m) {
        const entry = indexed.get(Number(m[1])) ?? {};
        entry[m[2] as keyof typeof entry] = (Array.isArray(value) ? value.at(-1) : String(value)) ?? '';
        indexed.set(Number(m[1]), entry);
      } else if (Q_POSITIONAL.has(key)) {
        out.q = [];
      } else if (key === 'limit') {
        out.limit = query.limit;
      } else if (key === 'sort') {
        out.sort = query.sort;
      } else if (key === 'marker') {
        out.marker = query.marker;
      } else {
        return fail(ctx, errors.unknownArgument(key));
      }
    }
    const fields = query['q.field'] ?? [];
    const values = query['q.value'] ?? [];
    if (values.length < fields.length) return fail(ctx, errors.qValueMissing());
    const q = fields.map((field, i) => ({
      field,
      op: query['q.op']?.[i] ?? 'eq',
      value: values[i] ?? '',
      type: query['q.type']?.[i] ?? '',
    }));
    for (const [, e] of [...indexed.entries()].sort((a, b) => a[0] - b[0])) {
      if (!e.field || e.value === undefined) return fail(ctx, errors.qElementIncomplete());
      q.push({ field: e.field, op: e.op ?? 'eq', value: e.value, type: e.type ?? '' });
    }
    if (indexed.size > 0 || out.q) out.q = q;
    return out;
  });

/** Parsed `GET/POST /v2/events` input. */
export interface ListInput {
  q: SimpleQuery[];
  limit: number | undefined;
  sort: string[];
  /** message_id of the last row of the previous page. */
  marker: string | undefined;
}

/**
 * The list's arguments from the query string and the body (either may hold any of them, not both).
 * @throws AppError 400 `Parameter <key> was given several times` for a key in both.
 */
export function listInput(query: ListArgs, body: ListArgs | undefined): ListInput {
  const args = { ...query };
  for (const [key, value] of Object.entries(body ?? {})) {
    if (key in query) throw errors.givenSeveralTimes(key);
    (args as Record<string, unknown>)[key] = value;
  }
  return { q: args.q ?? [], limit: args.limit, sort: args.sort ?? [], marker: args.marker };
}

// --- Event and event-type reads ------------------------------------------------------------------------------------

/** `all_tenants`: admins only, an oslo boolean string; lifts the project restriction. */
const AllTenants = once('all_tenants')
  .transform((v, ctx) => v !== undefined && osloBoolean('all_tenants')(v, ctx))
  .optional()
  .describe('admins: true lifts the project restriction (oslo boolean string)');

/** Query string of the event and event-type reads: `all_tenants` only. */
export const AllTenantsQuery = z.strictObject({ all_tenants: AllTenants }, { error: unknownKeys });

/** Query string of `GET /v2/event_types/{type}/traits/{name}`. */
export const PageQuery = z.strictObject(
  {
    limit: once('limit').transform(positiveLimit).meta(LIMIT_META).optional(),
    marker: once('marker').optional().describe('the `Link: rel="next"` header gives it'),
    all_tenants: AllTenants,
  },
  { error: unknownKeys },
);

/** Path of `GET /v2/events/{message_id}`. */
export const MessageIdParams = z.object({ message_id: z.string().describe("the event's message_id (a UUID)") });
/** Path of `GET /v2/event_types/{event_type}` and its `traits`. */
export const EventTypeParams = z.object({ event_type: z.string().describe('an event type, e.g. compute.instance.create.end') });
/** Path of `GET /v2/event_types/{event_type}/traits/{trait_name}`. */
export const TraitNameParams = EventTypeParams.extend({ trait_name: z.string().describe('a trait name, e.g. resource_id') });

// --- POST /v2/query/events (A2) ------------------------------------------------------------------------------------

/** zod's text for a complex-query body field, as `Invalid query body: <field>: <text>`. */
const inBody = (path: string) => ({ error: (iss: z.core.$ZodRawIssue) => errors.invalidQueryBody(path, zodMessage(iss)).message });

/**
 * The sort mode of the complex query when orderby is absent: absent or '' → newest first (Ceilometer's default
 * order); `true`, `desc` → newest first; `false`, `asc` → oldest first; other oslo booleans as such.
 */
function descMode(desc: string | boolean, ctx: Ctx): boolean {
  if (typeof desc === 'boolean') return desc;
  if (desc === '') return true;
  const v = desc.trim().toLowerCase();
  if (v === 'desc' || TRUE_STRINGS.has(v)) return true;
  if (v === 'asc' || FALSE_STRINGS.has(v)) return false;
  return fail(ctx, errors.invalidDesc(desc));
}

/** JSON text parsed losslessly (a value given as JSON itself stays as is); a parse error is `<prefix><parser message>`. */
const jsonText =
  (prefix: string) =>
  (value: unknown, ctx: Ctx): unknown => {
    if (typeof value !== 'string') return value;
    try {
      return parseQueryJson(value, prefix);
    } catch (err) {
      return fail(ctx, err as Error);
    }
  };

/** `POST /v2/query/events` body: Ceilometer's complex query, plus the `desc` sort mode. No body is `{}`. */
export const ComplexQueryBody = z.strictObject(
  {
    filter: z
      .union([z.string(), z.record(z.string(), z.unknown())], inBody('filter'))
      .transform(jsonText(errors.FILTER_NOT_VALID))
      .optional()
      .describe('JSON text of the filter expression (an object is accepted too), e.g. `{"and":[{"=":{"resource_id":"…"}},…]}`'),
    orderby: z
      .union([z.string(), z.array(z.unknown())], inBody('orderby'))
      .transform(jsonText(errors.ORDER_BY_NOT_VALID))
      .optional()
      .describe('JSON text of the order-by list (a list is accepted too), e.g. `[{"timestamp":"desc"}]`'),
    limit: z.union([z.number(), z.string()], inBody('limit')).transform(positiveLimit).optional().describe(LIMIT_DESCRIPTION),
    desc: z
      .union([z.string(), z.boolean()], inBody('desc'))
      .transform(descMode)
      .optional()
      .describe('the sort mode, when orderby is absent: true/desc newest first (default), false/asc oldest first'),
    all_tenants: z
      .union([z.string(), z.boolean()], inBody('all_tenants'))
      .transform(osloBoolean('all_tenants'))
      .optional()
      .describe('admins only: true lifts the project restriction, as all_tenants does on the list'),
  },
  inBody('body'),
);
export type ComplexQueryBody = z.output<typeof ComplexQueryBody>;
