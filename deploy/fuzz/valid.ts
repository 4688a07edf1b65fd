/**
 * The valid-ish request of an operation, before any mutation: path ids from the stack's fixtures, query parameters
 * and the body from the operation's schemas.
 */
import fc from 'fast-check';
import type { Draft, Fixtures } from './draft';
import type { Operation, Parameter, Schema } from './operations';

export const hex = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 32, maxLength: 32 });
export const word = fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 12 });

/** Weighted choice of one of `xs` (fixtures first: ids that exist). */
export const pick = <T>(xs: T[], fallback: fc.Arbitrary<T>): fc.Arbitrary<T> =>
  xs.length > 0 ? fc.oneof({ arbitrary: fc.constantFrom(...xs), weight: 3 }, { arbitrary: fallback, weight: 1 }) : fallback;

/** Values the fixtures give for a field or parameter of this name, if any. */
export function hinted(name: string, fx: Fixtures): fc.Arbitrary<string> | undefined {
  switch (name) {
    case 'project_id':
      return pick(fx.projects, hex);
    case 'marker':
      return pick([...fx.projects, ...fx.messageIds.slice(-5)], hex);
    case 'domain_id':
      return pick(fx.domains, hex);
    case 'region':
      return pick(fx.regions, word);
    case 'message_id':
      return pick(fx.messageIds, fc.uuid());
    case 'event_type':
      return pick(fx.eventTypes, word);
    case 'trait_name':
      return pick(fx.traitNames, word);
    case 'id':
      return hex;
    default:
      return undefined;
  }
}

/** Department quota items the seeded region has (its volume types ssd and sata, the secure container product). */
export const QUOTA_ITEMS = [
  'cores',
  'instances',
  'ram',
  'volumes_ssd',
  'gigabytes_ssd',
  'snapshots_sata',
  'floatingip',
  'network',
  'backups',
  'cpu',
  'pods',
];
export const TRAIT_OPS = ['lt', 'le', 'eq', 'ne', 'ge', 'gt'];
export const TRAIT_TYPES = ['string', 'integer', 'float', 'datetime', 'STRING', 'Integer'];
export const isoDate = fc
  .date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2030-01-01T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString());

/** A value valid (or nearly) for `schema`; `name` is the property or parameter it is for (fixtures by name). */
export function schemaValue(schema: Schema, resolve: (s: Schema) => Schema, fx: Fixtures, name = '', depth = 0): fc.Arbitrary<unknown> {
  const s = resolve(schema);
  const hint = hinted(name, fx);
  if (hint && (s.type === 'string' || s.type === undefined)) return hint;
  if (name === 'limit') return fc.integer({ min: 1, max: 100 });
  const alts = s.anyOf ?? s.oneOf;
  if (alts && alts.length > 0) return fc.oneof(...alts.map((a) => schemaValue(a, resolve, fx, name, depth)));
  if (s.enum && s.enum.length > 0) return fc.constantFrom(...s.enum);
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  if (types.length > 1) return fc.oneof(...types.map((t) => schemaValue({ ...s, type: t }, resolve, fx, name, depth)));
  const lo = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 0);
  const hi = s.maximum ?? 1000;
  switch (types[0]) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.oneof(
        { arbitrary: fc.integer({ min: lo, max: Math.min(hi, lo + 50) }), weight: 4 },
        { arbitrary: fc.integer({ min: lo, max: hi }), weight: 1 },
      );
    case 'number':
      return fc.oneof(
        { arbitrary: fc.integer({ min: Math.ceil(lo), max: Math.min(hi, lo + 100) }), weight: 3 },
        { arbitrary: fc.double({ min: lo, max: Math.min(hi, lo + 100), noNaN: true }).map((x) => Math.round(x * 1000) / 1000), weight: 1 },
      );
    case 'string': {
      if (s.format === 'date-time' || /timestamp|generated/.test(name)) return isoDate;
      if (name === 'field') return pick(['event_type', 'message_id', 'start_timestamp', 'end_timestamp', ...fx.traitNames], word);
      if (name === 'op') return fc.constantFrom(...TRAIT_OPS);
      if (name === 'type') return fc.constantFrom('string', 'string', 'string', ...TRAIT_TYPES);
      if (name === 'sort') return fc.constantFrom('generated:desc', 'message_id', 'event_type:asc');
      if (name === 'filter') return filterText(fx);
      if (name === 'orderby') return fc.constantFrom('[{"timestamp":"desc"}]', '[{"event_type":"asc"}]', '[]');
      const min = s.minLength ?? 0;
      const max = Math.max(min, Math.min(s.maxLength ?? 24, 24));
      return fc.string({ unit: 'grapheme-ascii', minLength: Math.max(min, 1), maxLength: max }).map((x) => x.replace(/[.$\s/]/g, '_'));
    }
    case 'array': {
      if (s.prefixItems) return fc.tuple(...s.prefixItems.map((p) => schemaValue(p, resolve, fx, name, depth + 1)));
      if (depth > 4) return fc.constant([]);
      return fc.array(schemaValue(s.items ?? {}, resolve, fx, name, depth + 1), { maxLength: 3 });
    }
    case 'object':
      return objectOf(s, resolve, fx, name, depth);
    default:
      // `{}`: any JSON value.
      return depth > 3 ? fc.constant('x') : fc.oneof(word, fc.integer(), fc.boolean(), fc.constant(null));
  }
}

