/**
 * fast-check arbitraries of requests for the operations of the gateway's OpenAPI document: a valid-ish request built
 * from the operation's schemas and the stack's known ids, then at most a couple of hostile mutations, each tagged
 * so that a failure names its cause (`id: malformed percent-encoding`, `body: unknown key`, `Content-Encoding: gzip
 * garbage`, …), and an identity (admin, member, reader, another project's member, department admin, none, bad token).
 */
import { brotliCompressSync, brotliDecompressSync, deflateSync, gunzipSync, gzipSync, inflateSync } from 'node:zlib';
import fc from 'fast-check';
import type { Operation, Parameter, Schema } from './operations';
import { accepts } from './validate';
import type { WireRequest } from './wire';

/** Who calls: a persona of the stack, no token, or a token the gateway does not know. */
export type Who = 'admin' | 'member' | 'reader' | 'otherMember' | 'deptAdmin' | 'none' | 'badToken';

/** What the stack holds that requests may name (ids that exist make the valid-ish requests reach deeper). */
export interface Fixtures {
  tokens: Record<Exclude<Who, 'none' | 'badToken'>, string>;
  projects: string[];
  domains: string[];
  regions: string[];
  messageIds: string[];
  eventTypes: string[];
  traitNames: string[];
  /** The gateway's body limit (MAX_BODY_BYTES). */
  maxBodyBytes: number;
  /** The project of each project-scoped persona (what it may see of events and load balancer quotas). */
  projectOf: Partial<Record<Who, string>>;
}

/** One generated request: the bytes to send and what the oracle needs to judge the answer. */
export interface FuzzRequest {
  op: Operation;
  who: Who;
  /** Mutation tags, e.g. `id: malformed percent-encoding`; empty for a valid-ish request. */
  tags: string[];
  wire: WireRequest;
  /** How the body was built, when the bytes do not say it (e.g. `gzip of 3 MiB of spaces`). */
  bodyNote?: string;
  /** The request is invalid by the document (a 2xx is then reported as accepted input, a warning). */
  mustRefuse: boolean;
  /** The body is over the limit: the gateway may answer and close before reading it all. */
  oversized: boolean;
}

/** Names the prototype chain of every JS object has: client-named keys must be looked up as own properties. */
export const PROTOTYPE_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__'];

/** Strings a client may send anywhere: empty, NUL, control and bidi characters, prototype names, operators, dots. */
export const HOSTILE_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\u0001\u0002\u001f\u007f',
  'tab\there',
  'line\nbreak',
  '\u202eevil\u202c',
  '\u2066isolate\u2069',
  '\u200b',
  'a\u0085b',
  'a\u2060b',
  '\ufeffbom',
  '\ud800',
  'ünïcödé-名前',
  '..',
  '.',
  '$gt',
  'a.b',
  '$where',
  '%ZZ',
  '%00',
  '{"$gt":""}',
  'null',
  'true',
  '-1',
  '1e309',
  ...PROTOTYPE_NAMES,
];

/** Numbers out of every documented range: negative, fractional, past 2^31 and 2^53, near the double's ends. */
export const HOSTILE_NUMBERS = [
  -1,
  -2,
  -1.5,
  0,
  -0,
  0.5,
  1.0000001,
  2 ** 31,
  2 ** 31 - 1,
  2 ** 32,
  2 ** 53,
  2 ** 53 + 2,
  1e21,
  1e308,
  -1e308,
  5e-324,
];

/** Number literals JSON.parse turns into Infinity, 0 or a rounded value. */
const RAW_NUMBERS = ['1e400', '-1e400', '9007199254740993', '1e-400', '123456789012345678901234567890', '0.1e1', '-0.0'];

/** A JSON value written verbatim into the body's text (a number literal JSON.stringify cannot produce). */
const RAW = (text: string) => `\u0001RAW:${text}\u0001`;
const RAW_PATTERN = /"\\u0001RAW:([^"\\]*)\\u0001"/g;

/** The JSON text of `value`, with RAW(...) placeholders replaced by their literal text. */
export function toJson(value: unknown): string {
  return (JSON.stringify(value) ?? 'null').replace(RAW_PATTERN, '$1');
}

/** Path ids whose percent-encoding is malformed or decodes to something no id is. */
export const MALFORMED_PERCENT = [
  '%ZZ',
  '%',
  '%C0%AF',
  '%E0%80%80',
  '%FF',
  '%2',
  'a%',
  '%%',
  '%u0041',
  '%C3%28',
  '%ED%A0%80',
  '%F4%90%80%80',
  'ok%ZZok',
];
/** Percent-encoded ids that decode to NUL, control, separator or bidi characters. */
export const ENCODED_SPECIALS = [
  '%00',
  'a%00b',
  'a%C2%85b',
  '%C2%9B',
  '%E2%80%8B',
  'a%E2%81%A0b',
  '%0A',
  '%0D%0A',
  '%09',
  '%7F',
  '%E2%80%AE',
  '%E2%81%A6',
  '%EF%BB%BF',
  '%2F',
  '%5C',
  '%2E%2E',
  '%2E',
  '%20',
  '%24where',
  '%3F',
  '%23',
];

const hex = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 32, maxLength: 32 });
const word = fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 12 });

/** Weighted choice of one of `xs` (fixtures first: ids that exist). */
const pick = <T>(xs: T[], fallback: fc.Arbitrary<T>): fc.Arbitrary<T> =>
  xs.length > 0 ? fc.oneof({ arbitrary: fc.constantFrom(...xs), weight: 3 }, { arbitrary: fallback, weight: 1 }) : fallback;

