/**
 * Query translation: Panko's simple query (`q.field/q.op/q.value/q.type`) and Ceilometer's complex query
 * (`filter`/`orderby` JSON text) → MongoDB filters over the stored event document (events.model.ts), plus the
 * keyset condition of marker paging.
 *
 * Rules and messages follow reference/events.md §4-§5 (Panko `_event_query_to_event_filter`) and §9 (Ceilometer
 * `ValidatedComplexQuery`), except where Panko answered 500 (bad timestamp, unknown marker): those are 400 here.
 */
import { AppError } from '@stratum/http-kit';
import { canonicalTimestamp, parseTraitType, type TraitType } from '@stratum/traits';
import { isInteger, isSafeNumber, parse as parseLossless } from 'lossless-json';
import { type Filter, Long } from 'mongodb';
import { type EventDoc, encodeTraitName } from './events.model';

type Cond = Record<string, unknown>;

function bad(message: string): AppError {
  return new AppError(400, message);
}

/**
 * AND of conditions as one plain object where possible: conditions on different fields are merged, operator objects
 * on the same field are merged when their operators differ, nested `$and`s are flattened; only true clashes stay in
 * an `$and`. Same meaning as `{$and: parts}` on MongoDB, and FerretDB pushes plain top-level equality down to its
 * backend, which it never does inside `$and`.
 */
export function mergeAnd(...parts: Cond[]): Cond {
  const merged: Cond = {};
  const rest: Cond[] = [];
  const isOps = (v: unknown): v is Cond =>
    v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Long) && Object.keys(v).every((k) => k.startsWith('$'));
  const add = (part: Cond) => {
    for (const [k, v] of Object.entries(part)) {
      if (k === '$and' && Array.isArray(v)) {
        for (const p of v as Cond[]) add(p);
        continue;
      }
      if (k.startsWith('$')) {
        rest.push({ [k]: v });
        continue;
      }
      if (!(k in merged)) {
        merged[k] = v;
        continue;
      }
      const prev = merged[k];
      if (isOps(prev) && isOps(v) && Object.keys(v).every((op) => !(op in prev))) {
        merged[k] = { ...prev, ...v };
      } else {
        rest.push({ [k]: v });
      }
    }
  };
  for (const p of parts) add(p);
  if (rest.length === 0) return merged;
  return Object.keys(merged).length === 0 && rest.length === 1 ? (rest[0] as Cond) : { ...merged, $and: rest };
}

// ---------------------------------------------------------------------------------------------------------------
// Simple query (Panko GET /v2/events `q`)
// ---------------------------------------------------------------------------------------------------------------

/** One `q` element. */
export interface SimpleQuery {
  field: string;
  op: string;
  value: string;
  type: string;
}

const OPS = ['lt', 'le', 'eq', 'ne', 'ge', 'gt'] as const;
type Op = (typeof OPS)[number];
const MONGO_OP: Record<Op, string> = { lt: '$lt', le: '$lte', eq: '$eq', ne: '$ne', ge: '$gte', gt: '$gt' };

/**
 * Special fields and the operators each accepts. Panko accepts only the first; `eq` is accepted as well on the
 * timestamps because python-pankoclient always sends `q.op=eq` (bug 1711997), where it means the same bound.
 */
const SPECIAL_OPS: Record<string, readonly Op[]> = {
  event_type: ['eq'],
  message_id: ['eq'],
  start_timestamp: ['ge', 'eq'],
  end_timestamp: ['le', 'eq'],
};

function timestampOrFail(value: string): string {
  const ts = canonicalTimestamp(value);
  if (!ts) throw bad(`Unable to convert the value ${value} to the expected data type datetime.`);
  return ts;
}

/**
 * Converts a query value to the typed form stored in `t` (events.model.ts `typedTraitValue`). An empty type means
 * string, as Panko's default.
 * @throws AppError 400 with Panko's messages for an unknown type or an unconvertible value.
 */