function objectOf(s: Schema, resolve: (s: Schema) => Schema, fx: Fixtures, name: string, depth: number): fc.Arbitrary<unknown> {
  const props = s.properties ?? {};
  const required = new Set(s.required ?? []);
  const fixed = fc.record(Object.fromEntries(Object.entries(props).map(([k, v]) => [k, schemaValue(v, resolve, fx, k, depth + 1)])), {
    requiredKeys: [...required].filter((k) => k in props),
  });
  const extra = s.additionalProperties;
  if (!extra || depth > 4) return fixed;
  const extraSchema: Schema = extra === true ? {} : extra;
  const keys =
    name === 'raw' || name === 'payload'
      ? word
      : fc.oneof({ arbitrary: fc.constantFrom(...QUOTA_ITEMS), weight: 8 }, { arbitrary: word, weight: 1 });
  const more = fc.dictionary(keys, schemaValue(extraSchema, resolve, fx, '', depth + 1), { minKeys: 1, maxKeys: 3 });
  return fc.tuple(fixed, more).map(([a, b]) => ({ ...b, ...(a as object) }));
}

/** A complex query filter as Panko's JSON text, on the fields events have. */
function filterText(fx: Fixtures): fc.Arbitrary<string> {
  const leaf = fc.tuple(
    fc.constantFrom('=', '!=', '>', '>=', '<', '<=', 'in'),
    pick(['event_type', 'message_id', 'timestamp', 'project_id', ...fx.traitNames], word),
    fc.oneof(word, fc.integer(), isoDate),
  );
  return fc
    .tuple(fc.constantFrom('and', 'or'), fc.array(leaf, { minLength: 1, maxLength: 3 }))
    .map(([op, leaves]) => JSON.stringify({ [op]: leaves.map(([o, f, v]) => ({ [o]: { [f]: o === 'in' ? [v] : v } })) }));
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/** encodeURIComponent, except that a lone surrogate is written as its 3 UTF-8-like bytes (WTF-8), not refused. */
export function encodeSegment(s: string): string {
  return s
    .split(LONE_SURROGATE)
    .map(encodeURIComponent)
    .reduce((out, part, i) => {
      if (i === 0) return part;
      const c = (s.match(LONE_SURROGATE)?.[i - 1] ?? '\ud800').charCodeAt(0);
      const bytes = [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)];
      return `${out}${bytes.map((b) => `%${b.toString(16).toUpperCase()}`).join('')}${part}`;
    }, '');
}