/** Values the fixtures give for a field or parameter of this name, if any. */
function hinted(name: string, fx: Fixtures): fc.Arbitrary<string> | undefined {
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
const TRAIT_OPS = ['lt', 'le', 'eq', 'ne', 'ge', 'gt'];
const TRAIT_TYPES = ['string', 'integer', 'float', 'datetime', 'STRING', 'Integer'];
const isoDate = fc
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

/** A Panko complex query whose filter or orderby names hostile fields, operators or values. */
function complexQueryMutation(): fc.Arbitrary<Mutation> {
  const name = fc.constantFrom(...HOSTILE_STRINGS, 'traits.a\u0000b', 'event_type');
  const op = fc.constantFrom('=', 'in', '$where', 'constructor', '__proto__', 'and', 'not', '=~', '');
  const value = fc.oneof(
    fc.constantFrom(...HOSTILE_STRINGS),
    fc.constantFrom(...HOSTILE_NUMBERS),
    fc.constant([]),
    fc.constant({}),
    fc.constant(null),
  );
  const leaf = fc.tuple(op, name, value).map(([o, f, v]) => withOwnKey({}, o, withOwnKey({}, f, v)));
  const filter = fc.oneof(
    leaf,
    fc.tuple(fc.constantFrom('and', 'or', 'not', 'constructor'), fc.array(leaf, { maxLength: 3 })).map(([o, xs]) => withOwnKey({}, o, xs)),
    fc.constantFrom<unknown>('{', '[]', '""', '{"and":[]}', '{"and":{}}', 'null', 1, true),
  );
  const orderby = fc.oneof(
    fc.constant(undefined),
    fc
      .tuple(name, fc.constantFrom('asc', 'desc', 'sideways', '', 'constructor'))
      .map(([f, dir]) => JSON.stringify([withOwnKey({}, f, dir)])),
    fc.constantFrom('{', '[1]', '[{}]', '[{"a":"asc","b":"desc"}]', 'null'),
  );
  return fc.tuple(filter, orderby).map(([f, o]) =>
    m('filter: hostile complex query (fields, operators, values, orderby)', (d) => {
      const body: Record<string, unknown> = { filter: typeof f === 'string' ? f : toJson(f) };
      if (o !== undefined) body.orderby = o;
      d.body = { json: body };
    }),
  );
}

/** A request under construction: mutations edit it, `finish` turns it into bytes. */
interface Draft {
  method: string;
  prefix: string;
  /** Path segments, each already percent-encoded (or deliberately malformed). */
  path: string;
  params: Record<string, string>;
  query: [string, string][];
  /** Replaces the whole query string when set (odd syntax, raw malformed encoding). */
  rawQuery?: string;
  headers: [string, string][];
  body?: { json: unknown } | { bytes: Buffer; note?: string };
  contentType?: string;
  contentEncoding?: string;
  /** How the body is compressed: a valid encoding of it, or garbage / a bomb that replaces it. */
  encode?: 'valid' | 'garbage' | 'bomb' | 'truncated';
  chunked?: boolean;
  abandon?: boolean;
  version?: string;
  /** Replaces the request target (path and query) as sent. */
  rawTarget?: (target: string) => string;
  tags: string[];
  mustRefuse: boolean;
  oversized: boolean;
}

type Mutation = { tag: string; apply: (d: Draft) => void };

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
function baseDraft(op: Operation, resolve: (s: Schema) => Schema, fx: Fixtures): fc.Arbitrary<Draft> {
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

// ---- mutations ---------------------------------------------------------------------------------------------------

const m = (tag: string, apply: (d: Draft) => void, refuse = false): Mutation => ({
  tag,
  apply: (d) => {
    apply(d);
    if (refuse) d.mustRefuse = true;
  },
});

/** Mutations of a path id (operations with path parameters). */
function idMutations(op: Operation): fc.Arbitrary<Mutation>[] {
  const names = op.params.filter((p) => p.in === 'path').map((p) => p.name);
  if (names.length === 0) return [];
  const name = fc.constantFrom(...names);
  const setId = (tag: string, values: fc.Arbitrary<string>) =>
    fc.tuple(name, values).map(([n, v]) =>
      m(tag, (d) => {
        d.params[n] = v;
      }),
    );
  return [
    setId('id: malformed percent-encoding', fc.constantFrom(...MALFORMED_PERCENT)),
    setId('id: encoded NUL/control/bidi/separator', fc.constantFrom(...ENCODED_SPECIALS)),
    setId('id: prototype name', fc.constantFrom(...PROTOTYPE_NAMES)),
    setId(
      'id: hostile text (encoded)',
      fc.constantFrom(...HOSTILE_STRINGS).map((s) => encodeSegment(s) || '%20'),
    ),
    setId(
      'id: overlong',
      fc.constantFrom(256, 1024, 4096, 8000).map((n) => 'a'.repeat(n)),
    ),
    setId('id: empty', fc.constant('')),
    setId('id: raw UTF-8 (bidi, non-ASCII)', fc.constantFrom('\u202eevil', '名前', 'é', '\u2066x\u2069')),
    setId(
      'id: raw space, NUL or control byte (unparsable request line)',
      fc.constantFrom('a b', 'a\u0000b', 'a\tb', 'a\u007fb', 'a\u0001b', 'a\rb'),
    ),
    fc.constantFrom('/x', '/..', '/%2e%2e', '/', '//', '/x/y/z').map((tail) =>
      m('path: extra segments', (d) => {
        d.path = `${d.path}${tail}`;
      }),
    ),
  ];
}

/** Mutations of the query string. */
function queryMutations(op: Operation): fc.Arbitrary<Mutation>[] {
  const names = op.params.filter((p) => p.in === 'query').map((p) => p.name);
  const triad = names.includes('q.field');
  const add = (tag: string, pairs: fc.Arbitrary<[string, string][]>, refuse = false) =>
    pairs.map((ps) => m(tag, (d) => void d.query.push(...ps), refuse));
  const out: fc.Arbitrary<Mutation>[] = [
    fc
      .constantFrom(
        '?&&=&',
        '?a[b]=c&__proto__[x]=1&constructor[prototype][y]=2',
        '?=%ZZ',
        '?%',
        '?q.field=%ZZ&limit=%',
        '?;;;',
        '?a=1&a=2&a=3',
        '?%00=%00',
      )
      .map((q) =>
        m('query: odd syntax / malformed percent-encoding', (d) => {
          d.rawQuery = q;
        }),
      ),
    add(
      'query: unknown parameter',
      fc.constantFrom(...PROTOTYPE_NAMES, 'foo', 'all_tenants', 'fields', 'dry_run').map((k): [string, string][] => [[k, 'x']]),
    ),
  ];
  if (names.length > 0) {
    out.push(
      add(
        'query: hostile value',
        fc
          .tuple(fc.constantFrom(...names), fc.constantFrom(...HOSTILE_STRINGS, 'x'.repeat(3000)))
          .map(([k, v]): [string, string][] => [[k, v]]),
      ),
      add(
        'query: repeated parameter',
        fc.tuple(fc.constantFrom(...names), word, word).map(([k, a, b]): [string, string][] => [
          [k, a],
          [k, b],
        ]),
      ),
    );
  }
  if (names.includes('limit')) {
    out.push(
      add(
        'query: hostile limit',
        fc
          .constantFrom('-1', '0', '1.5', '1e309', '99999999999999999999', 'abc', '', ' 1', '0x10', 'Infinity', 'NaN')
          .map((v): [string, string][] => [['limit', v]]),
      ),
    );
  }
  if (names.includes('sort')) {
    out.push(
      add(
        'query: hostile sort',
        fc
          .constantFrom(...PROTOTYPE_NAMES, ':', 'generated:sideways', '__proto__:asc', 'constructor:desc', ':asc', 'a:b:c')
          .map((v): [string, string][] => [['sort', v]]),
        true, // no documented sort key: a 2xx is accepted input
      ),
    );
  }
  if (names.includes('marker')) {
    out.push(
      add(
        'query: hostile marker',
        fc.constantFrom(...HOSTILE_STRINGS, 'z'.repeat(2000)).map((v): [string, string][] => [['marker', v]]),
      ),
    );
  }
  if (names.includes('page_reverse')) {
    out.push(
      add(
        'query: page_reverse',
        fc.constantFrom('maybe', 'TRUE', '1', '', 'yes').map((v): [string, string][] => [['page_reverse', v]]),
      ),
    );
  }
  if (triad) {
    out.push(
      add(
        'q.field: prototype name',
        fc.constantFrom(...PROTOTYPE_NAMES).map((f): [string, string][] => [
          ['q.field', f],
          ['q.value', 'x'],
        ]),
      ),
      add(
        'q.field: empty, NUL, control or bidi',
        fc.constantFrom('', 'a\u0000b', '\u0000', '\u0001', '\u202eevil', ' ', 'a b', '$where', 'a.b').map((f): [string, string][] => [
          ['q.field', f],
          ['q.value', 'x'],
        ]),
      ),
      add(
        'q.*: mismatched counts, bad op, type or value',
        fc.constantFrom<[string, string][]>(
          [
            ['q.field', 'event_type'],
            ['q.field', 'message_id'],
            ['q.value', 'x'],
          ],
          [['q.value', 'x']],
          [['q.op', 'eq']],
          [
            ['q.field', 'event_type'],
            ['q.op', 'like'],
            ['q.value', 'x'],
          ],
          [
            ['q.field', 'start_timestamp'],
            ['q.value', 'not-a-date'],
          ],
          [
            ['q.field', 'start_timestamp'],
            ['q.value', '99999-99-99T99:99:99'],
          ],
          [
            ['q.field', 'x'],
            ['q.type', 'integer'],
            ['q.value', 'abc'],
          ],
          [
            ['q.field', 'x'],
            ['q.type', 'float'],
            ['q.value', '1e400'],
          ],
          [
            ['q.field', 'x'],
            ['q.type', 'datetime'],
            ['q.value', '2026-13-45'],
          ],
          [
            ['q.field', 'x'],
            ['q.type', 'object'],
            ['q.value', '{}'],
          ],
          [
            ['q.field', 'all_tenants'],
            ['q.value', 'maybe'],
          ],
          [
            ['q.field', 'x'],
            ['q.value', 'x'],
            ['q.type', 'integer'],
            ['q.type', 'string'],
          ],
        ),
      ),
    );
  }
  return out;
}

/** A value to put where the schema wants something else. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...HOSTILE_NUMBERS),
  fc.constantFrom(...RAW_NUMBERS.map(RAW)),
  fc.constantFrom(...HOSTILE_STRINGS),
  fc.constantFrom(null, true, false, [], {}, [1, 2], { $gt: 0 }, { __proto__x: 1 }, 'x'.repeat(100_000)),
  fc.constant(JSON.parse('{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}}}')),
);

/** Paths of every value inside `v` (root first). */
function pathsOf(v: unknown, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(at);
  if (Array.isArray(v)) for (const [i, x] of v.entries()) pathsOf(x, [...at, i], out);
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) pathsOf(x, [...at, k], out);
  return out;
}

/** A copy of `root` with the value at `path` replaced by `f(old)`. */
function setAt(root: unknown, path: (string | number)[], f: (old: unknown) => unknown): unknown {
  if (path.length === 0) return f(root);
  const [head, ...rest] = path as [string | number, ...(string | number)[]];
  if (Array.isArray(root)) return root.map((x, i) => (i === head ? setAt(x, rest, f) : x));
  const copy: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(root as object))
    Object.defineProperty(copy, k, { value: k === head ? setAt(x, rest, f) : x, enumerable: true, writable: true });
  return copy;
}

