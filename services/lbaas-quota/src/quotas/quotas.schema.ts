/**
 * Group B's request schemas: the path, the list/show/delete query strings, the PUT body and the enforcement bodies.
 * Each is the parser (quotas.router.ts runs it with http-kit's validate()) and the documentation (quotas.openapi.ts),
 * and each issue carries Octavia's message (errors.ts `invalidInput`).
 *
 * Stricter than Octavia (docs/upstream/lbaas-quota.md §3): integers only, no string/float/bool coercion, and every
 * malformed body is a 400 (Octavia answers 500 to `{}`, `{"quota": 5}`, list/object values).
 */
import { hasUnsafeChars } from '@stratum/http-kit/wire';
import {
  LBAAS_INPUT_NAMES,
  LBAAS_NEW_NAME,
  LBAAS_RESOURCES,
  type LbaasLimits,
  type LbaasResource,
  MAX_QUOTA,
  MIN_QUOTA,
} from '@stratum/quota-items';
import { z } from 'zod';
import { invalidIdempotencyKey, invalidInput } from '../errors';

/** Longest project id accepted (Keystone's ids are 32 to 64 characters; Octavia's column is 36). */
export const MAX_PROJECT_ID_LENGTH = 255;

/**
 * A project id: not checked against Keystone (as Octavia), only for length and characters.
 * @param field the name its 400 gives it (`project_id`, or `marker` in a list).
 * @param notAString the 400 for a value that is not one string (a repeated query parameter).
 */
function projectId(field: string, notAString = invalidInput.projectIdLength(field, MAX_PROJECT_ID_LENGTH)) {
  const length = invalidInput.projectIdLength(field, MAX_PROJECT_ID_LENGTH);
  return z
    .string({ error: notAString })
    .min(1, { error: length })
    .max(MAX_PROJECT_ID_LENGTH, { error: length })
    .refine((s) => !hasUnsafeChars(s), { error: invalidInput.projectIdChars(field) });
}

/** The path of every per-project route. */
export const ProjectParams = z.object({
  project_id: projectId('project_id').describe('a Keystone project id (not checked against Keystone)'),
});

/** Which spelling an input key is: Octavia's canonical one or the underscore one (which wins when both are sent). */
function spelling(key: string): string {
  const resource = LBAAS_INPUT_NAMES[key] as LbaasResource;
  if (LBAAS_NEW_NAME[resource] === resource) return '';
  return key === resource ? `; wins over ${LBAAS_NEW_NAME[resource]} when both are sent` : `; same as ${resource}`;
}

/**
 * `{<resource>: value}` in either spelling of each resource, as Octavia's `argument` (its name in messages), read as
 * `{<storage key>: value}`: when both spellings of a resource are sent, the underscore one (`load_balancer`) wins.
 * Unknown keys, `constructor` and `__proto__` included, are a 400.
 */
function byResource<T extends z.ZodType>(argument: string, wrapper: string, value: (key: string) => T) {
  const shape = Object.fromEntries(Object.keys(LBAAS_INPUT_NAMES).map((k) => [k, value(k).optional()]));
  return z
    .strictObject(shape as Record<string, z.ZodOptional<T>>, {
      error: (iss) =>
        iss.code === 'unrecognized_keys'
          ? invalidInput.unknownAttribute(argument, iss.keys.slice(0, 1))
          : iss.input === undefined
            ? invalidInput.missingArgument(wrapper)
            : invalidInput.notAnObject(wrapper, iss.input),
    })
    .transform((given) => {
      const out: Partial<Record<LbaasResource, z.output<T>>> = {};
      for (const r of LBAAS_RESOURCES) {
        const key = Object.hasOwn(given, r) ? r : LBAAS_NEW_NAME[r];
        if (Object.hasOwn(given, key)) out[r] = given[key];
      }
      return out;
    });
}

/**
 * `{"<wrapper>": {...}}` and nothing else.
 * @param argument Octavia's name of the whole body in its messages (`quotas` for PUT).
 */
function wrapped<W extends string, T extends z.ZodType>(argument: string, wrapper: W, inner: T) {
  return z.strictObject({ [wrapper]: inner } as Record<W, T>, {
    error: (iss) =>
      iss.code === 'unrecognized_keys' ? invalidInput.unknownAttribute(argument, iss.keys) : invalidInput.missingArgument(argument),
  });
}

/** `PUT /quotas/{project_id}` body: omitted keys unchanged, null = the deployment default again. */
export const QuotaPutBody = wrapped(
  'quotas',
  'quota',
  byResource('quotas.quota', 'quota', (k) =>
    z
      .int({ error: (iss) => invalidInput.limit(k, iss.input) })
      .min(MIN_QUOTA, { error: (iss) => invalidInput.limit(k, iss.input) })
      .max(MAX_QUOTA, { error: (iss) => invalidInput.limit(k, iss.input) })
      .nullable()
      .describe(`-1 unlimited, 0 none, null the deployment default${spelling(k)}`),
  ),
).transform((b): Partial<LbaasLimits> => b.quota);