/** The query part of an operation's valid-ish request. */
function queryOf(op: Operation, resolve: (s: Schema) => Schema, fx: Fixtures): fc.Arbitrary<[string, string][]> {
  const query = op.params.filter((p) => p.in === 'query');
  if (query.length === 0) return fc.constant([]);
  // Parameters the body also carries (POST /v2/events) are left to the body: both at once is a 400.
  const inBody = new Set(Object.keys(op.body ? (resolve(op.body).properties ?? {}) : {}));
  const triad = query.some((p) => p.name === 'q.field') && !inBody.has('q');
  const others = query.filter((p) => !p.name.startsWith('q.') && !inBody.has(p.name));
  const one = (p: Parameter): fc.Arbitrary<[string, string][]> => {
    const s = resolve(p.schema);
    let v: fc.Arbitrary<unknown>;
    if (p.name === 'limit') v = fc.oneof(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 0, max: 2000 }));
    else if (p.name === 'page_reverse' || p.name === 'all_tenants' || p.name === 'dry_run' || p.name === 'force')
      v = fc.constantFrom('true', 'false', 'True', '1');
    else if (p.name === 'sort')
      v = fc.constantFrom('generated:desc', 'message_id', 'event_type:asc', 'project_id:asc', 'project_id:desc', 'generated');
    else if (s.type === 'array') v = schemaValue(s.items ?? {}, resolve, fx, p.name);
    else v = schemaValue(s, resolve, fx, p.name);
    const times = s.type === 'array' ? fc.integer({ min: 1, max: 2 }) : fc.constant(1);
    return fc
      .tuple(fc.array(v, { minLength: 1, maxLength: 2 }), times)
      .map(([vs, n]) => vs.slice(0, n).map((x): [string, string] => [p.name, String(x)]));
  };
  const chosen: fc.Arbitrary<[string, string][]> = fc
    .subarray(others, { maxLength: Math.min(3, others.length) })
    .chain((ps) => (ps.length === 0 ? fc.constant<[string, string][]>([]) : fc.tuple(...ps.map(one)).map((xs) => xs.flat())));
  if (!triad) return chosen;
  const filter = fc.tuple(
    schemaValue({ type: 'string' }, resolve, fx, 'field'),
    fc.option(fc.constantFrom(...TRAIT_OPS)),
    fc.oneof(word, fc.integer().map(String), isoDate),
    fc.option(fc.constantFrom(...TRAIT_TYPES)),
  );
  return fc.tuple(chosen, fc.array(filter, { maxLength: 3 })).map(([rest, filters]) => {
    const q: [string, string][] = [];
    for (const [f, o, v, t] of filters) {
      q.push(['q.field', String(f)]);
      if (o) q.push(['q.op', o]);
      q.push(['q.value', v]);
      if (t) q.push(['q.type', t]);
    }
    return [...q, ...rest];
  });
}

/** The valid-ish draft of an operation (before mutations): ids from the fixtures, query and body from the schemas. */
export function baseDraft(op: Operation, resolve: (s: Schema) => Schema, fx: Fixtures): fc.Arbitrary<Draft> {
  const pathParams = op.params.filter((p) => p.in === 'path');
  const ids = fc.tuple(...pathParams.map((p) => (hinted(p.name, fx) ?? word).map((v) => [p.name, encodeSegment(v)] as const)));
  const body = op.body ? schemaValue(op.body, resolve, fx) : fc.constant(undefined);
  const ifMatch = op.params.some((p) => p.in === 'header' && p.name === 'If-Match')
    ? fc.oneof({ arbitrary: fc.constant(null), weight: 4 }, { arbitrary: fc.constantFrom('"1"', '"2"', '*', 'W/"1"'), weight: 1 })
    : fc.constant(null);
  return fc
    .record({ prefix: fc.constantFrom(...op.prefixes), ids, query: queryOf(op, resolve, fx), body, ifMatch })
    .map(({ prefix, ids, query, body, ifMatch }) => ({
      method: op.method,
      prefix,
      path: op.path,
      params: Object.fromEntries(ids),
      query,
      headers: ifMatch ? [['If-Match', ifMatch] as [string, string]] : [],
      ...(op.body ? { body: { json: body }, contentType: 'application/json' } : {}),
      tags: [],
      mustRefuse: false,
      oversized: false,
    }));
}
