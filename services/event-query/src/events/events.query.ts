/**
 * Query translation: Panko's simple query (`q.field/q.op/q.value/q.type`) and Ceilometer's complex query
 * (`filter`/`orderby` JSON text) → MongoDB filters over the stored event document (events.model.ts).
 *
 * Rules and messages follow reference/events.md §4-§5 (Panko `_event_query_to_event_filter`) and §9 (Ceilometer
 * `ComplexQuery`), except where Panko answered 500 (bad timestamp): that is a 400 here.
 */
import { AppError } from '@stratum/http-kit';
import { canonicalTimestamp, parseTraitType, type TraitType } from '@stratum/traits';
import { type Filter, Long } from 'mongodb';
import { type EventDoc, encodeTraitName } from './events.model';

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

/** Special fields and the operators each accepts (Panko accepts only the first; pankoclient always sends `eq`). */
const SPECIAL_OPS: Record<string, readonly Op[]> = {
  event_type: ['eq'],
  message_id: ['eq'],
  start_timestamp: ['ge', 'eq'],
  end_timestamp: ['le', 'eq'],
};

function bad(message: string): AppError {
  return new AppError(400, message);
}

function timestampOrFail(value: string): string {
  const ts = canonicalTimestamp(value);
  if (!ts) throw bad(`Unable to convert the value ${value} to the expected data type datetime.`);
  return ts;
}

/**
 * Converts a query value to the typed form stored in `t` (events.model.ts `typedTraitValue`).
 * @throws AppError 400 with Panko's messages for an unknown type or an unconvertible value.
 */
