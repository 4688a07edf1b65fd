/**
 * Query translation, part 2: Ceilometer's complex query (`ceilometer/api/controllers/v2/query.py`
 * `ValidatedComplexQuery`, docs/upstream/events.md §9), reused for POST /v2/query/events: the JSON text of `filter` →
 * a MongoDB filter over the stored event document (events.model.ts), with the safe `=~` subset.
 */
import { canonicalTimestamp } from '@stratum/traits';
import { Long } from 'bson';
import { isInteger, isSafeNumber, parse as parseLossless } from 'lossless-json';
import type { Filter } from 'mongodb';
import * as errors from '../errors';
import { type EventDoc, encodeTraitName, toInt64 } from './events.model';
import { type Cond, mergeAnd } from './events.query';

/** Comparison operators, lower-cased, with Ceilometer's aliases `=<` and `=>` (a Map: operators are client-named). */
const COMPLEX_OPS = new Map([
  ['=', '$eq'],
  ['!=', '$ne'],
  ['<', '$lt'],
  ['<=', '$lte'],
  ['=<', '$lte'],
  ['>', '$gt'],
  ['>=', '$gte'],
  ['=>', '$gte'],
  ['=~', '$regex'],
  ['in', '$in'],
]);
const COMPLEX_OP_NAMES = [...COMPLEX_OPS.keys(), 'and', 'or', 'not'];
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

/**
 * Parses the JSON text of a filter or orderby. Integers beyond 2^53 stay exact (as int64 `Long`s, or as digit
 * strings beyond int64), so they compare exactly with stored integer traits.
 * @throws SyntaxError `<prefix><parser message>` (the body's schema reports it as a 400).
 */
export function parseQueryJson(text: string, prefix: string): unknown {
  try {
    return parseLossless(text, null, (n: string) => {
      if (isSafeNumber(n)) return Number(n);
      if (!isInteger(n)) return Number(n);
      return toInt64(BigInt(n)) ?? n;
    });
  } catch (err) {
    throw new SyntaxError(`${prefix}${(err as Error).message}`);
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
  const fail = (why: string) => errors.filterNotValid(`=~ pattern ${JSON.stringify(pattern)} is not allowed: ${why}`);
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
    if (typeof value !== 'string') throw errors.filterNotValid(`${field} must be compared with a timestamp string`);
    const ts = canonicalTimestamp(value);
    if (!ts) throw errors.badTimestamp(value);
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
      if (v !== ctx.ownProject) throw errors.projectNotAuthorized(String(v));
    }
  };
  const walk = (node: unknown, depth: number): Cond => {
    if (++nodes > MAX_NODES) throw errors.filterNotValid(`more than ${MAX_NODES} expressions`);
    if (depth > MAX_DEPTH) throw errors.filterNotValid(`nested deeper than ${MAX_DEPTH} levels`);
    if (node === null || typeof node !== 'object' || Array.isArray(node) || node instanceof Long) {
      throw errors.filterNotValid(`${JSON.stringify(node)} is not an expression object`);
    }
    const keys = Object.keys(node);
    if (keys.length !== 1) throw errors.filterNotValid(`an expression must have exactly one operator, got ${keys.length}`);
    const opRaw = keys[0] as string;
    const op = opRaw.toLowerCase();
    const arg = (node as Record<string, unknown>)[opRaw];
    if (op === 'and' || op === 'or') {
      if (!Array.isArray(arg) || arg.length < 2) throw errors.filterNotValid(`${opRaw} needs a list of at least 2 expressions`);
      const parts = arg.map((a) => walk(a, depth + 1));
      return op === 'and' ? mergeAnd(...parts) : { $or: parts };
    }
    if (op === 'not') return { $nor: [walk(arg, depth + 1)] };
    const mongoOp = COMPLEX_OPS.get(op);
    if (!mongoOp) throw errors.filterNotValid(`operator ${opRaw} is not supported; supported operators are ${COMPLEX_OP_NAMES.join(' ')}`);
    if (arg === null || typeof arg !== 'object' || Array.isArray(arg) || arg instanceof Long) {
      throw errors.filterNotValid(`${opRaw} needs an object {field: value}`);
    }
    const fields = Object.keys(arg);
    if (fields.length !== 1) throw errors.filterNotValid(`${opRaw} must compare exactly one field, got ${fields.length}`);
    const field = fields[0] as string;
    if (field.trim() === '') throw errors.filterNotValid('empty field name');
    if (field.includes('\u0000')) throw errors.filterNotValid(`field name ${JSON.stringify(field)} contains NUL`);
    const { path, kind } = fieldPath(field);
    const raw = (arg as Record<string, unknown>)[field];
    if (op === 'in') {
      if (!Array.isArray(raw) || raw.length === 0) throw errors.filterNotValid(`in needs a non-empty list of values for ${field}`);
      nodes += raw.length;
      if (nodes > MAX_NODES * 4) throw errors.filterNotValid(`more than ${MAX_NODES * 4} values in in lists`);
      const values = raw.flatMap((v) => {
        if (!isLeaf(v) || typeof v === 'boolean') throw errors.filterNotValid(`in takes strings and numbers, got ${JSON.stringify(v)}`);
        return leafValues(kind, v, field, false);
      });
      checkProject(field, values);
      return { [path]: { $in: values } };
    }
    if (!isLeaf(raw)) throw errors.filterNotValid(`the value of ${field} must be a string, a number or a boolean`);
    if (mongoOp === '$regex') {
      if (typeof raw !== 'string') throw errors.filterNotValid('=~ needs a string pattern');
      if (kind === 'time') throw errors.filterNotValid(`=~ cannot be used on ${field}`);
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