/** An object with an own property named `key` (even `__proto__`), so JSON.stringify writes it. */
function withOwnKey(o: unknown, key: string, value: unknown): unknown {
  const copy: Record<string, unknown> = {};
  if (o && typeof o === 'object' && !Array.isArray(o))
    for (const [k, x] of Object.entries(o)) Object.defineProperty(copy, k, { value: x, enumerable: true, writable: true });
  Object.defineProperty(copy, key, { value, enumerable: true, writable: true });
  return copy;
}

const deepText = (n: number, kind: 'array' | 'object') =>
  kind === 'array' ? `${'['.repeat(n)}${']'.repeat(n)}` : `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;

/** Mutations of the JSON body (operations with a body schema), and bodies sent where none is described. */
function bodyMutations(op: Operation, fx: Fixtures): fc.Arbitrary<Mutation>[] {
  if (!op.body) {
    return [
      fc.constantFrom('{"a":1}', '[]', 'garbage', '{"constructor":1}').map((t) =>
        m('body: where none is expected', (d) => {
          d.body = { bytes: Buffer.from(t) };
          d.contentType = 'application/json';
        }),
      ),
    ];
  }
  const jsonOf = (d: Draft) => (d.body && 'json' in d.body ? d.body.json : {});
  return [
    fc.tuple(fc.nat(), hostileValue).map(([i, h]) =>
      m('body: a value of the wrong type or out of range', (d) => {
        const v = jsonOf(d);
        const ps = pathsOf(v).filter((p) => p.length > 0);
        const p = ps.length > 0 ? ps[i % ps.length] : [];
        d.body = { json: setAt(v, p ?? [], () => h) };
      }),
    ),
    fc
      .tuple(fc.nat(), fc.constantFrom(...PROTOTYPE_NAMES, 'unknown_key', '$set', 'a.b', ''), fc.oneof(fc.constant(1), hostileValue))
      .map(([i, key, val]) =>
        m('body: unknown or prototype-named key', (d) => {
          const v = jsonOf(d);
          const objs = pathsOf(v).filter((p) => {
            const x = p.reduce<unknown>((o, k) => (o as Record<string | number, unknown>)[k], v);
            return x !== null && typeof x === 'object' && !Array.isArray(x);
          });
          const p = objs.length > 0 ? objs[i % objs.length] : [];
          d.body = { json: setAt(v, p ?? [], (o) => withOwnKey(o, key, val)) };
        }),
      ),
    fc
      .constantFrom(
        '',
        '{',
        '{"a":}',
        'nul',
        '[1,]',
        '\u0000',
        '{"a":1}{"b":2}',
        '"string"',
        '123',
        'null',
        '[]',
        '{}',
        "{'a':1}",
        '\ufeff{}',
      )
      .map((t) =>
        m('body: not the JSON the schema describes', (d) => {
          d.body = { bytes: Buffer.from(t) };
        }),
      ),
    fc.tuple(fc.constantFrom(64, 1000, 5000, 100_000), fc.constantFrom<'array' | 'object'>('array', 'object')).map(([n, k]) =>
      m('body: deep nesting', (d) => {
        d.body = { bytes: Buffer.from(deepText(n, k)), note: `nesting depth ${n} (${k}s)` };
      }),
    ),
    fc.constant(
      m('body: over MAX_BODY_BYTES', (d) => {
        const pad = 'x'.repeat(fx.maxBodyBytes + 1024);
        d.body = { bytes: Buffer.from(`{"pad":"${pad}"}`), note: `{"pad":"x…"} of ${fx.maxBodyBytes + 1034} bytes` };
        d.oversized = true;
      }),
    ),
    fc.constant(
      m('body: none', (d) => {
        d.body = undefined;
      }),
    ),
  ];
}

/** Mutations of the headers that frame the body (Content-Type lies, Content-Encoding), and of others. */
function headerMutations(op: Operation): fc.Arbitrary<Mutation>[] {
  const out: fc.Arbitrary<Mutation>[] = [
    fc.constantFrom('evil.example', 'evil.example:666', 'evil.example, gateway', 'evil.example/<script>').map((h) =>
      m('X-Forwarded-Host: untrusted', (d) => {
        d.headers.push(['X-Forwarded-Host', h], ['X-Forwarded-Proto', 'https']);
        // A page of one, so that a list answers with links (where a forwarded host would show).
        if (op.params.some((p) => p.name === 'limit')) d.query.push(['limit', '1']);
      }),
    ),
    fc
      .constantFrom('', 'req-\u00ff', 'x'.repeat(5000), 'req-00000000-0000-0000-0000-000000000000', '../../etc')
      .map((v) => m('X-Openstack-Request-Id: hostile', (d) => void d.headers.push(['X-Openstack-Request-Id', v]))),
  ];
  if (!op.body) return out;
  out.push(
    fc
      .constantFrom(
        'text/plain',
        'application/xml',
        'multipart/form-data; boundary=x',
        'application/x-www-form-urlencoded',
        'application/json; charset=utf-16',
        'application/json; charset=latin1',
        'application/json; charset=bogus',
        'a/b/c',
        '',
        'application/merge-patch+json',
        'APPLICATION/JSON',
      )
      .map((ct) =>
        m('Content-Type: a lie', (d) => {
          d.contentType = ct;
        }),
      ),
    fc.constant(
      m('Content-Type: none', (d) => {
        d.contentType = undefined;
      }),
    ),
    fc.constantFrom('gzip', 'deflate', 'br', 'x-gzip').map((ce) =>
      m(`Content-Encoding: ${ce}, valid`, (d) => {
        d.contentEncoding = ce;
        d.encode = 'valid';
      }),
    ),
    fc.constantFrom('gzip', 'deflate', 'br').map((ce) =>
      m(`Content-Encoding: ${ce}, garbage`, (d) => {
        d.contentEncoding = ce;
        d.encode = 'garbage';
      }),
    ),
    fc.constantFrom('gzip', 'deflate', 'br').map((ce) =>
      m(`Content-Encoding: ${ce}, truncated`, (d) => {
        d.contentEncoding = ce;
        d.encode = 'truncated';
      }),
    ),
    fc.constantFrom('gzip', 'deflate', 'br').map((ce) =>
      m(`Content-Encoding: ${ce}, bomb past the limit`, (d) => {
        d.contentEncoding = ce;
        d.encode = 'bomb';
      }),
    ),
    fc.constantFrom('compress', 'gzip, br', 'identity', 'GZIP', 'zstd', 'gzip;q=1', '\u0000').map((ce) =>
      m('Content-Encoding: unknown or listed', (d) => {
        d.contentEncoding = ce;
        d.encode = 'valid';
      }),
    ),
    fc.constant(
      m('Transfer-Encoding: chunked', (d) => {
        d.chunked = true;
      }),
    ),
    fc.constant(
      m('Expect: 100-continue', (d) => {
        d.headers.push(['Expect', '100-continue']);
      }),
    ),
    fc.constant(
      m('client gives up mid-upload', (d) => {
        d.abandon = true;
      }),
    ),
  );
  return out;
}

/** Identity headers a client sets itself to impersonate someone (the gateway must drop them all). */
function forgedIdentity(): fc.Arbitrary<Mutation> {
  const sets: [string, string][][] = [
    [
      ['X-Roles', 'admin'],
      ['X-Project-Id', 'default'],
      ['X-User-Id', 'root'],
      ['X-Identity-Status', 'Confirmed'],
    ],
    [
      ['X-Identity-Timestamp', String(Math.floor(Date.now() / 1000))],
      ['X-Identity-Signature', 'deadbeef'],
      ['X-Roles', 'admin,service'],
    ],
    [
      ['X-Service-Roles', 'service'],
      ['X-Tenant-Id', 'other'],
      ['X-Domain-Id', 'default'],
    ],
  ];
  return fc.constantFrom(...sets).map((hs) =>
    m('identity headers forged by the client', (d) => {
      d.headers.push(...hs);
    }),
  );
}

/** Mutations that only some operations have: q filters in a body, complex queries. */
function specificMutations(op: Operation, resolve: (s: Schema) => Schema, fx: Fixtures): fc.Arbitrary<Mutation>[] {
  const out: fc.Arbitrary<Mutation>[] = [];
  const names = op.params.filter((p) => p.in === 'query').map((p) => p.name);
  if (names.includes('q.field')) {
    out.push(
      fc.constantFrom(...PROTOTYPE_NAMES, '', 'a\u0000b', '\u0000', ' ', '\u202eevil').map((f) =>
        m('q.field: prototype name, empty, NUL or bidi', (d) => {
          d.query.push(['q.field', f], ['q.value', '1']);
        }),
      ),
    );
  }
  const props = op.body ? (resolve(op.body).properties ?? {}) : {};
  if (Object.hasOwn(props, 'q')) {
    out.push(
      fc
        .tuple(
          fc.constantFrom(...PROTOTYPE_NAMES, '', 'a\u0000b', ' ', '\u202e', 'a.b', '$gt'),
          fc.constantFrom<unknown>('x', 1, null, {}, [], RAW('1e400')),
        )
        .map(([f, v]) =>
          m('body q[].field: prototype name, empty, NUL or bidi', (d) => {
            d.body = { json: { q: [withOwnKey(withOwnKey({}, 'field', f), 'value', v)] } };
          }),
        ),
    );
  }
  if (Object.hasOwn(props, 'filter')) out.push(complexQueryMutation());
  if (op.path.endsWith('/ingest/events')) out.push(hostileEvents(), storableHostileEvents(fx));
  if (op.params.some((p) => p.in === 'header' && p.name === 'If-Match')) {
    out.push(
      fc
        .constantFrom('', '*', '"', 'W/', 'W/"1"', '"1", "2"', '"constructor"', '"__proto__"', 'x'.repeat(5000), '"-1"', '"1e400"')
        .map((v) =>
          m('If-Match: hostile', (d) => {
            d.headers = d.headers.filter(([k]) => k !== 'If-Match');
            d.headers.push(['If-Match', v]);
          }),
        ),
    );
  }
  if (op.method === 'POST' && op.path.endsWith('/usage')) {
    // Keys reused across the run (with other counts: a 422), malformed ones (a 400), prototype names.
    out.push(
      fc
        .constantFrom(
          'fuzz-key-1',
          'fuzz-key-2',
          '"fuzz-key-1"',
          '',
          '"',
          '"unterminated',
          'k'.repeat(256),
          'ü',
          'a\u0001b',
          ...PROTOTYPE_NAMES,
        )
        .map((key) =>
          m('Idempotency-Key: reused, malformed or prototype-named', (d) => {
            d.headers.push(['Idempotency-Key', key]);
          }),
        ),
    );
  }
  return out;
}

/**
 * Well-formed events whose trait names and text values are hostile (prototype names, NUL, bidi, dots, `$`), as a
 * service could emit them: stored, then read back by every event query of the run (and by their projects' members).
 */
function storableHostileEvents(fx: Fixtures): fc.Arbitrary<Mutation> {
  const name = fc.constantFrom(...HOSTILE_STRINGS.filter((x) => x !== ''), 'a.b.c', '$set', 'x'.repeat(300));
  const text = fc.constantFrom(...HOSTILE_STRINGS);
  const trait = fc.oneof(
    fc.tuple(name, fc.constant(1), text),
    fc.tuple(name, fc.constant(2), fc.integer()),
    fc.tuple(name, fc.constant(3), fc.double({ noNaN: true, noDefaultInfinity: true })),
    fc.tuple(name, fc.constant(4), isoDate),
  );
  const event = fc.record({
    message_id: fc.uuid(),
    event_type: fc.constantFrom('compute.instance.create.end', 'constructor', '__proto__', 'a\u0000b', '\u202eevil', 'x'.repeat(300)),
    generated: isoDate,
    traits: fc
      .tuple(fc.constant('project_id'), fc.constant(1), fc.constantFrom(...fx.projects, 'p'))
      .chain((pt) => fc.array(trait, { minLength: 1, maxLength: 5 }).map((ts) => [pt, ...ts])),
    raw: fc.constant({}),
  });
  return fc.array(event, { minLength: 1, maxLength: 3 }).map((events) =>
    m('events with hostile trait names and values (storable)', (d) => {
      d.body = { json: events };
    }),
  );
}

/**
 * Events with hostile traits (prototype, NUL, bidi and dotted names; values that do not match their type code),
 * odd dates and envelopes: stored ones are then read back by every event query the run sends.
 */
function hostileEvents(): fc.Arbitrary<Mutation> {
  const traitName = fc.constantFrom(...HOSTILE_STRINGS, 'project_id', 'a.b.c', '$set', 'x'.repeat(300));
  const traitValue = fc.oneof(
    fc.constantFrom(...HOSTILE_STRINGS),
    fc.constantFrom(...HOSTILE_NUMBERS),
    fc.constant(null),
    fc.constant({ a: 1 }),
    fc.constant([1]),
  );
  const trait = fc.tuple(traitName, fc.constantFrom<unknown>(0, 1, 2, 3, 4, 5, -1, '1', null), traitValue);
  const generated = fc.constantFrom<unknown>(
    '2026-13-45T00:00:00',
    '',
    'now',
    1e20,
    null,
    '0000-01-01T00:00:00',
    '9999-12-31T23:59:59.999999',
    '2026-11-24T00:00:00+14:00',
  );
  const serialized = fc.record({
    message_id: fc.oneof(fc.uuid(), fc.constantFrom(...HOSTILE_STRINGS)),
    event_type: fc.oneof(fc.constantFrom('compute.instance.create.end'), fc.constantFrom(...HOSTILE_STRINGS)),
    generated: fc.oneof(isoDate, generated),
    traits: fc.array(trait, { maxLength: 5 }),
    raw: fc.constantFrom<unknown>({}, { __proto__x: 1 }, JSON.parse('{"__proto__":{"a":1}}'), 'raw'),
  });
  const notification = fc.record({
    message_id: fc.uuid(),
    event_type: fc.constantFrom('compute.instance.create.end', 'port.update.end', ...PROTOTYPE_NAMES),
    timestamp: fc.oneof(isoDate, generated),
    priority: fc.constantFrom('INFO', 'DEBUG', 'ERROR', 'constructor', ''),
    payload: fc.constantFrom<unknown>(
      'a string payload',
      { tenant_id: '__proto__', instance_id: '\u0000' },
      null,
      [],
      JSON.parse('{"__proto__":{"tenant_id":"x"}}'),
    ),
  });
  const envelope = fc.record({
    'oslo.version': fc.constantFrom('2.0', '9.0', '', '2'),
    'oslo.message': fc.constantFrom('{', '{}', '"x"', JSON.stringify({ message_id: 'x', event_type: 'a', timestamp: 'b', payload: 'c' })),
  });
  return fc.array(fc.oneof(serialized, notification, envelope), { minLength: 1, maxLength: 5 }).map((events) =>
    m('events: malformed records, dates and envelopes', (d) => {
      d.body = { json: events };
    }),
  );
}

/**
 * Requests the HTTP parser itself refuses or reads oddly: Content-Length beside chunked (request smuggling), a header
 * over 16 KiB, invalid header names or values, an absolute-form target, HTTP/1.0 and unknown protocol versions.
 */
function wireMutations(): fc.Arbitrary<Mutation>[] {
  return [
    fc.constant(
      m('wire: Content-Length beside Transfer-Encoding: chunked', (d) => {
        d.chunked = true;
        d.headers.push(['Content-Length', '3']);
      }),
    ),
    fc.constant(
      m('wire: a header over 16 KiB', (d) => {
        d.headers.push(['X-Big', 'b'.repeat(17_000)]);
      }),
    ),
    fc
      .constantFrom<[string, string]>(
        ['X Bad', 'y'],
        ['X-Ctl', 'a\u0001b'],
        ['X-Nul', 'a\u0000b'],
        ['', 'empty name'],
        ['X-Fold', 'a\r\n b'],
      )
      .map((h) =>
        m('wire: invalid header name or value', (d) => {
          d.headers.push(h);
        }),
      ),
    fc.constantFrom('http://evil.example', 'http://127.0.0.1:1', '//evil.example').map((origin) =>
      m('wire: absolute-form target', (d) => {
        d.rawTarget = (t) => `${origin}${t}`;
      }),
    ),
    fc.constantFrom('HTTP/1.0', 'HTTP/2.0', 'HTTP/9.9', 'HTTP/1.1 extra').map((version) =>
      m('wire: another protocol version', (d) => {
        d.version = version;
      }),
    ),
  ];
}

/** Another method on the operation's path (405 or 404 in the group's shape). */
function methodMutation(op: Operation): fc.Arbitrary<Mutation> {
  const others = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'PROPFIND'].filter((x) => x !== op.method);
  return fc.constantFrom(...others).map((method) =>
    m('method: another one', (d) => {
      d.method = method;
    }),
  );
}

const BOMB_BYTES = 3 * 1024 * 1024;
const cached = new Map<string, Buffer>();
/** `{"a":1}` followed by 3 MiB of spaces (valid JSON once inflated), compressed: a few KiB on the wire. */
function bomb(coding: string): Buffer {
  let b = cached.get(coding);
  if (!b) {
    const plain = Buffer.concat([Buffer.from('{"a":1}'), Buffer.alloc(BOMB_BYTES, 0x20)]);
    b = compress(coding, plain);
    cached.set(coding, b);
  }
  return b;
}

function compress(coding: string, plain: Buffer): Buffer {
  const c = coding.toLowerCase();
  if (c === 'br') return brotliCompressSync(plain);
  if (c === 'deflate') return deflateSync(plain);
  if (c.includes('gzip')) return gzipSync(plain);
  return plain;
}

/** The wire request of a draft. */
function finish(op: Operation, resolve: (s: Schema) => Schema, d: Draft, who: Who, fx: Fixtures, garbage: Buffer): FuzzRequest {
  let path = d.path.replace(/\{([^}]+)\}/g, (_, name: string) => d.params[name] ?? 'x');
  path = `${d.prefix}${path}`;
  const query =
    d.rawQuery ?? (d.query.length > 0 ? `?${d.query.map(([k, v]) => `${encodeSegment(k)}=${encodeSegment(v)}`).join('&')}` : '');
  const headers: [string, string][] = [];
  if (who !== 'none') headers.push(['X-Auth-Token', who === 'badToken' ? 'not-a-token-0123456789abcdef' : fx.tokens[who]]);
  headers.push(['Accept', 'application/json']);
  let bytes: Buffer | undefined;
  let note: string | undefined;
  if (d.body) {
    if ('json' in d.body) bytes = Buffer.from(toJson(d.body.json));
    else {
      bytes = d.body.bytes;
      note = d.body.note;
    }
  }
  if (d.contentEncoding !== undefined) {
    const plain = bytes ?? Buffer.from('{}');
    if (d.encode === 'garbage') {
      bytes = garbage;
      note = `${garbage.length} random bytes`;
    } else if (d.encode === 'bomb') {
      bytes = bomb(d.contentEncoding);
      note = `${d.contentEncoding} of {"a":1} and 3 MiB of spaces (${bytes.length} bytes sent)`;
    } else if (d.encode === 'truncated') {
      const full = compress(d.contentEncoding, plain);
      bytes = full.subarray(0, Math.max(1, Math.floor(full.length / 2)));
      note = `the first half of the ${d.contentEncoding} of ${toPreview(plain)}`;
    } else {
      bytes = compress(d.contentEncoding, plain);
      note = `${d.contentEncoding} of ${toPreview(plain)}`;
    }
    headers.push(['Content-Encoding', d.contentEncoding]);
  }
  if (d.contentType !== undefined && bytes !== undefined) headers.push(['Content-Type', d.contentType]);
  headers.push(...d.headers);
  return {
    op,
    who,
    tags: d.tags,
    wire: {
      method: d.method,
      target: d.rawTarget ? d.rawTarget(`${path}${query}`) : `${path}${query}`,
      headers,
      ...(bytes !== undefined ? { body: bytes } : {}),
      ...(d.chunked ? { chunked: true } : {}),
      ...(d.abandon ? { abandon: true } : {}),
      ...(d.version ? { version: d.version } : {}),
    },
    ...(note ? { bodyNote: note } : {}),
    mustRefuse:
      d.mustRefuse ||
      d.encode === 'bomb' ||
      ((d.encode === 'garbage' || d.encode === 'truncated') && !decodes(d.contentEncoding ?? '', bytes)) ||
      invalidId(op, d.params) ||
      (d.method === op.method && invalidBody(op, resolve, d)),
    oversized: d.oversized,
  };
}

/** True when `bytes` decode as `coding` (random bytes sometimes are a valid, empty brotli stream). */
function decodes(coding: string, bytes: Buffer | undefined): boolean {
  try {
    const c = coding.toLowerCase();
    if (c === 'br') brotliDecompressSync(bytes ?? Buffer.alloc(0));
    else if (c === 'deflate') inflateSync(bytes ?? Buffer.alloc(0));
    else gunzipSync(bytes ?? Buffer.alloc(0));
    return true;
  } catch {
    return false;
  }
}

/** True when the draft's body is not one the operation's schema accepts (missing, not JSON, or not matching). */
function invalidBody(op: Operation, resolve: (s: Schema) => Schema, d: Draft): boolean {
  if (!op.body) return false;
  if (d.body === undefined || ('bytes' in d.body && d.body.bytes.length === 0)) return op.bodyRequired;
  if ('json' in d.body) return !accepts(op.body, d.body.json, resolve);
  try {
    // A leading BOM may be ignored (RFC 8259 §8.1), as body-parser does.
    return !accepts(op.body, JSON.parse(d.body.bytes.toString('utf8').replace(/^\ufeff/, '')), resolve);
  } catch {
    return true;
  }
}

/** Characters no stored id may hold: controls (C0, DEL, C1) and format characters (zero-width, bidi, the BOM). */
const CONTROL_OR_BIDI = (v: string) => /[\p{Cc}\p{Cf}]/u.test(v);

/**
 * True when a path id the registry would store (a PUT under /v3/domain_quota_registry) breaks its documented schema
 * (length, pattern) or holds control or bidi characters, or does not decode at all: a 2xx to it is accepted input.
 */
function invalidId(op: Operation, params: Record<string, string>): boolean {
  if (op.method !== 'PUT' || !op.path.startsWith('/v3/domain_quota_registry/')) return false;
  return op.params.some((p) => {
    if (p.in !== 'path') return false;
    let v: string;
    try {
      v = decodeURIComponent(params[p.name] ?? '');
    } catch {
      return true;
    }
    const s = p.schema;
    if (s.minLength !== undefined && v.length < s.minLength) return true;
    if (s.maxLength !== undefined && v.length > s.maxLength) return true;
    if (s.pattern && !new RegExp(s.pattern, 'u').test(v)) return true;
    return CONTROL_OR_BIDI(v);
  });
}

const toPreview = (b: Buffer) => (b.length > 120 ? `${b.subarray(0, 120).toString('utf8')}… (${b.length} bytes)` : b.toString('utf8'));

const WHO = fc.oneof(
  { arbitrary: fc.constant<Who>('admin'), weight: 7 },
  { arbitrary: fc.constant<Who>('member'), weight: 3 },
  { arbitrary: fc.constant<Who>('reader'), weight: 2 },
  { arbitrary: fc.constant<Who>('otherMember'), weight: 2 },
  { arbitrary: fc.constant<Who>('deptAdmin'), weight: 2 },
  { arbitrary: fc.constant<Who>('none'), weight: 1 },
  { arbitrary: fc.constant<Who>('badToken'), weight: 1 },
);

/**
 * Requests for one operation, as a list of arbitraries: the first is an identity, the valid-ish draft and then none
 * (a quarter of them), one or two random mutations; each of the others applies one mutation kind first (then, a
 * third of the time, a random second one), with a valid-ish one after every three. Cycling through the list covers every mutation kind of every operation
 * evenly, so that even a short run meets each class. A URL over 16 KiB (431) is among the kinds.
 */
export function operationArbitraries(op: Operation, resolve: (s: Schema) => Schema, fx: Fixtures): fc.Arbitrary<FuzzRequest>[] {
  const kinds = [
    ...idMutations(op),
    ...queryMutations(op),
    ...bodyMutations(op, fx),
    ...headerMutations(op),
    methodMutation(op),
    forgedIdentity(),
    // One slot for all of them: they stop at the gateway's HTTP parser, before anything else is exercised.
    fc.oneof(...wireMutations()),
    fc.constant(
      m('url: over 16 KiB', (d) => {
        d.rawQuery = `?marker=${'u'.repeat(17_000)}`;
      }),
    ),
    // Mutations only some operations have (trait filters, complex queries).
    ...specificMutations(op, resolve, fx),
  ];
  const one = fc.oneof(...kinds);
  const random = fc.oneof(
    { arbitrary: fc.constant<Mutation[]>([]), weight: 1 },
    { arbitrary: one.map((x) => [x]), weight: 2 },
    { arbitrary: fc.tuple(one, one), weight: 1 },
  );
  const build = (muts: fc.Arbitrary<Mutation[]>) =>
    fc.tuple(baseDraft(op, resolve, fx), WHO, muts, fc.uint8Array({ minLength: 1, maxLength: 48 })).map(([draft, who, ms, garbage]) => {
      const d: Draft = { ...draft, params: { ...draft.params }, query: [...draft.query], headers: [...draft.headers], tags: [] };
      for (const mu of ms) {
        mu.apply(d);
        if (!d.tags.includes(mu.tag)) d.tags.push(mu.tag);
      }
      return finish(op, resolve, d, who, fx, Buffer.from(garbage));
    });
  // A valid-ish request after every three mutation kinds: a quarter of the requests reach the handlers' success paths.
  const validish = build(fc.constant([]));
  return [
    build(random),
    ...kinds.flatMap((kind, i) => [
      build(fc.oneof({ arbitrary: kind.map((x) => [x]), weight: 2 }, { arbitrary: fc.tuple(kind, one), weight: 1 })),
      ...(i % 3 === 2 ? [validish] : []),
    ]),
  ];
}
