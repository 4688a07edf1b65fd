/**
 * The events page's search (events-query.ts): the route's query ↔ the search ↔ the A3 query
 * (docs/api/events.md), paging by one extra row, and times as shown.
 */
import {
  EventSchema,
  eventsQuery,
  FETCH_LIMIT,
  filtersOf,
  inputTime,
  orderChoice,
  PAGE_SIZE,
  routeStateOf,
  type Search,
  searchFromRoute,
  timeText,
  traitValue,
} from './events-query';

/** The route's query of a state as setRouteParams writes it (undefined and '' left out). */
function routeOf(state: Record<string, string | undefined>): URLSearchParams {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(state)) if (v !== undefined && v !== '') q.append(k, v);
  return q;
}

/** The A3 filters of a query string, as [field, op, value] (positional). */
function filtersIn(query: string): string[][] {
  const p = new URLSearchParams(query);
  const fields = p.getAll('q.field');
  const ops = p.getAll('q.op');
  const values = p.getAll('q.value');
  expect(ops).toHaveLength(fields.length);
  expect(values).toHaveLength(fields.length);
  return fields.map((f, i) => [f, ops[i] ?? '', values[i] ?? '']);
}

const none: Search = { resource_id: '', event_type: '', project_id: '', start: '', end: '', all_tenants: false, order: 'desc' };

describe('searchFromRoute', () => {
  it('reads an empty route as every visible event, newest first', () => {
    expect(searchFromRoute(new URLSearchParams(), false)).toEqual(none);
    expect(searchFromRoute(new URLSearchParams(), true)).toEqual({ ...none, all_tenants: true });
  });

  it('reads every field, trimmed, and ignores unknown keys', () => {
    const route = new URLSearchParams(
      'resource_id=%20inst-1%20&event_type=compute.instance.create.end&project_id=p1&start=2026-11-20T08:00&end=2026-11-21T00:00:00&x=1',
    );
    expect(searchFromRoute(route, false)).toEqual({
      resource_id: 'inst-1',
      event_type: 'compute.instance.create.end',
      project_id: 'p1',
      start: '2026-11-20T08:00',
      end: '2026-11-21T00:00:00',
      all_tenants: false,
      order: 'asc',
    });
  });

  it("orders a resource's timeline oldest first and any other search newest first, unless the route says", () => {
    expect(searchFromRoute(new URLSearchParams('resource_id=r'), false).order).toBe('asc');
    expect(searchFromRoute(new URLSearchParams('event_type=t'), false).order).toBe('desc');
    expect(searchFromRoute(new URLSearchParams('resource_id=r&order=desc'), false).order).toBe('desc');
    expect(searchFromRoute(new URLSearchParams('order=asc'), false).order).toBe('asc');
    // An order that is neither falls back to the default.
    expect(searchFromRoute(new URLSearchParams('resource_id=r&order=sideways'), false).order).toBe('asc');
    expect(searchFromRoute(new URLSearchParams('order=DESC'), false).order).toBe('desc');
  });

  it('gives all_tenants to a cloud admin unless the route says 0 or false, and never to anyone else', () => {
    expect(searchFromRoute(new URLSearchParams('all_tenants=0'), true).all_tenants).toBe(false);
    expect(searchFromRoute(new URLSearchParams('all_tenants=false'), true).all_tenants).toBe(false);
    expect(searchFromRoute(new URLSearchParams('all_tenants=1'), true).all_tenants).toBe(true);
    expect(searchFromRoute(new URLSearchParams('all_tenants=1'), false).all_tenants).toBe(false);
    expect(searchFromRoute(new URLSearchParams('all_tenants=true'), false).all_tenants).toBe(false);
  });
});

describe('routeStateOf ↔ searchFromRoute', () => {
  const searches: Array<[string, Search, boolean]> = [
    ['nothing (user)', none, false],
    ['nothing (admin, all projects)', { ...none, all_tenants: true }, true],
    ['own project only (admin)', { ...none, all_tenants: false }, true],
    [
      'every field',
      {
        resource_id: 'inst 1/ä&x=y',
        event_type: 'compute.instance.*',
        project_id: 'p#1',
        start: '2026-11-20T08:00',
        end: '2026-11-20T09:00:30',
        all_tenants: false,
        order: 'asc',
      },
      false,
    ],
    ['a timeline newest first', { ...none, resource_id: 'r1', order: 'desc' }, false],
  ];

  it.each(searches)('round-trips %s through the URL', (_name, s, isAdmin) => {
    const state = routeStateOf(s, isAdmin);
    const route = routeOf(state);
    // Through the hash's text too, as a shared link carries it.
    const reread = searchFromRoute(new URLSearchParams(route.toString()), isAdmin);
    expect(reread).toEqual(s);
    expect(eventsQuery(reread, isAdmin)).toBe(eventsQuery(s, isAdmin));
  });

  it('leaves empty fields and the default order out of the URL', () => {
    expect(routeOf(routeStateOf({ all_tenants: true }, true)).toString()).toBe('');
    expect(routeOf(routeStateOf({ all_tenants: false }, false)).toString()).toBe('');
    expect(routeOf(routeStateOf({ all_tenants: false }, true)).toString()).toBe('all_tenants=0');
    expect(routeOf(routeStateOf({ event_type: 'a.b', all_tenants: true, order: 'asc' }, true)).toString()).toBe('event_type=a.b&order=asc');
  });

  it('puts nothing but the search in the URL (never a token)', () => {
    const state = routeStateOf({ ...none, resource_id: 'r', event_type: 't', project_id: 'p', start: 's', end: 'e', order: 'asc' }, true);
    expect(Object.keys(state).sort()).toEqual(['all_tenants', 'end', 'event_type', 'order', 'project_id', 'resource_id', 'start']);
    const text = `${routeOf(state)}&${eventsQuery(searchFromRoute(routeOf(state), true), true, 'm1')}`.toLowerCase();
    expect(text).not.toMatch(/token|auth/);
  });
});

