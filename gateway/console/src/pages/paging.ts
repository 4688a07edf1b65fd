/**
 * Paging the pages share. The API's lists (A3 events, B1 load balancer quotas, the department audit log) take a
 * `limit` of 1 to MAX_LIMIT; a page that asks for one row more than it shows (lookAhead) knows from the extra row
 * whether another page exists, so a list of exactly n pages does not end in an empty one. Pure (unit tests:
 * paging.test.ts, and the pages' model tests).
 */

/** The most rows the API's lists give in one answer (their `limit` maximum). */
export const MAX_LIMIT = 1000;

/** The page size a route asks for (`limit`, a whole number from 1 to MAX_LIMIT), else `fallback`. */
export function limitOf(route: URLSearchParams, fallback: number): number {
  const n = Number(route.get('limit'));
  return Number.isInteger(n) && n >= 1 && n <= MAX_LIMIT ? n : fallback;
}

/** The `limit` to ask for a page of `pageSize` rows: one more, within MAX_LIMIT. */
export const lookAhead = (pageSize: number): number => Math.min(pageSize + 1, MAX_LIMIT);

/**
 * An answer asked for with lookAhead(pageSize): the rows to show, and whether another page exists (the extra row came
 * back; for a page of MAX_LIMIT, where no extra one can be asked for, the page is full).
 */
export function pageOf<T>(answer: readonly T[], pageSize: number): { rows: T[]; more: boolean } {
  const more = pageSize >= MAX_LIMIT ? answer.length >= pageSize : answer.length > pageSize;
  return { rows: answer.slice(0, pageSize), more };
}