/** Per-resource counts of an enforcement body (at least one resource). */
function counts(wrapper: string) {
  return byResource(wrapper, wrapper, (k) =>
    z
      .int({ error: (iss) => invalidInput.count(k, iss.input) })
      .min(0, { error: (iss) => invalidInput.count(k, iss.input) })
      .max(MAX_QUOTA, { error: (iss) => invalidInput.count(k, iss.input) })
      .describe(`a count${spelling(k)}`),
  ).refine((c) => Object.keys(c).length > 0, { error: invalidInput.noResource(wrapper) });
}

/** Per-resource counts (consume, release, or absolute in_use); omitted resources are untouched. */
export type ResourceCounts = Partial<Record<LbaasResource, number>>;

/** An enforcement action. */
export type EnforcementAction = 'consume' | 'release';

/**
 * `POST /quotas/{project_id}/usage` body: exactly one of `{"consume": {...}}` and `{"release": {...}}` (anything else,
 * a non-object body included, is that one 400), read as the action and its counts.
 */
export const UsageChangeBody = z
  .strictObject({ consume: counts('consume').optional(), release: counts('release').optional() }, { error: invalidInput.oneAction })
  // Also when the counts have problems: the action is the first thing wrong with a body naming two.
  .refine((b) => typeof b === 'object' && b !== null && Object.keys(b).length === 1, {
    error: invalidInput.oneAction,
    when: () => true,
  })
  .transform((b): { action: EnforcementAction; counts: ResourceCounts } =>
    b.consume ? { action: 'consume', counts: b.consume } : { action: 'release', counts: b.release ?? {} },
  );

/** `PUT /quotas/{project_id}/usage` body: absolute in_use counts (reconciliation). */
export const InUseBody = wrapped('in_use', 'in_use', counts('in_use')).transform((b): ResourceCounts => b.in_use);

/** Attribute names a list item may be narrowed to with `fields`. */
export const LIST_ATTRIBUTES = [
  'project_id',
  'tenant_id',
  ...Object.keys(LBAAS_INPUT_NAMES),
  ...LBAAS_RESOURCES.map((r) => `in_use_${r}`),
] as const;

/** Attribute names a single quota may be narrowed to with `fields`. */
export const SINGLE_ATTRIBUTES = LBAAS_RESOURCES;

/**
 * The repeatable `fields` parameter (also comma-separated), naming only `allowed` attributes.
 * @returns undefined when absent or empty (all attributes).
 */
function fieldsParam(allowed: readonly string[]) {
  const known = new Set(allowed);
  return z
    .preprocess((raw, ctx) => {
      if (raw === undefined) return undefined;
      const fields = (Array.isArray(raw) ? raw : [raw])
        .flatMap((x) => String(x).split(','))
        .map((s) => s.trim())
        .filter(Boolean);
      // Every unknown name in one message (the enum below would name them one by one).
      const unknown = fields.filter((f) => !known.has(f));
      if (unknown.length > 0) ctx.addIssue({ code: 'custom', message: invalidInput.unknownFields(unknown), input: raw });
      return fields.length > 0 ? fields : undefined;
    }, z.array(z.enum(allowed as [string, ...string[]])).optional())
    .describe('attributes to return (repeatable or comma-separated); all when absent');
}

/** One value of a list parameter: a repeated parameter is Octavia's duplicate-or-invalid 400. */
const single = () => z.string({ error: invalidInput.duplicateOrInvalid });

/** A `sort`/`sort_key` key: records are keyed and paged by project_id only. */
const SortKey = z.literal('project_id', { error: (iss) => invalidInput.sortKey(iss.input) });
const SortDirection = z.enum(['asc', 'desc'], { error: (iss) => invalidInput.sortDirection(iss.input) });
const splitList = (s: string) => s.split(',').map((x) => x.trim());

/**
 * The list's parameters as sent (Octavia's PaginationHelper): every other parameter, or a repeated one, is a 400.
 * The first step of ListQueryParams, and what `/openapi.json` shows (a query is documented as an object).
 */
