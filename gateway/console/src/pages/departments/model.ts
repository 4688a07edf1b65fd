/**
 * The departments page's data: what it reads from the API (docs/api/domain-quota.md C1, C3 and the registry), parsed
 * with zod, and the rows it shows. A cloud admin reads every department; a department admin (whose token may not read
 * the cloud's views) reads their own department only: C1 and its summed use, the regions and items being C1's.
 */
import { regionItems } from '@stratum/quota-items';
import { z } from 'zod';
import type { Api } from '../../api';
import { formatNumber, formatValue, headroom, subtract, UNLIMITED } from '../../format';

const Values = z.record(z.string(), z.number());
const RegionsBody = z.object({
  regions: z.array(z.object({ name: z.string(), volume_types: z.array(z.string()), products: z.array(z.string()) })),
});
const DomainsBody = z.object({ domains: z.array(z.object({ id: z.string(), name: z.string().optional() })) });
const CloudRegion = z.object({
  quotas: Values,
  allocated: Values,
  usage: Values.optional(),
  usage_collected_at: z.string().nullish(),
});
const CloudBody = z.object({ domain: z.record(z.string(), CloudRegion) });
const DepartmentRegion = z.object({ quotas: Values, usage: Values, limits: Values });
const DepartmentBody = z.object({ domain: z.record(z.string(), DepartmentRegion) });
/** A department's actual use per region: its projects' reports summed (registry `GET /usage?domain_id=`). */
const UsedRegion = z.object({
  collected_at: z.string(),
  values: Values,
  projects_reported: z.number(),
  projects: z.number(),
});
const UsedBody = z.object({ usage: z.record(z.string(), UsedRegion) });

/** A region and its items, in the catalogue's order. */
export interface Region {
  name: string;
  items: string[];
}
export type CloudView = z.infer<typeof CloudRegion>;
/** C1 of one region: `quotas`, `usage` (= allocated to its projects) and `limits`. */
export type DepartmentView = z.infer<typeof DepartmentRegion>;
export type UsedView = z.infer<typeof UsedRegion>;

/** A department as read: C1 per region with its ETag, and its summed use (`null` when it could not be read). */
export interface DepartmentData {
  id: string;
  name: string;
  views: Record<string, DepartmentView>;
  etag: string | undefined;
  used: Record<string, UsedView> | null;
}

/** Everything the page shows, for every region (switching region needs no new request). */
export interface PageData {
  regions: Region[];
  /** The cloud's view per region; undefined for a department admin (the cloud's views are a cloud admin's). */
  cloud: Record<string, CloudView> | undefined;
  departments: DepartmentData[];
}

/** A department as the page shows it in one region. */
export interface Department {
  id: string;
  name: string;
  view: DepartmentView | undefined;
  /** Its projects' summed use in this region; undefined when none reported, null when it could not be read. */
  used: UsedView | undefined | null;
  etag: string | undefined;
  /** The tightest item: lowest free ÷ quota. */
  tightest: { item: string; ratio: number } | undefined;
}

const enc = encodeURIComponent;

/** A department's C1 (with its ETag) and its summed use (null when that read is refused or fails). */
async function readDepartment(api: Api, id: string, name: string): Promise<DepartmentData> {
  const [c1, used] = await Promise.all([
    api.getWithEtag(`/v3/domain_quotas/${enc(id)}`, DepartmentBody),
    api.get(`/v3/domain_quota_registry/usage?domain_id=${enc(id)}`, UsedBody).then(
      (b) => b.usage,
      () => null,
    ),
  ]);
  return { id, name, views: c1.body.domain, etag: c1.etag, used };
}

/**
 * A cloud admin's view: the regions, the cloud's view (C3) and every department (C1 and its summed use).
 * @throws ApiError (403 for a token that is not a cloud admin's).
 */
