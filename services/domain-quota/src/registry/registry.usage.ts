/**
 * Actual usage reports, as pure rules shared by the region reports (`PUT /usage/{region}`) and the per-project reports
 * (`PUT /projects/{project_id}/usage/{region}`) of the registry (docs/api/domain-quota.md "Registry"): a report's values
 * are checked against the region's catalogue and kept as integer milli-units (@stratum/quota-items), and a
 * department's actual use is the sum of its projects' reports, with the oldest report's time (docs/decisions.md,
 * "Department actual use").
 */
import { canonicalItemName, fromMilli, type ItemSpec, regionItems, toMilli } from '@stratum/quota-items';
import type { Values } from '../domain-quotas/domain-quotas.repository';
import { type QuotaErrorDetail, usageItemsNotAcceptable } from '../errors';
import type { RegionDoc } from './registry.repository';

/** The items a stored region offers now (its volume types and installed products). */
export const regionItemsOf = (r: RegionDoc): ReadonlyMap<string, ItemSpec> =>
  regionItems({ volumeTypes: r.volume_types, products: r.products });

/** One stored report: values in milli-units, `collected_at` an ISO-8601 time in UTC. */
export interface UsageReport {
  collected_at: string;
  values: Values;
}

/**
 * A report's wire values → milli-units under their output spelling (`networks` → `network`).
 * @param given item → value as the client sent it (own members only: `__proto__` is an unknown item like any other).
 * @returns the values, or every problem as a QuotaErrorDetail (`unknown_item`, `not_a_number`, `out_of_range` —
 *   -1 is not a usage —, `too_many_decimals`).
 */
export function usageValuesOf(
  region: string,
  items: ReadonlyMap<string, ItemSpec>,
  given: Record<string, unknown>,
): { ok: true; values: Values } | { ok: false; details: QuotaErrorDetail[] } {
  const details: QuotaErrorDetail[] = [];
  const values: Values = {};
  for (const [name, value] of Object.entries(given)) {
    const item = canonicalItemName(name);
    const spec = items.get(item);
    if (!spec) {
      details.push({ region, item: name, reason: 'unknown_item' });
      continue;
    }
    const m = toMilli(value, spec);
    if (!m.ok || value === -1) details.push({ region, item: name, requested: value, reason: m.ok ? 'out_of_range' : m.reason });
    else values[item] = m.milli;
  }
  return details.length > 0 ? { ok: false, details } : { ok: true, values };
}

/**
 * A report sent for `region` (a region report or a project's), checked against its catalogue: what to store (milli-units,
 * `collected_at` as ISO-8601 UTC, now when not given) and what to answer (wire values).
 * @throws AppError 400 listing every unknown item or bad value (-1 is not a usage).
 */
export function checkedReport(
  region: RegionDoc,
  next: { collected_at?: string; values: Record<string, unknown> },
): { report: UsageReport; view: { collected_at: string; values: Record<string, number> } } {
  const checked = usageValuesOf(region._id, regionItemsOf(region), next.values);
  if (!checked.ok) throw usageItemsNotAcceptable(region._id, checked.details);
  const collectedAt = new Date(next.collected_at ?? Date.now()).toISOString();
  return {
    report: { collected_at: collectedAt, values: checked.values },
    view: { collected_at: collectedAt, values: wireValues(checked.values) },
  };
}

/** Milli-units → wire values of the given items only. */
export const wireValues = (values: Values): Record<string, number> =>
  Object.fromEntries(Object.entries(values).map(([k, v]) => [k, fromMilli(v)]));

/** Every item of a region in wire units: the stored value, 0 for an item not reported (one no longer offered is left out). */
export function regionValues(items: Iterable<string>, values: Values | undefined): Record<string, number> {
  return Object.fromEntries([...items].map((i) => [i, fromMilli(values && Object.hasOwn(values, i) ? (values[i] as number) : 0)]));
}

/** The sum of reports of one region (each item in milli-units, exact), with the oldest report's time. */
export interface SummedUsage {
  collected_at: string;
  values: Values;
  /** How many reports were summed. */
  reports: number;
}

/**
 * Sums reports item by item over `items` (the region's catalogue now; items it no longer offers are left out, and
 * an item no report names counts 0). Times are compared as instants (Date.parse), not as text.
 * @returns undefined when there is no report.
 */
export function sumReports(reports: readonly UsageReport[], items: Iterable<string>): SummedUsage | undefined {
  if (reports.length === 0) return undefined;
  const values: Values = {};
  for (const item of items) {
    let sum = 0;
    for (const r of reports) if (Object.hasOwn(r.values, item)) sum += r.values[item] as number;
    values[item] = sum;
  }
  let oldest = reports[0] as UsageReport;
  for (const r of reports) if (Date.parse(r.collected_at) < Date.parse(oldest.collected_at)) oldest = r;
  return { collected_at: oldest.collected_at, values, reports: reports.length };
}