export function convertTraitValue(value: string, typeName: string): string | number | Long {
  const type: TraitType | undefined = typeName === '' ? 'String' : parseTraitType(typeName);
  if (!type) {
    throw bad(`The data type ${typeName} is not supported. The supported data type list is: ['integer', 'float', 'string', 'datetime']`);
  }
  switch (type) {
    case 'integer':
      if (!/^[-+]?\d+$/.test(value.trim())) throw bad(`Unable to convert the value ${value} to the expected data type integer.`);
      try {
        return Long.fromBigInt(BigInt(value.trim()));
      } catch {
        throw bad(`Unable to convert the value ${value} to the expected data type integer.`);
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
 * Translates Panko's `q` list (always AND-ed) into a filter.
 * @throws AppError 400 for an unsupported operator, type or value.
 */
export function translateSimpleQuery(q: SimpleQuery[], isAdmin: boolean): SimpleFilter {
  const and: Filter<EventDoc>[] = [];
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
        and.push({ event_type: item.value });
        break;
      case 'message_id':
        and.push({ _id: item.value });
        break;
      case 'start_timestamp':
        and.push({ generated: { $gte: timestampOrFail(item.value) } });
        break;
      case 'end_timestamp':
        and.push({ generated: { $lte: timestampOrFail(item.value) } });
        break;
      case 'all_tenants':
        // Panko: for a non-admin `all_tenants` is an ordinary trait filter (which matches nothing in practice).
        if (isAdmin) {
          allTenants = TRUE_STRINGS.has(item.value.trim().toLowerCase());
          break;
        }
        and.push(traitCondition(item.field, MONGO_OP[op], convertTraitValue(item.value, item.type)));
        break;
      default:
        and.push(traitCondition(item.field, MONGO_OP[op], convertTraitValue(item.value, item.type)));
    }
  }
  return { filter: and.length === 0 ? {} : and.length === 1 ? (and[0] as Filter<EventDoc>) : { $and: and }, allTenants };
}

function traitCondition(name: string, mongoOp: string, value: unknown): Filter<EventDoc> {
  const path = `t.${encodeTraitName(name)}`;
  // `$ne` must still require the trait to exist, as Panko's join on the trait table does.
  if (mongoOp === '$ne') return { [path]: { $exists: true, $ne: value } } as Filter<EventDoc>;
  return { [path]: { [mongoOp]: value } } as Filter<EventDoc>;
}

// ---------------------------------------------------------------------------------------------------------------
// Complex query (Ceilometer `ceilometer/api/controllers/v2/query.py` ValidatedComplexQuery)
// ---------------------------------------------------------------------------------------------------------------

const COMPLEX_OPS: Record<string, string> = { '=': '$eq', '!=': '$ne', '<': '$lt', '<=': '$lte', '>': '$gt', '>=': '$gte', in: '$in' };
const COMPLEX_OP_NAMES = ['=', '!=', '<', '<=', '>', '>=', 'in', 'and', 'or', 'not'];
/** Nesting bound: keeps a hostile filter from costing unbounded work. */
const MAX_DEPTH = 16;
const MAX_NODES = 256;

/** Fields with a meaning of their own; any other field is a trait name. */
function fieldPath(field: string): { path: string; kind: 'time' | 'plain' | 'trait' } {
  switch (field) {
    case 'timestamp':
    case 'generated':
      return { path: 'generated', kind: 'time' };
    case 'event_type':
      return { path: 'event_type', kind: 'plain' };
    case 'message_id':
      return { path: '_id', kind: 'plain' };
    default:
      return { path: `t.${encodeTraitName(field)}`, kind: 'trait' };
  }
}

function filterError(detail: string): AppError {
  return bad(`Filter expression not valid: ${detail}`);
}

/** A JSON value of a complex-query leaf, typed as stored: numbers that are integers compare as int64 too. */
function leafValue(kind: 'time' | 'plain' | 'trait', value: unknown, field: string): unknown {
  if (kind === 'time') {
    if (typeof value !== 'string') throw filterError(`${field} must be compared with a timestamp string`);
    const ts = canonicalTimestamp(value);
    if (!ts) throw bad(`Failed to parse the timestamp value ${value}`);
    return ts;
  }
  if (typeof value === 'string' || typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  throw filterError(`the value of ${field} must be a string or a number`);
}

/**
 * Translates a parsed complex-query filter into a MongoDB filter.
 * Grammar: `{"and"|"or": [expr, ...]}`, `{"not": expr}`, `{op: {field: value}}` with op in `= != < <= > >=`, and
 * `{"in": {field: [values]}}`. Regular-expression operators are not offered (no ReDoS surface).
 * @throws AppError 400 `Filter expression not valid: ...` naming what is wrong.
 */
export function translateComplexFilter(expr: unknown): Filter<EventDoc> {
  let nodes = 0;
  const walk = (node: unknown, depth: number): Filter<EventDoc> => {
    if (++nodes > MAX_NODES) throw filterError(`more than ${MAX_NODES} expressions`);
    if (depth > MAX_DEPTH) throw filterError(`nested deeper than ${MAX_DEPTH} levels`);
    if (node === null || typeof node !== 'object' || Array.isArray(node)) {
      throw filterError(`${JSON.stringify(node)} is not an expression object`);
    }
    const keys = Object.keys(node);
    if (keys.length !== 1) throw filterError(`an expression must have exactly one operator, got ${keys.length}`);
    const opRaw = keys[0] as string;
    const op = opRaw.toLowerCase();
    const arg = (node as Record<string, unknown>)[opRaw];
    if (op === 'and' || op === 'or') {
      if (!Array.isArray(arg) || arg.length < 1) throw filterError(`${op} needs a non-empty list of expressions`);
      const parts = arg.map((a) => walk(a, depth + 1));
      return op === 'and' ? { $and: parts } : { $or: parts };
    }
    if (op === 'not') return { $nor: [walk(arg, depth + 1)] };
    const mongoOp = COMPLEX_OPS[op];
    if (!mongoOp) {
      throw filterError(`operator ${opRaw} is not supported; supported operators are ${COMPLEX_OP_NAMES.join(', ')}`);
    }
    if (arg === null || typeof arg !== 'object' || Array.isArray(arg)) throw filterError(`${opRaw} needs an object {field: value}`);
    const fields = Object.keys(arg);
    if (fields.length !== 1) throw filterError(`${opRaw} must compare exactly one field`);
    const field = fields[0] as string;
    if (field === '') throw filterError('empty field name');
    const { path, kind } = fieldPath(field);
    const raw = (arg as Record<string, unknown>)[field];
    if (op === 'in') {
      if (!Array.isArray(raw) || raw.length === 0) throw filterError(`in needs a non-empty list of values for ${field}`);
      return { [path]: { $in: raw.map((v) => leafValue(kind, v, field)) } } as Filter<EventDoc>;
    }
    const value = leafValue(kind, raw, field);
    if (kind === 'trait') {
      // Integers are stored as int64 and text as strings; a JSON number matches int and float traits alike.
      if (mongoOp === '$ne') return { [path]: { $exists: true, $ne: value } } as Filter<EventDoc>;
    }
    return { [path]: { [mongoOp]: value } } as Filter<EventDoc>;
  };
  return walk(expr, 0);
}

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
  for (const item of orderby) {
    if (item === null || typeof item !== 'object' || Array.isArray(item) || Object.keys(item).length !== 1) {
      throw fail(`${JSON.stringify(item)} is not a {field: direction} object`);
    }
    const [field, dir] = Object.entries(item as Record<string, unknown>)[0] as [string, unknown];
    const path = ORDER_FIELDS[field];
    if (!path) throw fail(`cannot order by ${field}; sortable fields are ${Object.keys(ORDER_FIELDS).join(', ')}`);
    if (typeof dir !== 'string' || !/^(asc|desc)$/i.test(dir)) throw fail(`'${String(dir)}' does not match '(?i)^asc$|^desc$'`);
    out.push([path, dir.toLowerCase() === 'desc' ? -1 : 1]);
  }
  return withTiebreak(out);
}

/** Appends `_id` in the last key's direction so order is total (stable pages). */
export function withTiebreak(sort: SortSpec): SortSpec {
  if (sort.some(([k]) => k === '_id')) return sort;
  const last = sort.at(-1)?.[1] ?? 1;
  return [...sort, ['_id', last]];
}
