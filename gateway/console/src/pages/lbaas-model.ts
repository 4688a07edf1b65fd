/**
 * The load balancer quotas page's model (docs/api/lbaas-quota.md): the API's shapes (B1 list, B2/B3 single), the
 * list's page links, a limit as text and parsed from the edit field, and an error's text. Pure: no DOM, no `location`
 * (fast unit tests: lbaas-model.test.ts).
 */
import { LBAAS_IN_USE_NAME, LBAAS_RESOURCES, type LbaasResource, QuotaLimit } from '@stratum/quota-items';
import { z } from 'zod';
import { formatNumber } from '../format';
import { limitOf } from './paging';

export const PAGE_SIZES = [10, 20, 50, 100] as const;
export const DEFAULT_PAGE_SIZE = 20;

/** The rows per page a route asks for (`limit`, 1 to MAX_LIMIT), else the default. */
export const pageSizeOf = (route: URLSearchParams): number => limitOf(route, DEFAULT_PAGE_SIZE);

/**
 * The B1 list query of a route: `limit` (pageSizeOf), and `project_id` or `marker` with `page_reverse` (Octavia's
 * spelling `True`); a search by project id ignores the marker.
 */
export function listQuery(route: URLSearchParams): URLSearchParams {
  const q = new URLSearchParams({ limit: String(pageSizeOf(route)) });
  const project = route.get('project_id')?.trim();
  if (project) q.set('project_id', project);
  const marker = route.get('marker');
  if (marker && !project) {
    q.set('marker', marker);
    if (route.get('page_reverse') === 'true') q.set('page_reverse', 'True');
  }
  return q;
}

const limits = <T extends z.ZodType>(schema: T) =>
  z.object(Object.fromEntries(LBAAS_RESOURCES.map((r) => [r, schema])) as Record<LbaasResource, T>);

/** `{"quota": {…}}` of B2, B3 and PUT: effective limits (null resolved to the default). */
export const SingleQuota = z.object({ quota: limits(QuotaLimit).partial() });
/** A B1 list item: stored limits (null = the default) and in_use counts (`in_use_<resource>`). */
export const ListItem = limits(QuotaLimit.nullable()).partial().extend({ project_id: z.string() }).catchall(z.unknown());
export const QuotaList = z.object({
  quotas: z.array(ListItem),
  quotas_links: z.array(z.object({ href: z.string(), rel: z.string() })).default([]),
});

export type Limits = Partial<Record<LbaasResource, number>>;
export type Item = z.infer<typeof ListItem>;
/** Where a page link leads: the list query it carries. */
export interface PageLink {
  marker: string;
  reverse: boolean;
}
/** A write waiting for the operator's confirmation. */
export type Pending = { kind: 'save'; changes: Partial<Record<LbaasResource, number | null>> } | { kind: 'reset'; force: boolean };

/** -1 reads "unlimited"; null/undefined "default". */
export function limitText(v: number | null | undefined, dflt?: number): string {
  if (v === null || v === undefined) return dflt === undefined ? 'default' : `default (${limitText(dflt)})`;
  return formatNumber(v);
}

export const inUseOf = (item: Item | undefined, r: LbaasResource): number | undefined => {
  const v = item?.[LBAAS_IN_USE_NAME[r]];
  return typeof v === 'number' ? v : undefined;
};

/** A page link's marker and direction, read from its href (any origin: only the query matters). */
export function pageLink(links: { href: string; rel: string }[], rel: 'next' | 'previous'): PageLink | undefined {
  const link = links.find((l) => l.rel === rel);
  if (!link) return undefined;
  // A relative href resolves against any base; the placeholder only makes it a URL.
  const q = new URL(link.href, 'http://localhost/').searchParams;
  const marker = q.get('marker');
  if (!marker) return undefined;
  return { marker, reverse: /^(1|t|true|y|yes|on)$/i.test(q.get('page_reverse') ?? '') };
}

/** Parses the edit field of one resource: '' = default (null); else an integer in [-1, 2000000000]. */
export function parseLimit(raw: string): { ok: true; value: number | null } | { ok: false; error: string } {
  const t = raw.trim().toLowerCase();
  if (t === '') return { ok: true, value: null };
  if (t === 'unlimited') return { ok: true, value: -1 };
  if (!/^-?\d+$/.test(t)) return { ok: false, error: 'a whole number, -1 for unlimited, or empty for the default' };
  const n = Number(t);
  const r = QuotaLimit.safeParse(n);
  return r.success ? { ok: true, value: n } : { ok: false, error: 'between -1 (unlimited) and 2000000000' };
}

/** The edit fields of a stored record: each stored limit as text, '' where the default applies. */
export function draftOf(item: Item | undefined): Partial<Record<LbaasResource, string>> {
  return Object.fromEntries(
    LBAAS_RESOURCES.map((r) => {
      const stored = item ? item[r] : null;
      return [r, stored === null || stored === undefined ? '' : String(stored)];
    }),
  );
}

/** The edit fields checked against the stored record: each field's error, and the limits that differ (null = default). */
export function changesOf(
  draft: Partial<Record<LbaasResource, string>>,
  item: Item | undefined,
): { errors: Partial<Record<LbaasResource, string>>; changes: Partial<Record<LbaasResource, number | null>> } {
  const errors: Partial<Record<LbaasResource, string>> = {};
  const changes: Partial<Record<LbaasResource, number | null>> = {};
  for (const r of LBAAS_RESOURCES) {
    const parsed = parseLimit(draft[r] ?? '');
    if (!parsed.ok) {
      errors[r] = parsed.error;
      continue;
    }
    const before = item ? (item[r] ?? null) : null;
    if (parsed.value !== before) changes[r] = parsed.value;
  }
  return { errors, changes };
}