export function convertTraitValue(value: string, typeName: string): string | number | Long {
  const type: TraitType | undefined = typeName === '' ? 'String' : parseTraitType(typeName);
  if (!type) {
    throw bad(`The data type ${typeName} is not supported. The supported data type list is: ['integer', 'float', 'string', 'datetime']`);
  }
  switch (type) {
    case 'integer': {
      const text = value.trim();
      if (!/^[-+]?\d+$/.test(text)) throw bad(`Unable to convert the value ${value} to the expected data type integer.`);
      const big = BigInt(text);
      if (big < -(2n ** 63n) || big > 2n ** 63n - 1n) return big.toString();
      return Long.fromBigInt(big);
    }
    case 'float': {
      const n = Number(value);
      if (value.trim() === '' || !Number.isFinite(n)) throw bad(`Unable to convert the value ${value} to the expected data type float.`);
      return n;
    }
    case 'datetime':
      return timestampOrFail(value);
    default:
      return value;
  }
}

/** Result of translating a simple query. */
export interface SimpleFilter {
  filter: Filter<EventDoc>;
  /** `all_tenants` was given and true (only meaningful for admins). */
  allTenants: boolean;
}

const TRUE_STRINGS = new Set(['1', 't', 'true', 'on', 'y', 'yes']);

/**
 * A condition on a trait. `resource_id` (text) and `project_id` (text) use the top-level fields the indexes cover;
 * `project_id` there is the event's scope, its project_id trait or else its tenant_id trait. `ne` still requires the
 * trait to exist, as Panko's join on the trait table does.
 */
function traitCondition(name: string, mongoOp: string, value: unknown): Cond {
  let path = `t.${encodeTraitName(name)}`;
  if (typeof value === 'string' && (name === 'resource_id' || name === 'project_id')) path = name;
  if (mongoOp === '$ne') {
    return path === 'project_id' ? { project_id: { $nin: [value, null] } } : { [path]: { $exists: true, $ne: value } };
  }
  return { [path]: mongoOp === '$eq' ? value : { [mongoOp]: value } };
}

/**
 * Translates Panko's `q` list (always AND-ed) into a filter.
 * @param isAdmin whether `all_tenants` lifts the project restriction (for others it is an ordinary trait name).
 * @throws AppError 400 for an unsupported operator, type or value.
 */
export function translateSimpleQuery(q: SimpleQuery[], isAdmin: boolean): SimpleFilter {
  const parts: Cond[] = [];
  let allTenants = false;
  for (const item of q) {
    const op = (item.op || 'eq') as Op;
    if (!OPS.includes(op)) {
      throw bad(`Operator ${item.op} is not supported. The supported operators are: ('lt', 'le', 'eq', 'ne', 'ge', 'gt')`);
    }
    const allowed = SPECIAL_OPS[item.field];
    if (allowed && !allowed.includes(op)) {
      throw bad(`Operator ${op} is not supported. Only \`${allowed[0]}' operator is available for field ${item.field}`);
    }
    switch (item.field) {
      case 'event_type':
        parts.push({ event_type: item.value });
        break;
      case 'message_id':
        parts.push({ _id: item.value });
        break;
      case 'start_timestamp':
        parts.push({ generated: { $gte: timestampOrFail(item.value) } });
        break;
      case 'end_timestamp':
        parts.push({ generated: { $lte: timestampOrFail(item.value) } });
        break;
      case 'all_tenants':
        if (isAdmin) {
          allTenants = TRUE_STRINGS.has(item.value.trim().toLowerCase());
          break;
        }
        parts.push(traitCondition(item.field, MONGO_OP[op], convertTraitValue(item.value, item.type)));
        break;
      default:
        parts.push(traitCondition(item.field, MONGO_OP[op], convertTraitValue(item.value, item.type)));
    }
  }
  return { filter: mergeAnd(...parts) as Filter<EventDoc>, allTenants };
}

// ---------------------------------------------------------------------------------------------------------------
// Complex query (Ceilometer `ceilometer/api/controllers/v2/query.py`, reused for POST /v2/query/events)
// ---------------------------------------------------------------------------------------------------------------

