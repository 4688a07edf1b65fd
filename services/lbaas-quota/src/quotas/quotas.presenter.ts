/**
 * Stored quota → wire shapes (docs/upstream/lbaas-quota.md §2; docs/api/lbaas-quota.md B1-B3).
 */
import { LBAAS_IN_USE_NAME, LBAAS_NEW_NAME, LBAAS_RESOURCES, type LbaasResolved } from '@stratum/quota-items';
import type { QuotaDoc } from './quotas.repository';
import type { QuotaUsage } from './quotas.service';

function pick<T extends Record<string, unknown>>(obj: T, fields: string[] | undefined): Partial<T> {
  if (!fields) return obj;
  return Object.fromEntries(Object.entries(obj).filter(([k]) => fields.includes(k))) as Partial<T>;
}

/**
 * A list item: the contract's fields (`loadbalancer`, `healthmonitor`, `in_use_*`, `tenant_id`) plus Octavia's
 * `load_balancer`/`health_monitor` spellings that the official clients read; limits raw (null = uses the default).
 */
export function presentListItem(doc: QuotaDoc, fields?: string[]): Record<string, unknown> {
  const item: Record<string, unknown> = { project_id: doc._id };
  for (const r of LBAAS_RESOURCES) {
    const limit = doc.limits?.[r] ?? null;
    item[r] = limit;
    if (LBAAS_NEW_NAME[r] !== r) item[LBAAS_NEW_NAME[r]] = limit;
  }
  for (const r of LBAAS_RESOURCES) item[LBAAS_IN_USE_NAME[r]] = doc.in_use?.[r] ?? 0;
  item.tenant_id = doc._id;
  return pick(item, fields);
}

/** A single quota (`{"quota": {...}}` content): the seven keys in the samples' underscore spelling, defaults filled in. */
export function presentQuota(resolved: LbaasResolved, fields?: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of LBAAS_RESOURCES) out[r] = resolved[r];
  return pick(out, fields) as Record<string, number>;
}

/**
 * A project's usage: `{"project_id", "<resource>": {"limit", "in_use"}, ...}` with effective limits (-1 unlimited),
 * underscore spelling as the single quota objects.
 */
export function presentUsage(usage: QuotaUsage): Record<string, unknown> {
  const out: Record<string, unknown> = { project_id: usage.projectId };
  for (const r of LBAAS_RESOURCES) out[r] = { limit: usage.limits[r], in_use: usage.inUse[r] };
  return out;
}
