/**
 * The load balancer quotas page's model (lbaas-model.ts, docs/api/lbaas-quota.md): the page size and list query of a
 * route, the list's page links, limits as text, and the edit fields parsed and checked (-1 to 2,000,000,000).
 */
import { LBAAS_RESOURCES } from '@stratum/quota-items';
import {
  changesOf,
  DEFAULT_PAGE_SIZE,
  draftOf,
  type Item,
  inUseOf,
  limitText,
  listQuery,
  pageLink,
  pageSizeOf,
  parseLimit,
  QuotaList,
} from './lbaas-model';

const route = (q: string) => new URLSearchParams(q);

describe('pageSizeOf', () => {
  it.each([
    ['', DEFAULT_PAGE_SIZE],
    ['limit=10', 10],
    ['limit=1', 1],
    ['limit=1000', 1000],
    ['limit=1001', DEFAULT_PAGE_SIZE],
    ['limit=0', DEFAULT_PAGE_SIZE],
    ['limit=-1', DEFAULT_PAGE_SIZE],
    ['limit=2.5', DEFAULT_PAGE_SIZE],
    ['limit=abc', DEFAULT_PAGE_SIZE],
    ['limit=', DEFAULT_PAGE_SIZE],
  ])('%p gives %p rows', (q, n) => {
    expect(pageSizeOf(route(q))).toBe(n);
  });
});

describe('listQuery', () => {
  it('asks for the first page at the page size', () => {
    expect(listQuery(route('')).toString()).toBe('limit=20');
    expect(listQuery(route('limit=50')).toString()).toBe('limit=50');
  });

  it("pages with the marker, backwards in Octavia's spelling", () => {
    expect(listQuery(route('marker=p20&limit=10')).toString()).toBe('limit=10&marker=p20');
    expect(listQuery(route('marker=p20&page_reverse=true')).toString()).toBe('limit=20&marker=p20&page_reverse=True');
    // Only the console's own spelling turns paging back.
    expect(listQuery(route('marker=p20&page_reverse=1')).get('page_reverse')).toBeNull();
  });

  it('searches by project id, ignoring a marker', () => {
    expect(listQuery(route('project_id=%20p1%20&marker=p20&page_reverse=true')).toString()).toBe('limit=20&project_id=p1');
    expect(listQuery(route('project_id=%20%20&marker=p20')).toString()).toBe('limit=20&marker=p20');
  });

  it('sends nothing else from the route', () => {
    expect([...listQuery(route('token=abc&x=1&limit=10')).keys()]).toEqual(['limit']);
  });
});

describe('pageLink', () => {
  const links = [
    { rel: 'next', href: 'https://lb.example/v2.0/lbaas/quotas?limit=10&marker=p10' },
    { rel: 'previous', href: '/v2.0/lbaas/quotas?limit=10&marker=p01&page_reverse=True' },
  ];

  it("reads a link's marker and direction, from an absolute or a relative href", () => {
    expect(pageLink(links, 'next')).toEqual({ marker: 'p10', reverse: false });
    expect(pageLink(links, 'previous')).toEqual({ marker: 'p01', reverse: true });
  });

  it.each(['1', 't', 'true', 'y', 'yes', 'on', 'TRUE', 'True'])('reads page_reverse=%p as backwards', (v) => {
    expect(pageLink([{ rel: 'next', href: `?marker=m&page_reverse=${v}` }], 'next')?.reverse).toBe(true);
  });

  it.each(['0', 'false', 'no', '', 'truthy'])('reads page_reverse=%p as forwards', (v) => {
    expect(pageLink([{ rel: 'next', href: `?marker=m&page_reverse=${v}` }], 'next')?.reverse).toBe(false);
  });

  it('gives nothing without the link or without a marker in it', () => {
    expect(pageLink([], 'next')).toBeUndefined();
    expect(pageLink(links.slice(0, 1), 'previous')).toBeUndefined();
    expect(pageLink([{ rel: 'next', href: '/v2.0/lbaas/quotas?limit=10' }], 'next')).toBeUndefined();
    expect(pageLink([{ rel: 'next', href: '/v2.0/lbaas/quotas?marker=' }], 'next')).toBeUndefined();
  });
});