describe('eventsQuery', () => {
  it('asks for one more event than a page shows, newest first by default', () => {
    const p = new URLSearchParams(eventsQuery(none, false));
    expect(FETCH_LIMIT).toBe(PAGE_SIZE + 1);
    expect(p.get('limit')).toBe('101');
    expect(p.get('sort')).toBe('generated:desc');
    expect(p.has('marker')).toBe(false);
    expect(p.getAll('q.field')).toEqual([]);
  });

  it("stays within A3's limit (1 to 1000, docs/api/events.md)", () => {
    expect(FETCH_LIMIT).toBeGreaterThanOrEqual(1);
    expect(FETCH_LIMIT).toBeLessThanOrEqual(1000);
  });

  it('gives each filter all three positional members, in order', () => {
    const s: Search = {
      resource_id: 'r1',
      event_type: 'e.t',
      project_id: 'p1',
      start: '2026-11-20T08:00',
      end: '2026-11-20T09:00',
      all_tenants: true,
      order: 'asc',
    };
    const query = eventsQuery(s, true, 'msg-100');
    expect(filtersIn(query)).toEqual([
      ['resource_id', 'eq', 'r1'],
      ['event_type', 'eq', 'e.t'],
      ['project_id', 'eq', 'p1'],
      ['start_timestamp', 'ge', '2026-11-20T08:00'],
      ['end_timestamp', 'le', '2026-11-20T09:00'],
      ['all_tenants', 'eq', 'true'],
    ]);
    const p = new URLSearchParams(query);
    expect(p.get('sort')).toBe('generated:asc');
    expect(p.get('marker')).toBe('msg-100');
  });

  it('never sends all_tenants for anyone but a cloud admin (it would be a trait filter matching nothing)', () => {
    expect(filtersOf({ ...none, all_tenants: true }, false)).toEqual([]);
    expect(filtersOf({ ...none, all_tenants: true }, true)).toEqual([{ field: 'all_tenants', op: 'eq', value: 'true' }]);
    expect(filtersOf({ ...none, all_tenants: false }, true)).toEqual([]);
  });

  it('encodes values that look like query syntax as values', () => {
    const query = eventsQuery({ ...none, resource_id: 'a&limit=1&q.field=x' }, false);
    expect(filtersIn(query)).toEqual([['resource_id', 'eq', 'a&limit=1&q.field=x']]);
    expect(new URLSearchParams(query).getAll('limit')).toEqual(['101']);
  });
});

describe('orderChoice', () => {
  it('takes asc or desc only', () => {
    expect(orderChoice('asc')).toBe('asc');
    expect(orderChoice('desc')).toBe('desc');
    expect(orderChoice('')).toBe('');
    expect(orderChoice('ASC')).toBe('');
    expect(orderChoice('generated:asc')).toBe('');
  });
});

describe('timeText', () => {
  it.each([
    ['2026-11-20T08:15:01.000000', '2026-11-20 08:15:01.000 UTC'],
    ['2026-11-20T08:15:01.123456', '2026-11-20 08:15:01.123 UTC'],
    ['2026-11-20T08:15:01.5', '2026-11-20 08:15:01.500 UTC'],
    ['2026-11-20 08:15:01', '2026-11-20 08:15:01 UTC'],
    ['yesterday', 'yesterday'],
    ['', ''],
  ])('%p reads %p', (generated, text) => {
    expect(timeText(generated)).toBe(text);
  });
});

describe('inputTime', () => {
  it.each([
    ['2026-11-20T08:15', '2026-11-20T08:15'],
    ['2026-11-20T08:15:30', '2026-11-20T08:15:30'],
    ['2026-11-20 08:15:30.123456', '2026-11-20T08:15:30'],
    ['2026-11-20', ''],
    ['not a time', ''],
    ['', ''],
  ])('%p is the input value %p', (v, text) => {
    expect(inputTime(v)).toBe(text);
  });
});

describe('EventSchema and traitValue', () => {
  const event = {
    message_id: 'm1',
    event_type: 'compute.instance.create.end',
    generated: '2026-11-20T08:15:01.000000',
    traits: [
      { name: 'resource_id', type: 'String', value: 'inst-1' },
      { name: 'project_id', type: 'String', value: 'p1' },
    ],
  };

  it('accepts an event without raw, and reads a trait by name', () => {
    const e = EventSchema.parse(event);
    expect(traitValue(e, 'resource_id')).toBe('inst-1');
    expect(traitValue(e, 'project_id')).toBe('p1');
    expect(traitValue(e, 'user_id')).toBeUndefined();
  });

  it('refuses an event without its id', () => {
    const { message_id: _, ...rest } = event;
    expect(EventSchema.safeParse(rest).success).toBe(false);
  });
});
