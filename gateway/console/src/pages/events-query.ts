/**
 * The events page's model (docs/api/events.md): the API's event shape, the search the URL holds
 * (`#/events?resource_id=…&event_type=…&project_id=…&start=…&end=…&all_tenants=…&order=…`), its Panko simple query
 * (A3 `q.field/q.op/q.value`), and times as shown. Pure: no DOM, no `location` (the page passes the route's query in),
 * so it has fast unit tests (events-query.test.ts).
 */
import { EventSchema as WireEventSchema } from '@stratum/traits';
import { z } from 'zod';
import { lookAhead } from './paging';

export const EVENTS_PATH = '/v2/events';
export const EVENT_TYPES_PATH = '/v2/event_types';
// Panko's default page: one instance's life (create to delete) fits in it.
export const PAGE_SIZE = 100;
/**
 * What the page asks for: one more than it shows, so that the extra row tells whether a next page exists (a page of
 * exactly PAGE_SIZE rows is then not followed by an empty one; paging.ts). (A3 also sends `Link: rel="next"`, but
 * the console's Api client reads bodies only.)
 */
export const FETCH_LIMIT = lookAhead(PAGE_SIZE);

/** An event as Panko v2 serves it: the services' own EventSchema (@stratum/traits), `raw` allowed to be left out. */
export const EventSchema = WireEventSchema.partial({ raw: true });
export type StoredEvent = z.infer<typeof EventSchema>;
export const EventList = z.array(EventSchema);
export const EventTypes = z.array(z.string());

/** The search fields kept in the URL, in the order they appear in the form. */
export const FIELDS = ['resource_id', 'event_type', 'project_id', 'start', 'end'] as const;
export type Field = (typeof FIELDS)[number];
export type Search = Record<Field, string> & { all_tenants: boolean; order: 'asc' | 'desc' };
/** What the URL says about the order: nothing (a timeline oldest first, any other search newest first) or a choice. */
export type OrderChoice = '' | 'asc' | 'desc';

/** One A3 filter: `q.field`, `q.op`, `q.value` go positionally, so each filter gives all three. */
export interface QFilter {
  field: string;
  op: 'eq' | 'ge' | 'le';
  value: string;
}

/** The A3 filters of a search; every one is AND-ed with the caller's visibility (it narrows, never widens). */
export function filtersOf(s: Search, isAdmin: boolean): QFilter[] {
  const q: QFilter[] = [];
  if (s.resource_id) q.push({ field: 'resource_id', op: 'eq', value: s.resource_id });
  if (s.event_type) q.push({ field: 'event_type', op: 'eq', value: s.event_type });
  if (s.project_id) q.push({ field: 'project_id', op: 'eq', value: s.project_id });
  if (s.start) q.push({ field: 'start_timestamp', op: 'ge', value: s.start });
  if (s.end) q.push({ field: 'end_timestamp', op: 'le', value: s.end });
  // For anyone but a cloud admin `all_tenants` is an ordinary trait name and would match nothing: never send it then.
  if (isAdmin && s.all_tenants) q.push({ field: 'all_tenants', op: 'eq', value: 'true' });
  return q;
}

/** The A3 query string of a search page. */
export function eventsQuery(s: Search, isAdmin: boolean, marker?: string): string {
  const p = new URLSearchParams();
  for (const f of filtersOf(s, isAdmin)) {
    p.append('q.field', f.field);
    p.append('q.op', f.op);
    p.append('q.value', f.value);
  }
  p.set('sort', `generated:${s.order}`);
  p.set('limit', String(FETCH_LIMIT));
  if (marker) p.set('marker', marker);
  return p.toString();
}

/**
 * The search a route's query holds (`routeParams()` of app.ts). A resource's timeline reads oldest first; any other
 * search newest first. Unknown keys are ignored, values trimmed; only a cloud admin's search can have all_tenants.
 */
export function searchFromRoute(p: URLSearchParams, isAdmin: boolean): Search {
  const get = (k: string) => p.get(k)?.trim() ?? '';
  const s = Object.fromEntries(FIELDS.map((f) => [f, get(f)])) as Record<Field, string>;
  const choice = orderChoice(get('order'));
  const order = choice || (s.resource_id ? 'asc' : 'desc');
  // Cloud admins see every project unless the link says otherwise.
  const all = get('all_tenants');
  return { ...s, order, all_tenants: isAdmin && all !== '0' && all !== 'false' };
}

/**
 * The route state of a search (for setRouteParams: undefined = left out), the inverse of searchFromRoute: empty fields
 * and the default order are left out; a cloud admin's search of their own project only says `all_tenants=0`.
 */
export function routeStateOf(
  s: Partial<Record<Field, string>> & { all_tenants: boolean; order?: OrderChoice },
  isAdmin: boolean,
): Record<string, string | undefined> {
  const state: Record<string, string | undefined> = {};
  for (const f of FIELDS) state[f] = s[f] || undefined;
  if (isAdmin && !s.all_tenants) state.all_tenants = '0';
  state.order = s.order || undefined;
  return state;
}

export const orderChoice = (v: string): OrderChoice => (v === 'asc' || v === 'desc' ? v : '');

export const traitValue = (e: StoredEvent, name: string): string | undefined => e.traits.find((t) => t.name === name)?.value;

/** `2026-11-20T08:15:01.000000` (naive UTC) → `2026-11-20 08:15:01.000 UTC`. */
export function timeText(generated: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?/.exec(generated);
  if (!m) return generated;
  return `${m[1]} ${m[2]}${m[3] ? `.${m[3].slice(0, 3).padEnd(3, '0')}` : ''} UTC`;
}

/** A datetime-local value (`YYYY-MM-DDThh:mm[:ss]`) or ISO text, as the input's value (seconds kept). */
export function inputTime(v: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2})?)/.exec(v);
  return m ? `${m[1]}T${m[2]}` : '';
}
