/**
 * Query translation, part 1: Panko's simple query (`q.field/q.op/q.value/q.type`) → a MongoDB filter over the stored
 * event document (events.model.ts), and `mergeAnd`, which every translation uses. The complex query is in
 * events.complex.ts, order and marker paging in events.order.ts.
 *
 * Rules and messages follow docs/upstream/events.md §4-§5 (Panko `_event_query_to_event_filter`), except where Panko
 * answered 500 (bad timestamp): that is a 400 here.
 */
import { canonicalTimestamp, parseTraitType, type TraitType } from '@stratum/traits';
import { Long } from 'bson';
import type { Filter } from 'mongodb';
import * as errors from '../errors';
import { type EventDoc, encodeTraitName, toInt64 } from './events.model';

/** A MongoDB filter under construction. */
export type Cond = Record<string, unknown>;

/**
 * AND of conditions as one plain object where possible: conditions on different fields are merged, operator objects
 * on the same field are merged when their operators differ, nested `$and`s are flattened; only true clashes stay in
 * an `$and`. Same meaning as `{$and: parts}`, and the plain form is what every store's planner matches to a
 * compound index most reliably.
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
 * A Map: `q.field` is client-named, and `constructor` or `toString` are trait names, not special fields.
 */
const SPECIAL_OPS = new Map<string, readonly Op[]>([
  ['event_type', ['eq']],
  ['message_id', ['eq']],
  ['start_timestamp', ['ge', 'eq']],
  ['end_timestamp', ['le', 'eq']],
]);

/**
 * Checks a trait name a client gives (in `q.field`, a complex filter, a path): any characters but NUL, which no
 * document field name can hold (BSON names are NUL-terminated); the name must not be empty.
 * @param what how the error names the input, e.g. `q.field`.
 * @throws AppError 400.
 */
export function checkTraitName(name: string, what: string): string {
  if (name === '') throw errors.traitNameEmpty(what);
  if (name.includes('\u0000')) throw errors.traitNameHasNul(what, name);
  return name;
}

function timestampOrFail(value: string): string {
  const ts = canonicalTimestamp(value);
  if (!ts) throw errors.notConvertible(value, 'datetime');
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
    throw errors.typeNotSupported(typeName);
  }
  switch (type) {
    case 'integer': {
      const text = value.trim();
      if (!/^[-+]?\d+$/.test(text)) throw errors.notConvertible(value, 'integer');
      const big = BigInt(text);
      return toInt64(big) ?? big.toString();
    }
    case 'float': {
      const n = Number(value);
      if (value.trim() === '' || !Number.isFinite(n)) throw errors.notConvertible(value, 'float');
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

/** oslo's `bool_from_string` true spellings (lower case). */
export const TRUE_STRINGS = new Set(['1', 't', 'true', 'on', 'y', 'yes']);

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
      throw errors.operatorNotSupported(item.op);
    }
    checkTraitName(item.field, 'q.field');
    const allowed = SPECIAL_OPS.get(item.field);
    if (allowed && !allowed.includes(op)) {
      throw errors.operatorOnly(op, allowed[0] as string, item.field);
    }
    // For a non-admin, all_tenants is an ordinary trait name.
    if (item.field === 'all_tenants' && isAdmin) {
      allTenants = TRUE_STRINGS.has(item.value.trim().toLowerCase());
      continue;
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
      default:
        parts.push(traitCondition(item.field, MONGO_OP[op], convertTraitValue(item.value, item.type)));
    }
  }
  return { filter: mergeAnd(...parts) as Filter<EventDoc>, allTenants };
}
