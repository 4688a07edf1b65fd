/**
 * Query translation, part 3: order (`orderby`, `sort`) and the keyset condition of marker paging.
 */
import * as errors from '../errors';
import type { Cond } from './events.query';

/** Sort keys accepted in `orderby`, mapped to stored fields (a Map: the keys are client-named). */
const ORDER_FIELDS = new Map([
  ['timestamp', 'generated'],
  ['generated', 'generated'],
  ['message_id', '_id'],
  ['event_type', 'event_type'],
]);

export type SortSpec = [string, 1 | -1][];

/**
 * Translates a parsed `orderby` list (`[{"timestamp":"desc"}, ...]`) into a sort; `_id` is appended as a tiebreaker.
 * @throws AppError 400 `Order-by expression not valid: ...`.
 */
export function translateOrderBy(orderby: unknown): SortSpec {
  const fail = errors.orderByNotValid;
  if (!Array.isArray(orderby)) throw fail('must be a list of {field: direction} objects');
  const out: SortSpec = [];
  if (orderby.length === 0) return withTiebreak([['generated', -1]]);
  for (const item of orderby) {
    if (item === null || typeof item !== 'object' || Array.isArray(item) || Object.keys(item).length !== 1) {
      throw fail(`${JSON.stringify(item)} is not a {field: direction} object`);
    }
    const [field, dir] = Object.entries(item as Record<string, unknown>)[0] as [string, unknown];
    const path = ORDER_FIELDS.get(field);
    if (!path) throw fail(`cannot order by ${field}; sortable fields are ${[...ORDER_FIELDS.keys()].join(', ')}`);
    if (typeof dir !== 'string' || !/^(asc|desc)$/i.test(dir)) throw fail(`'${String(dir)}' does not match '(?i)^asc$|^desc$'`);
    if (out.some(([k]) => k === path)) throw fail(`${field} is ordered twice`);
    out.push([path, dir.toLowerCase() === 'desc' ? -1 : 1]);
  }
  return withTiebreak(out);
}

/** Sort keys of `GET /v2/events?sort=key:dir` (Panko's two plus event_type), mapped to stored fields. */
const LIST_SORT_KEYS = new Map([...ORDER_FIELDS].filter(([key]) => key !== 'timestamp'));

/**
 * Translates Panko's `sort` parameters (`key[:dir]`, repeatable); none → `generated asc` (Panko's default, with
 * `message_id asc` as the tiebreaker).
 * @throws AppError 400 with Panko's messages for an unknown key or direction.
 */
export function translateListSort(sort: string[]): SortSpec {
  const spec: SortSpec = [];
  for (const s of sort) {
    const [key = '', dir = 'asc', ...extra] = s.split(':');
    const path = LIST_SORT_KEYS.get(key);
    if (!path || extra.length > 0) {
      throw errors.invalidSortKey(s);
    }
    if (dir !== 'asc' && dir !== 'desc') {
      throw errors.invalidSortDirection(s);
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