export async function loadCloud(api: Api): Promise<PageData> {
  const [regions, domains, cloud] = await Promise.all([
    api.get('/v3/domain_quota_registry/regions', RegionsBody),
    api.get('/v3/domain_quota_registry/domains', DomainsBody),
    api.get('/v3/domain_usage', CloudBody),
  ]);
  const departments = await Promise.all(
    domains.domains.filter((d) => d.id !== 'default').map((d) => readDepartment(api, d.id, d.name ?? d.id)),
  );
  return {
    regions: regions.regions.map((r) => ({
      name: r.name,
      items: [...regionItems({ volumeTypes: r.volume_types, products: r.products }).keys()],
    })),
    cloud: cloud.domain,
    departments,
  };
}

/**
 * A department admin's view of their own department: its regions and items are those C1 answers with.
 * @throws ApiError (403 when the token may not read that department, 404 when it does not exist).
 */
export async function loadOwnDepartment(api: Api, domainId: string): Promise<PageData> {
  const d = await readDepartment(api, domainId, domainId);
  const regions = Object.entries(d.views)
    .map(([name, v]) => ({ name, items: Object.keys(v.quotas) }))
    .sort((a, b) => a.name.localeCompare(b.name));
  return { regions, cloud: undefined, departments: [d] };
}

/** A department's row in `region`, with its tightest item among `items` (free = quota − allocated). */
export function departmentIn(d: DepartmentData, region: string, items: readonly string[]): Department {
  const view = d.views[region];
  let tightest: Department['tightest'];
  if (view) {
    for (const item of items) {
      const q = view.quotas[item] ?? 0;
      // Unlimited has no limit to be near; a zero quota (an item the department was never given) is not "full".
      if (q === UNLIMITED || q <= 0) continue;
      const ratio = headroom(q, view.usage[item] ?? 0);
      if (tightest === undefined || ratio < tightest.ratio) tightest = { item, ratio };
    }
  }
  const used = d.used === null ? null : d.used[region];
  return { id: d.id, name: d.name, view, used, etag: d.etag, tightest };
}

/** Departments, least headroom first (unlimited everywhere last), then by name. */
export const byHeadroom = (departments: readonly Department[]): Department[] =>
  [...departments].sort((a, b) => (a.tightest?.ratio ?? 2) - (b.tightest?.ratio ?? 2) || a.name.localeCompare(b.name));

/** A department's numbers for one item in the region shown. */
export interface ItemNumbers {
  quota: number;
  /** What it has handed out to its projects (C1 `usage`). */
  allocated: number;
  /** Its projects' reported use summed; undefined when none reported or it could not be read. */
  used: number | undefined;
  /** quota − allocated, exact to three decimals (format.ts subtract); unlimited (-1) when the quota is. */
  free: number;
}

/** One item's numbers of a department (a value the API leaves out is 0; a reported department's unreported item is 0 used). */
export function itemNumbers(d: Pick<Department, 'view' | 'used'>, item: string): ItemNumbers {
  const quota = d.view?.quotas[item] ?? 0;
  const allocated = d.view?.usage[item] ?? 0;
  const used = d.used ? (d.used.values[item] ?? 0) : undefined;
  return { quota, allocated, used, free: subtract(quota, allocated) };
}

/** How an item's used reads: its number, "not reported" when none of the projects reported, "–" when unreadable. */
export const usedLabel = (d: Pick<Department, 'used'>, item: string): string =>
  d.used ? formatNumber(d.used.values[item] ?? 0) : d.used === null ? '–' : 'not reported';

/** `part` of `whole` in [0, 1]; a zero or negative whole is full when anything is held. */
export const shareOf = (part: number, whole: number): number => (whole <= 0 ? (part > 0 ? 1 : 0) : Math.min(1, Math.max(0, part / whole)));

/** The numbers of a quota bar, as written on it and read out ("used 17 · allocated 80 of 204 cores (39%)"). */
export function barText(item: string, quota: number, allocated: number, used: number | undefined): string {
  const usedText = used === undefined ? '' : `used ${formatNumber(used)} · `;
  if (quota === UNLIMITED) return `${usedText}allocated ${formatValue(item, allocated)} of unlimited`;
  return `${usedText}allocated ${formatNumber(allocated)} of ${formatValue(item, quota)} (${Math.round(shareOf(allocated, quota) * 100)}%)`;
}
