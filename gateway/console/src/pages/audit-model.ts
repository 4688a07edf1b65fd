/**
 * The audit page's model (docs/api/domain-quota.md "Audit log"): the API's entry shape, the pager state the route
 * holds (`#/audit?domain_id=…&limit=…&marker=…&before=…`) and an entry's change as text. Pure: no DOM, no `location`
 * (fast unit tests: audit-model.test.ts).
 */
import { z } from 'zod';
import { formatNumber, formatValue, UNLIMITED, unitOf } from '../format';
import { limitOf, lookAhead } from './paging';

/** Entries per page when the route does not say. */
export const DEFAULT_PAGE = 50;

/** The page size a route asks for (`limit`, 1 to MAX_LIMIT as the API takes), else the default. */
export const pageSizeOf = (route: URLSearchParams): number => limitOf(route, DEFAULT_PAGE);

export const Entry = z.object({
  _id: z.string(),
  at: z.string(),
  request_id: z.string().nullish(),
  user_id: z.string().nullish(),
  domain_id: z.string(),
  project_id: z.string().nullish(),
  region: z.string().nullish(),
  // null when a whole request was refused (a 412, a malformed body), not one item.
  item: z.string().nullish(),
  old: z.number().nullish(),
  new: z.number().nullish(),
  outcome: z.string(),
  status: z.number().nullish(),
  reason: z.string().nullish(),
  message: z.string().nullish(),
});
export const AuditBody = z.object({ audit: z.array(Entry) });
export type Entry = z.infer<typeof Entry>;

/** Where the pager stands: the department, the page size, and the markers of the pages before the current one. */
export interface Pager {
  domainId: string;
  pageSize: number;
  /** Markers of the pages before the current one, oldest page first; the last is the current page's marker. */
  markers: string[];
}

/**
 * The pager a route holds. The API pages forward only (marker = the last entry of the page before), so a link keeps
 * the markers of the pages before the current one too (`before`, comma-separated), for Newer to step back from it.
 */
export function pagerOf(route: URLSearchParams): Pager {
  const marker = route.get('marker');
  const before = (route.get('before') ?? '').split(',').filter((m) => m !== '');
  return { domainId: route.get('domain_id') ?? '', pageSize: pageSizeOf(route), markers: marker ? [...before, marker] : [] };
}

/** The route state of a pager (for setRouteParams: undefined = left out), the inverse of pagerOf. */
export function routeStateOf(p: Pager): Record<string, string | undefined> {
  return {
    domain_id: p.domainId,
    limit: p.pageSize === DEFAULT_PAGE ? undefined : String(p.pageSize),
    marker: p.markers.at(-1),
    before: p.markers.slice(0, -1).join(',') || undefined,
  };
}

/**
 * The API query of the pager's current page: `marker` after the first page, and `limit` one more than a page
 * (paging.ts lookAhead), so that pageOf tells whether an older page exists without asking for it.
 */
export function auditQuery(p: Pager): URLSearchParams {
  const q = new URLSearchParams({ limit: String(lookAhead(p.pageSize)) });
  const marker = p.markers.at(-1);
  if (marker) q.set('marker', marker);
  return q;
}

/**
 * An entry's change: `old → new` with the item's unit once when both are amounts ("10 → 20 GiB"), else on each amount
 * ("51,200 MiB → unlimited"); '–' when neither is known.
 */
export function changeText(e: Pick<Entry, 'item' | 'old' | 'new'>): string {
  if (e.old == null && e.new == null) return '–';
  const item = e.item ?? '';
  const [old, now] = [e.old ?? undefined, e.new ?? undefined];
  if (old === undefined || now === undefined || old === UNLIMITED || now === UNLIMITED) {
    return `${formatValue(item, old)} → ${formatValue(item, now)}`;
  }
  const unit = unitOf(item);
  return `${formatNumber(old)} → ${formatNumber(now)}${unit ? ` ${unit}` : ''}`;
}