/** Comparison operators, lower-cased, with Ceilometer's aliases `=<` and `=>`. */
const COMPLEX_OPS: Record<string, string> = {
  '=': '$eq',
  '!=': '$ne',
  '<': '$lt',
  '<=': '$lte',
  '=<': '$lte',
  '>': '$gt',
  '>=': '$gte',
  '=>': '$gte',
  '=~': '$regex',
  in: '$in',
};
const COMPLEX_OP_NAMES = ['=', '!=', '<', '<=', '=<', '>', '>=', '=>', '=~', 'in', 'and', 'or', 'not'];
/** Nesting and size bounds: a hostile filter cannot cost unbounded work to translate or to run. */
const MAX_DEPTH = 16;
const MAX_NODES = 256;

type FieldKind = 'time' | 'plain' | 'trait';

/** Where a complex-query field lives. Any field without a meaning of its own is a trait name. */
function fieldPath(field: string): { path: string; kind: FieldKind } {
  switch (field) {
    case 'timestamp':
    case 'generated':
      return { path: 'generated', kind: 'time' };
    case 'event_type':
      return { path: 'event_type', kind: 'plain' };
    case 'message_id':
      return { path: '_id', kind: 'plain' };
    case 'resource_id':
    case 'project_id':
      return { path: field, kind: 'plain' };
    default:
      return { path: `t.${encodeTraitName(field)}`, kind: 'trait' };
  }
}

function filterError(detail: string): AppError {
  return bad(`Filter expression not valid: ${detail}`);
}

/**
 * Parses the JSON text of a filter or orderby. Integers beyond 2^53 stay exact (as int64 `Long`s, or as digit
 * strings beyond int64), so they compare exactly with stored integer traits.
 * @throws AppError 400 `<prefix><parser message>`.
 */
export function parseQueryJson(text: string, prefix: string): unknown {
  try {
    return parseLossless(text, null, (n: string) => {
      if (isSafeNumber(n)) return Number(n);
      if (!isInteger(n)) return Number(n);
      const big = BigInt(n);
      return big >= -(2n ** 63n) && big <= 2n ** 63n - 1n ? Long.fromBigInt(big) : n;
    });
  } catch (err) {
    throw bad(`${prefix}${(err as Error).message}`);
  }
}

const REGEX_MAX_LENGTH = 256;

/**
 * Accepts an `=~` pattern only from a subset whose matching cost is bounded: literal characters, escapes,
 * `.`, character classes, `^` at the start and `$` at the end, fixed repeats `{n}` (n ≤ 100), and at most ONE
 * variable-length quantifier (`* + ? {n,} {n,m}`). No groups, alternation, backreferences or lookaround. With one
 * variable quantifier and no groups a backtracking engine tries at most O(n) splits per start position, so a match
 * costs O(n²) in the value length: no catastrophic backtracking (ReDoS) is expressible.
 * @throws AppError 400 naming what is not allowed.
 */
export function safePattern(pattern: string): string {
  const fail = (why: string) => filterError(`=~ pattern ${JSON.stringify(pattern)} is not allowed: ${why}`);
  if (pattern.length > REGEX_MAX_LENGTH) throw fail(`longer than ${REGEX_MAX_LENGTH} characters`);
  let variable = 0;
  let i = 0;
  let atom = false;
  while (i < pattern.length) {
    const c = pattern[i] as string;
    if (c === '^') {
      if (i !== 0) throw fail('^ may only start the pattern');
      i++;
      continue;
    }
    if (c === '$') {
      if (i !== pattern.length - 1) throw fail('$ may only end the pattern');
      i++;
      continue;
    }
    if ('*+?'.includes(c) || c === '{') {
      if (!atom) throw fail(`quantifier at position ${i} has nothing to repeat`);
      let fixed = false;
      if (c === '{') {
        const m = /^\{(\d{1,6})(,(\d{1,6})?)?\}/.exec(pattern.slice(i));
        if (!m) throw fail(`malformed repeat at position ${i}`);
        const lo = Number(m[1]);
        const hi = m[2] === undefined ? lo : m[3] === undefined ? Number.POSITIVE_INFINITY : Number(m[3]);
        if (lo > 100 || (hi !== Number.POSITIVE_INFINITY && hi > 100) || hi < lo) throw fail('repeat counts must be 0-100');
        fixed = hi === lo;
        i += m[0].length;
      } else {
        i++;
      }
      const after = pattern[i];
      if (after !== undefined && '+*?'.includes(after)) throw fail('lazy or possessive quantifiers are not supported');
      if (!fixed && ++variable > 1) throw fail('at most one variable-length quantifier (* + ? {n,m})');
      atom = false;
      continue;
    }
    if ('()|'.includes(c)) throw fail('groups and alternation are not supported');
    if (c === '\\') {
      const next = pattern[i + 1];
      if (next === undefined) throw fail('ends with a backslash');
      // Class escapes and escaped punctuation only: the same meaning in PCRE (MongoDB), RE2 (FerretDB) and JS.
      if (/[A-Za-z0-9]/.test(next) && !'dDwWsStnr'.includes(next)) throw fail(`escape \\${next} is not supported`);
      i += 2;
      atom = true;
      continue;
    }
    if (c === '[') {
      let j = i + 1;
      if (pattern[j] === '^') j++;
      if (pattern[j] === ']') j++;
      while (j < pattern.length && pattern[j] !== ']') {
        if (pattern[j] === '\\') j++;
        else if (pattern[j] === '[') throw fail('nested or POSIX classes are not supported');
        j++;
      }
      if (j >= pattern.length) throw fail('unterminated character class');
      i = j + 1;
      atom = true;
      continue;
    }
    i++;
    atom = true;
  }
  try {
    new RegExp(pattern);
  } catch (err) {
    throw fail((err as Error).message);
  }
  return pattern;
}