export const ListParams = z.strictObject(
  {
    fields: fieldsParam(LIST_ATTRIBUTES),
    project_id: projectId('project_id', invalidInput.duplicateOrInvalid).optional().describe('only this project'),
    limit: single()
      .regex(/^(-?\d+|infinite)$/, { error: (iss) => invalidInput.paginationLimit(iss.input) })
      .optional()
      .describe('page size, capped at PAGINATION_MAX_LIMIT; 0, negative or `infinite` = the largest page'),
    marker: projectId('marker', invalidInput.duplicateOrInvalid).optional().describe('project_id the page starts after'),
    page_reverse: single()
      .regex(/^(true|false)$/i, { error: (iss) => invalidInput.pageReverse(iss.input) })
      .optional()
      .describe('True: the page before the marker'),
    sort: single().optional().describe('`project_id[:asc|desc]`, comma-separated'),
    sort_key: single().optional().describe('`project_id` (comma-separated, paired with sort_dir)'),
    sort_dir: single().optional().describe('`asc` or `desc`'),
  },
  { error: invalidInput.duplicateOrInvalid },
);

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

/**
 * `GET /quotas` query: `limit`, `marker`, `page_reverse`, `fields`, `project_id`, and the order as
 * `sort=project_id:desc` or `sort_key=project_id&sort_dir=desc` (sort_dir alone applies to project_id). Every sort
 * entry is checked, key then direction; the last one gives the order.
 */
export const ListQueryParams = ListParams.transform((q) => {
  const sorts: [string, string][] = [];
  for (const part of q.sort === undefined ? [] : splitList(q.sort)) {
    const [key = '', dir = 'asc'] = part.split(':');
    sorts.push([key, dir]);
  }
  if (q.sort_key !== undefined) {
    const dirs = (q.sort_dir ?? '').split(',').filter(Boolean);
    for (const [i, key] of splitList(q.sort_key).entries()) sorts.push([key, dirs[i] ?? 'asc']);
  } else if (q.sort_dir !== undefined) sorts.push(['project_id', q.sort_dir]);
  return { q, sorts };
})
  .pipe(z.object({ q: z.custom<z.output<typeof ListParams>>(), sorts: z.array(z.tuple([SortKey, SortDirection])) }))
  .transform(
    ({ q, sorts }): ListQuery => ({
      fields: q.fields,
      projectId: q.project_id,
      marker: q.marker,
      limit: q.limit === undefined ? undefined : q.limit === 'infinite' ? 0 : Number(q.limit),
      direction: sorts.at(-1)?.[1] === 'desc' ? -1 : 1,
      pageReverse: q.page_reverse?.toLowerCase() === 'true',
    }),
  );

/** `GET /quotas/{project_id}` and the defaults: only `fields`. */
export const ShowQueryParams = z
  .strictObject({ fields: fieldsParam(SINGLE_ATTRIBUTES) }, { error: (iss) => invalidInput.unknownArgument(unrecognized(iss)) })
  .transform((q) => q.fields);

/** The first unrecognized key of an issue (`unrecognized_keys`), else ''. */
function unrecognized(iss: z.core.$ZodRawIssue): PropertyKey {
  return iss.code === 'unrecognized_keys' ? (iss.keys[0] ?? '') : '';
}

/** `DELETE /quotas/{project_id}` query: `force=true` resets even when usage is above a finite default. */
export const ResetQueryParams = z
  .object({
    // Anything but one `true` (any case), a repeated parameter included, is false.
    force: z
      .preprocess((v) => (Array.isArray(v) ? undefined : v), z.string().optional())
      .describe('true: reset even when usage is above a finite default (else 409)'),
  })
  .transform((q) => q.force?.toLowerCase() === 'true');

/** Longest idempotency key accepted. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
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
  .regex(/^[\x20-\x7e]+$/)
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
 * The idempotency key of an enforcement call: the `Idempotency-Key` header (an sf-string's quotes removed) parsed
 * with IdempotencyKeyHeader, else the `X-Openstack-Request-Id` the client sent when it is a valid `req-<uuid>`
 * (oslo.middleware's format).
 * @returns undefined when the call has no key.
 * @throws AppError 400 (errors.ts invalidIdempotencyKey) when `Idempotency-Key` is empty, longer than 255 characters,
 *   not printable ASCII, or repeated.
 */
export function parseIdempotencyKey(headers: Record<string, string | string[] | undefined>): IdempotencyKey | undefined {
  const given = headers['idempotency-key'];
  if (given !== undefined) {
    let key = Array.isArray(given) ? '' : given.trim();
    if (key.length >= 2 && key.startsWith('"') && key.endsWith('"')) key = key.slice(1, -1);
    if (!IdempotencyKeyHeader.safeParse(key).success) throw invalidIdempotencyKey(MAX_IDEMPOTENCY_KEY_LENGTH);
    return { key, fromRequestId: false };
  }
  const requestId = headers[CLIENT_REQUEST_ID_HEADER];
  return typeof requestId === 'string' && REQUEST_ID_RE.test(requestId) ? { key: requestId, fromRequestId: true } : undefined;
}