describe('QuotaList', () => {
  it('reads a B1 page, links defaulting to none', () => {
    const body = { quotas: [{ project_id: 'p1', load_balancer: 5, listener: null, in_use_load_balancer: 2 }] };
    const list = QuotaList.parse(body);
    expect(list.quotas_links).toEqual([]);
    expect(list.quotas[0]?.load_balancer).toBe(5);
    expect(inUseOf(list.quotas[0], 'load_balancer')).toBe(2);
    expect(inUseOf(list.quotas[0], 'listener')).toBeUndefined();
    expect(inUseOf(undefined, 'listener')).toBeUndefined();
  });

  it('refuses a limit that is not an integer from -1 to 2,000,000,000', () => {
    expect(QuotaList.safeParse({ quotas: [{ project_id: 'p1', member: 1.5 }] }).success).toBe(false);
    expect(QuotaList.safeParse({ quotas: [{ project_id: 'p1', member: -2 }] }).success).toBe(false);
    expect(QuotaList.safeParse({ quotas: [{ member: 1 }] }).success).toBe(false);
  });
});

describe('limitText', () => {
  it.each([
    [-1, undefined, 'unlimited'],
    [0, undefined, '0'],
    [2000000000, undefined, '2,000,000,000'],
    [null, undefined, 'default'],
    [undefined, undefined, 'default'],
    [null, 10, 'default (10)'],
    [undefined, -1, 'default (unlimited)'],
    [1500, 10, '1,500'],
  ])('%p (default %p) reads %p', (v, dflt, text) => {
    expect(limitText(v, dflt)).toBe(text);
  });
});

describe('parseLimit', () => {
  it.each([
    ['', null],
    ['   ', null],
    ['-1', -1],
    ['unlimited', -1],
    [' Unlimited ', -1],
    ['0', 0],
    ['7', 7],
    [' 42 ', 42],
    ['007', 7],
    ['2000000000', 2000000000],
  ])('%p is %p', (raw, value) => {
    expect(parseLimit(raw)).toEqual({ ok: true, value });
  });

  it.each(['1.5', '1e3', '0x10', '+5', '1,000', 'ten', '--1', '5 6', 'Infinity', 'NaN'])('%p is not a whole number', (raw) => {
    expect(parseLimit(raw)).toEqual({ ok: false, error: 'a whole number, -1 for unlimited, or empty for the default' });
  });

  it.each(['-2', '-100', '2000000001', '99999999999999999999'])('%p is out of range', (raw) => {
    expect(parseLimit(raw)).toEqual({ ok: false, error: 'between -1 (unlimited) and 2000000000' });
  });
});

describe('draftOf and changesOf', () => {
  const item: Item = { project_id: 'p1', load_balancer: 5, listener: -1, member: null, in_use_load_balancer: 3 };

  it('gives every resource a field: the stored limit, empty for the default', () => {
    const draft = draftOf(item);
    expect(Object.keys(draft)).toEqual([...LBAAS_RESOURCES]);
    expect(draft.load_balancer).toBe('5');
    expect(draft.listener).toBe('-1');
    expect(draft.member).toBe('');
    expect(draft.pool).toBe('');
    expect(Object.values(draftOf(undefined)).every((v) => v === '')).toBe(true);
  });

  it('finds no change in the draft of the stored record', () => {
    expect(changesOf(draftOf(item), item)).toEqual({ errors: {}, changes: {} });
    expect(changesOf(draftOf(undefined), undefined)).toEqual({ errors: {}, changes: {} });
  });

  it('gives the limits that differ, an emptied field as null (back to the default)', () => {
    const draft = { ...draftOf(item), load_balancer: '', listener: 'unlimited', member: '0', pool: '2000000000' };
    expect(changesOf(draft, item)).toEqual({ errors: {}, changes: { load_balancer: null, member: 0, pool: 2000000000 } });
  });

  it('gives each bad field its error and leaves it out of the changes', () => {
    const draft = { ...draftOf(item), load_balancer: '1.5', member: '-2', pool: '8' };
    const { errors, changes } = changesOf(draft, item);
    expect(errors).toEqual({
      load_balancer: 'a whole number, -1 for unlimited, or empty for the default',
      member: 'between -1 (unlimited) and 2000000000',
    });
    expect(changes).toEqual({ pool: 8 });
  });

  it('compares a new project with the defaults (nothing stored)', () => {
    expect(changesOf({ load_balancer: '-1' }, undefined)).toEqual({ errors: {}, changes: { load_balancer: -1 } });
  });
});