/** What a complex query may name, from the caller's identity. */
export interface ComplexQueryContext {
  /** The only project a non-admin may name in a project_id/tenant_id leaf; null when any is allowed (admins). */
  ownProject: string | null;
}

type Leaf = string | number | boolean | Long;

function isLeaf(v: unknown): v is Leaf {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || v instanceof Long;
}

/**
 * Values a leaf compares with, typed as stored. Timestamps become the canonical form. A string that reads as a
 * timestamp also matches a datetime trait stored in canonical form (`=`/`in` try both spellings; ranges use the
 * canonical one). Booleans compare as Python's `str()` of them, as Ceilometer stores them in text traits.
 */
function leafValues(kind: FieldKind, value: Leaf, field: string, forRange: boolean): unknown[] {
  if (kind === 'time') {
    if (typeof value !== 'string') throw filterError(`${field} must be compared with a timestamp string`);
    const ts = canonicalTimestamp(value);
    if (!ts) throw bad(`Failed to parse the timestamp value ${value}`);
    return [ts];
  }
  if (typeof value === 'boolean') return [value ? 'True' : 'False'];
  if (kind === 'trait' && typeof value === 'string') {
    const ts = canonicalTimestamp(value);
    if (ts && ts !== value) return forRange ? [ts] : [value, ts];
  }
  return [value];
}

/**
 * Translates a parsed complex-query filter into a MongoDB filter.
 * Grammar (Ceilometer): `{"and"|"or": [expr, expr, ...]}` (at least two), `{"not": expr}`, `{op: {field: value}}` with
 * op in `= != < <= =< > >= => =~`, and `{"in": {field: [values]}}` (at least one); operators in any case; values are
 * strings, numbers or booleans. Field names are case-sensitive; any name that is not a special field is a trait.
 * @throws AppError 400 `Filter expression not valid: ...` naming what is wrong; 403 when a non-admin names another
 *   project (Ceilometer answered 401 `Not Authorized to access project <id>`; 403 is the status for a refusal).
 */
