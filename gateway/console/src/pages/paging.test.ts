/**
 * The pages' shared paging (paging.ts): the page size a route asks for, the look-ahead limit, and the page shown of an
 * answer with whether another exists.
 */
import { PAGE_SIZE } from './events-query';
import { limitOf, lookAhead, MAX_LIMIT, pageOf } from './paging';

describe('limitOf and lookAhead', () => {
  it.each([
    ['', 20],
    ['limit=1', 1],
    [`limit=${MAX_LIMIT}`, MAX_LIMIT],
    [`limit=${MAX_LIMIT + 1}`, 20],
    ['limit=0', 20],
    ['limit=2.5', 20],
    ['limit=abc', 20],
  ])('%p asks for %p rows', (q, n) => {
    expect(limitOf(new URLSearchParams(q), 20)).toBe(n);
  });

  it('asks for one more than a page, within MAX_LIMIT', () => {
    expect(lookAhead(50)).toBe(51);
    expect(lookAhead(MAX_LIMIT - 1)).toBe(MAX_LIMIT);
    expect(lookAhead(MAX_LIMIT)).toBe(MAX_LIMIT);
  });
});

describe('pageOf, for a page of PAGE_SIZE (the events page)', () => {
  const rows = (n: number) => Array.from({ length: n }, (_, i) => `e${i}`);

  it.each([
    [0, 0, false],
    [1, 1, false],
    [PAGE_SIZE - 1, PAGE_SIZE - 1, false],
    // Exactly a page: nothing follows, so no More (and no empty last page).
    [PAGE_SIZE, PAGE_SIZE, false],
    [PAGE_SIZE + 1, PAGE_SIZE, true],
  ])('of %p rows shows %p, more: %p', (n, shown, more) => {
    const page = pageOf(rows(n), PAGE_SIZE);
    expect(page.rows).toHaveLength(shown);
    expect(page.more).toBe(more);
  });

  it('hides the extra row, so the next page (after the last shown) starts with it', () => {
    const page = pageOf(rows(PAGE_SIZE + 1), PAGE_SIZE);
    expect(page.rows.at(-1)).toBe(`e${PAGE_SIZE - 1}`);
    expect(page.rows).not.toContain(`e${PAGE_SIZE}`);
  });
});

describe('pageOf, for a page size of the route (the audit page)', () => {
  it('shows a page and offers Older only when the extra entry came back', () => {
    expect(pageOf([1, 2, 3, 4, 5], 4)).toEqual({ rows: [1, 2, 3, 4], more: true });
    // Exactly one page: no empty page behind Older.
    expect(pageOf([1, 2, 3, 4], 4)).toEqual({ rows: [1, 2, 3, 4], more: false });
    expect(pageOf([1, 2], 4)).toEqual({ rows: [1, 2], more: false });
    expect(pageOf([], 4)).toEqual({ rows: [], more: false });
  });

  it('falls back to "a full page may have more" at the API limit, where no extra entry can be asked for', () => {
    const full = Array.from({ length: MAX_LIMIT }, (_, i) => i);
    expect(pageOf(full, MAX_LIMIT).more).toBe(true);
    expect(pageOf(full.slice(1), MAX_LIMIT).more).toBe(false);
  });
});
