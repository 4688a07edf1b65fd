/**
 * The audit page's pager (audit-model.ts): the route ↔ pager state ↔ API query, and an entry's change as text.
 */
import { AuditBody, auditQuery, changeText, DEFAULT_PAGE, type Pager, pagerOf, pageSizeOf, routeStateOf } from './audit-model';
import { MAX_LIMIT } from './paging';

/** The route's query of a state as setRouteParams writes it (undefined and '' left out). */
function routeOf(state: Record<string, string | undefined>): URLSearchParams {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(state)) if (v !== undefined && v !== '') q.append(k, v);
  return q;
}

describe('pageSizeOf', () => {
  it.each([
    ['', DEFAULT_PAGE],
    ['limit=1', 1],
    ['limit=25', 25],
    ['limit=1000', 1000],
    ['limit=1001', DEFAULT_PAGE],
    ['limit=0', DEFAULT_PAGE],
    ['limit=-5', DEFAULT_PAGE],
    ['limit=10.5', DEFAULT_PAGE],
    ['limit=x', DEFAULT_PAGE],
  ])('%p gives %p entries a page', (q, n) => {
    expect(pageSizeOf(new URLSearchParams(q))).toBe(n);
  });
});

describe('pagerOf', () => {
  it('starts at the first page without a marker', () => {
    expect(pagerOf(new URLSearchParams('domain_id=d1'))).toEqual({ domainId: 'd1', pageSize: 50, markers: [] });
    expect(pagerOf(new URLSearchParams(''))).toEqual({ domainId: '', pageSize: 50, markers: [] });
  });

  it("keeps the earlier pages' markers before the current one", () => {
    expect(pagerOf(new URLSearchParams('domain_id=d1&limit=10&marker=m3&before=m1,m2')).markers).toEqual(['m1', 'm2', 'm3']);
    expect(pagerOf(new URLSearchParams('domain_id=d1&marker=m1')).markers).toEqual(['m1']);
    // Empty pieces are dropped; `before` without a marker is no page.
    expect(pagerOf(new URLSearchParams('marker=m3&before=,m1,,m2,')).markers).toEqual(['m1', 'm2', 'm3']);
    expect(pagerOf(new URLSearchParams('before=m1,m2')).markers).toEqual([]);
  });
});

describe('routeStateOf ↔ pagerOf', () => {
  const pagers: Array<[string, Pager]> = [
    ['the first page', { domainId: 'd1', pageSize: DEFAULT_PAGE, markers: [] }],
    ['the second page', { domainId: 'd1', pageSize: 10, markers: ['m1'] }],
    ['the fourth page', { domainId: 'dept a&b', pageSize: 1000, markers: ['m1', 'm2', 'm3'] }],
  ];

  it.each(pagers)('round-trips %s through the URL', (_name, pager) => {
    const text = routeOf(routeStateOf(pager)).toString();
    expect(pagerOf(new URLSearchParams(text))).toEqual(pager);
  });

  it('leaves the default page size and the first page out of the URL', () => {
    expect(routeOf(routeStateOf({ domainId: 'd1', pageSize: 50, markers: [] })).toString()).toBe('domain_id=d1');
    expect(routeOf(routeStateOf({ domainId: 'd1', pageSize: 20, markers: ['a', 'b', 'c'] })).toString()).toBe(
      'domain_id=d1&limit=20&marker=c&before=a%2Cb',
    );
  });
});

describe('auditQuery', () => {
  it('asks for one more than a page after the last marker, within the API limit', () => {
    expect(auditQuery({ domainId: 'd1', pageSize: 50, markers: [] }).toString()).toBe('limit=51');
    expect(auditQuery({ domainId: 'd1', pageSize: 10, markers: ['m1', 'm2'] }).toString()).toBe('limit=11&marker=m2');
    expect(auditQuery({ domainId: 'd1', pageSize: MAX_LIMIT, markers: [] }).toString()).toBe(`limit=${MAX_LIMIT}`);
  });
});

describe('changeText', () => {
  it.each([
    [{ item: 'gigabytes_SSD', old: 100, new: 250.5 }, '100 → 250.5 GiB'],
    // The unit goes with the amount, never after "unlimited".
    [{ item: 'ram', old: 51200, new: -1 }, '51,200 MiB → unlimited'],
    [{ item: 'gigabytes_SSD', old: -1, new: 0.5 }, 'unlimited → 0.5 GiB'],
    [{ item: 'gigabytes_SSD', old: null, new: 20 }, '– → 20 GiB'],
    [{ item: 'cores', old: 8, new: 16 }, '8 → 16 cores'],
    [{ item: 'instances', old: null, new: 10 }, '– → 10'],
    [{ item: 'instances', old: 10, new: undefined }, '10 → –'],
    [{ item: null, old: null, new: null }, '–'],
    [{ item: 'ram' }, '–'],
  ])('%p reads %p', (entry, text) => {
    expect(changeText(entry)).toBe(text);
  });
});

describe('AuditBody', () => {
  it('reads an entry of a refused request (no item) and refuses one without an outcome', () => {
    const entry = { _id: 'a1', at: '2026-11-20T08:00:00Z', domain_id: 'd1', item: null, outcome: 'refused', status: 412 };
    expect(AuditBody.parse({ audit: [entry] }).audit[0]?.item).toBeNull();
    const { outcome: _, ...rest } = entry;
    expect(AuditBody.safeParse({ audit: [rest] }).success).toBe(false);
  });
});