export function translateComplexFilter(expr: unknown, ctx: ComplexQueryContext): Filter<EventDoc> {
  let nodes = 0;
  const checkProject = (field: string, values: unknown[]) => {
    if (ctx.ownProject === null || (field !== 'project_id' && field !== 'tenant_id')) return;
    for (const v of values) {
      if (v !== ctx.ownProject) throw new AppError(403, `Not Authorized to access project ${String(v)}`);
    }
  };
  const walk = (node: unknown, depth: number): Cond => {
    if (++nodes > MAX_NODES) throw filterError(`more than ${MAX_NODES} expressions`);
    if (depth > MAX_DEPTH) throw filterError(`nested deeper than ${MAX_DEPTH} levels`);
    if (node === null || typeof node !== 'object' || Array.isArray(node) || node instanceof Long) {
      throw filterError(`${JSON.stringify(node)} is not an expression object`);
    }
    const keys = Object.keys(node);
    if (keys.length !== 1) throw filterError(`an expression must have exactly one operator, got ${keys.length}`);
    const opRaw = keys[0] as string;
    const op = opRaw.toLowerCase();
    const arg = (node as Record<string, unknown>)[opRaw];
    if (op === 'and' || op === 'or') {
      if (!Array.isArray(arg) || arg.length < 2) throw filterError(`${opRaw} needs a list of at least 2 expressions`);
      const parts = arg.map((a) => walk(a, depth + 1));
      return op === 'and' ? mergeAnd(...parts) : { $or: parts };
    }
    if (op === 'not') return { $nor: [walk(arg, depth + 1)] };
    const mongoOp = COMPLEX_OPS[op];
    if (!mongoOp) throw filterError(`operator ${opRaw} is not supported; supported operators are ${COMPLEX_OP_NAMES.join(' ')}`);
    if (arg === null || typeof arg !== 'object' || Array.isArray(arg) || arg instanceof Long) {
      throw filterError(`${opRaw} needs an object {field: value}`);
    }
    const fields = Object.keys(arg);
    if (fields.length !== 1) throw filterError(`${opRaw} must compare exactly one field, got ${fields.length}`);
    const field = fields[0] as string;
    if (field.trim() === '') throw filterError('empty field name');
    const { path, kind } = fieldPath(field);
    const raw = (arg as Record<string, unknown>)[field];
    if (op === 'in') {
      if (!Array.isArray(raw) || raw.length === 0) throw filterError(`in needs a non-empty list of values for ${field}`);
      nodes += raw.length;
      if (nodes > MAX_NODES * 4) throw filterError(`more than ${MAX_NODES * 4} values in in lists`);
      const values = raw.flatMap((v) => {
        if (!isLeaf(v) || typeof v === 'boolean') throw filterError(`in takes strings and numbers, got ${JSON.stringify(v)}`);
        return leafValues(kind, v, field, false);
      });
      checkProject(field, values);
      return { [path]: { $in: values } };
    }
    if (!isLeaf(raw)) throw filterError(`the value of ${field} must be a string, a number or a boolean`);
    if (mongoOp === '$regex') {
      if (typeof raw !== 'string') throw filterError('=~ needs a string pattern');
      if (kind === 'time') throw filterError(`=~ cannot be used on ${field}`);
      checkProject(field, [raw]);
      return { [path]: { $regex: safePattern(raw) } };
    }
    const values = leafValues(kind, raw, field, !['$eq', '$ne'].includes(mongoOp));
    checkProject(field, values);
    if (mongoOp === '$eq') return { [path]: values.length === 1 ? { $eq: values[0] } : { $in: values } };
    if (mongoOp === '$ne') {
      // As in Panko, comparing a trait requires the event to have it.
      const absent = path === 'project_id' ? [null] : [];
      return { [path]: { ...(kind === 'trait' || path === 'resource_id' ? { $exists: true } : {}), $nin: [...values, ...absent] } };
    }
    return { [path]: { [mongoOp]: values[0] } };
  };
  return walk(expr, 0) as Filter<EventDoc>;
}

// ---------------------------------------------------------------------------------------------------------------
// Order and paging
// ---------------------------------------------------------------------------------------------------------------

/** Sort keys accepted in `orderby` and `sort`, mapped to stored fields. */
const ORDER_FIELDS: Record<string, string> = {
  timestamp: 'generated',
  generated: 'generated',
  message_id: '_id',
  event_type: 'event_type',
};

export type SortSpec = [string, 1 | -1][];

/**
 * Translates a parsed `orderby` list (`[{"timestamp":"desc"}, ...]`) into a sort; `_id` is appended as a tiebreaker.
 * @throws AppError 400 `Order-by expression not valid: ...`.
 */
