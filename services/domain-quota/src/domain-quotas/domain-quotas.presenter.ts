/**
 * The wire shapes of the department quota routes, built from the tree's node states (milli-units inside, the items'
 * units on the wire, -1 unlimited). Pure functions: the service reads the nodes, these shape what the client sees.
 *
 * - C1 (a department, or the cloud as `default`): per region `{usage, quotas, limits}`; `usage` is what is allocated
 *   to its children, `limits` the largest value each quota may be set to.
 * - C3 (the cloud): per region `{quotas, allocated, limits, usage, quota_fake, usage_collected_at?}`; `usage` is the
 *   actual use last reported to the registry, `quota_fake` the deprecated copy of `quotas`.
 * - A project: per region `{item: value}` (items it was never given are 0).
 */
import { createHash } from 'node:crypto';
import { fromMilli, UNLIMITED } from '@stratum/quota-items';
import type { AuditEntry } from '../audit/audit.log';
import { limitOf, parentItem, quotaOf } from './domain-quotas.allocation';
import { CLOUD_DOMAIN_ID, type QuotaSetState, type Values } from './domain-quotas.repository';

export interface DepartmentRegionView {
  usage: Values;
  quotas: Values;
  limits: Values;
}
export interface CloudRegionView {
  quotas: Values;
  allocated: Values;
  limits: Values;
  usage: Values;
  quota_fake: Values;
  usage_collected_at?: string;
}

/** The strong ETag of a department's quotas: its nodes' revisions per region (`[region, revision]`, catalogue order). */
export function etagOf(revisions: [string, number][]): string {
  const text = revisions.map(([r, n]) => `${r}:${n}`).join(',');
  return `"${createHash('sha256').update(text).digest('hex').slice(0, 32)}"`;
}

/**
 * One region of C1 for `domainId`: its node `own` under the cloud's node `cloud`, over the region's `items`.
 * The cloud's own limits are -1 (its parent, the region's capacity, is not modelled).
 */
export function departmentRegionView(
  domainId: string,
  items: Iterable<string>,
  own: QuotaSetState,
  cloud: QuotaSetState,
): DepartmentRegionView {
  const out: DepartmentRegionView = { usage: {}, quotas: {}, limits: {} };
  for (const item of items) {
    const quota = quotaOf(own, item, domainId);
    out.usage[item] = fromMilli(own.allocated[item] ?? 0);
    out.quotas[item] = fromMilli(quota);
    out.limits[item] = fromMilli(domainId === CLOUD_DOMAIN_ID ? UNLIMITED : limitOf(parentItem(cloud, item), quota));
  }
  return out;
}

/** One region of C3: the cloud's node and the region's reported usage (milli-units; absent items are 0). */
export function cloudRegionView(
  items: Iterable<string>,
  cloud: QuotaSetState,
  usage?: { values: Values; collected_at?: string },
): CloudRegionView {
  const view: CloudRegionView = { quotas: {}, allocated: {}, limits: {}, usage: {}, quota_fake: {} };
  for (const item of items) {
    const quota = fromMilli(quotaOf(cloud, item, CLOUD_DOMAIN_ID));
    view.quotas[item] = quota;
    view.allocated[item] = fromMilli(cloud.allocated[item] ?? 0);
    view.limits[item] = -1;
    view.usage[item] = fromMilli(usage?.values[item] ?? 0);
    view.quota_fake[item] = quota;
  }
  if (usage?.collected_at) view.usage_collected_at = usage.collected_at;
  return view;
}

/** One region of a project's allocations: every item of the region, from its stored quotas (milli-units). */
export function projectRegionView(items: Iterable<string>, quotas: Values = {}): Values {
  return Object.fromEntries([...items].map((item) => [item, fromMilli(quotas[item] ?? 0)]));
}

/** An audit entry as the audit route shows it: without the outbox flag. */
export function auditEntryView({ published: _published, ...entry }: AuditEntry): Omit<AuditEntry, 'published'> {
  return entry;
}