export function translateOrderBy(orderby: unknown): SortSpec {
  const fail = (d: string) => bad(`Order-by expression not valid: ${d}`);
  if (!Array.isArray(orderby)) throw fail('must be a list of {field: direction} objects');
  const out: SortSpec = [];
  if (orderby.length === 0) return withTiebreak([['generated', -1]]);
  for (const item of orderby) {
    if (item === null || typeof item !== 'object' || Array.isArray(item) || Object.keys(item).length !== 1) {
      throw fail(`${JSON.stringify(item)} is not a {field: direction} object`);
    }
    const [field, dir] = Object.entries(item as Record<string, unknown>)[0] as [string, unknown];
    const path = ORDER_FIELDS[field];
    if (!path) throw fail(`cannot order by ${field}; sortable fields are ${Object.keys(ORDER_FIELDS).join(', ')}`);
    if (typeof dir !== 'string' || !/^(asc|desc)$/i.test(dir)) throw fail(`'${String(dir)}' does not match '(?i)^asc$|^desc$'`);
    if (out.some(([k]) => k === path)) throw fail(`${field} is ordered twice`);
    out.push([path, dir.toLowerCase() === 'desc' ? -1 : 1]);
  }
  return withTiebreak(out);
}

/** Sort keys of `GET /v2/events?sort=key:dir` (Panko's two plus event_type), mapped to stored fields. */
const LIST_SORT_KEYS: Record<string, string> = { generated: 'generated', message_id: '_id', event_type: 'event_type' };

/**
 * Translates Panko's `sort` parameters (`key[:dir]`, repeatable); none → `generated asc` (Panko's default, with
 * `message_id asc` as the tiebreaker).
 * @throws AppError 400 with Panko's messages for an unknown key or direction.
 */
export function translateListSort(sort: string[]): SortSpec {
  const spec: SortSpec = [];
  for (const s of sort) {
    const [key = '', dir = 'asc', ...extra] = s.split(':');
    const path = LIST_SORT_KEYS[key];
    const help =
      "the sort parameter should be a pair of sort key and sort dir combined with ':', or only sort key specified and sort dir will be default 'asc'";
    if (!path || extra.length > 0) {
      throw bad(
        `Invalid input for field/attribute sort. Value: '${s}'. ${help}, the supported sort keys are: ('message_id', 'generated', 'event_type')`,
      );
    }
    if (dir !== 'asc' && dir !== 'desc') {
      throw bad(
        `Invalid input for field/attribute sort direction. Value: '${s}'. ${help}, the supported sort directions are: ('asc', 'desc')`,
      );
    }
    if (!spec.some(([k]) => k === path)) spec.push([path, dir === 'desc' ? -1 : 1]);
  }
  if (spec.length === 0) spec.push(['generated', 1]);
  return withTiebreak(spec);
}

/** Appends `_id` in the last key's direction so order is total (stable pages). */
export function withTiebreak(sort: SortSpec): SortSpec {
  if (sort.some(([k]) => k === '_id')) return sort;
  const last = sort.at(-1)?.[1] ?? 1;
  return [...sort, ['_id', last]];
}

/**
 * The keyset condition "after the marker row in this order": for keys k1..kn (the last is `_id`, so order is
 * total), `k1 ▷ v1 OR (k1 = v1 AND k2 ▷ v2) OR …`, where ▷ is `>` for ascending keys and `<` for descending ones.
 * Rows inserted while a client pages land before or after the marker by their own keys, so pages never repeat or
 * skip a row that existed when paging began (unlike offsets).
 * The first key's non-strict bound is added as a plain condition so an index on it can serve the scan.
 */
export function afterMarker(sort: SortSpec, marker: Record<string, unknown>): Cond {
  const branches: Cond[] = [];
  for (let i = 0; i < sort.length; i++) {
    const branch: Cond = {};
    for (let j = 0; j < i; j++) {
      const [k] = sort[j] as [string, 1 | -1];
      branch[k] = marker[k];
    }
    const [k, dir] = sort[i] as [string, 1 | -1];
    branch[k] = { [dir === 1 ? '$gt' : '$lt']: marker[k] };
    branches.push(branch);
  }
  const [k0, d0] = sort[0] as [string, 1 | -1];
  return { [k0]: { [d0 === 1 ? '$gte' : '$lte']: marker[k0] }, $or: branches };
}
