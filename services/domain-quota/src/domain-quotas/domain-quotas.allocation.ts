/**
 * Quota arithmetic of the tree cloud → department → project, per region and item (reference/domain-quota.md §6.1,
 * §6.4 step 7, §6.5): the checks of one child's change against its parent and its own children, and the
 * reservation deltas on the parent. Pure functions on milli-unit values (UNLIMITED = -1) and node states; no I/O.
 */
import { UNLIMITED } from '@stratum/quota-items';
import { CLOUD_DOMAIN_ID, type QuotaSetState, type Values } from '../registry/registry.repository';
import type { QuotaErrorDetail } from './domain-quotas.schema';

/** What a child's quota commits in its parent's `allocated`: its value, or nothing when unlimited (§6.1 I2 keeps an
 * unlimited child under an unlimited parent only, where nothing is counted against a cap). */
export const contribution = (v: number) => (v === UNLIMITED ? 0 : v);

/** One item's requested change of a child. */
export interface ItemChange {
  item: string;
  /** The child's value the change was decided on. */
  old: number;
  next: number;
}

/** What the parent holds for one item. */
export interface ParentItem {
  quota: number;
  allocated: number;
}

/** What the child's own children hold for one item (zeros for a project, which has none). */
export interface ChildItem {
  allocated: number;
  unlimited: number;
}

/** `limits`: the largest value the child may be set to (cloud free + the child's own share); -1 under an unlimited parent. */
export function limitOf(parent: ParentItem, childQuota: number): number {
  if (parent.quota === UNLIMITED) return UNLIMITED;
  return parent.quota - parent.allocated + contribution(childQuota);
}

/**
 * The conflicts (409) of one item's change, against the parent and against the child's own children.
 * - unlimited under a finite parent (I2);
 * - above `limits` when increasing (decreasing or keeping is always allowed: grandfathering);
 * - below what the child's children hold, when decreasing (raising an inconsistent child is allowed);
 * - finite while a child of the child is unlimited.
 * @param region for the details; values in milli-units, details in the caller's units (`show`).
 */
export function conflictsOf(
  region: string,
  c: ItemChange,
  parent: ParentItem,
  child: ChildItem,
  show: (milli: number) => number,
): QuotaErrorDetail[] {
  if (c.next === c.old) return [];
  const base = { region, item: c.item, requested: show(c.next), current: show(c.old) };
  const out: QuotaErrorDetail[] = [];
  const limit = limitOf(parent, c.old);
  if (c.next === UNLIMITED && parent.quota !== UNLIMITED) {
    out.push({ ...base, reason: 'unlimited_under_finite_parent' });
  } else if (
    parent.quota !== UNLIMITED &&
    contribution(c.next) > contribution(c.old) &&
    parent.allocated + contribution(c.next) - contribution(c.old) > parent.quota
  ) {
    out.push({ ...base, min: show(child.allocated), max: show(limit), reason: 'exceeds_limit' });
  }
  if (c.next !== UNLIMITED && (c.old === UNLIMITED || c.next < c.old) && c.next < child.allocated) {
    out.push({ ...base, min: show(child.allocated), ...(limit === UNLIMITED ? {} : { max: show(limit) }), reason: 'below_allocated' });
  }
  if (c.next !== UNLIMITED && child.unlimited > 0) out.push({ ...base, reason: 'unlimited_children' });
  return out;
}

/** The parent's `allocated` and `unlimited` deltas of a change, split into what to reserve first and release after. */
export function parentDeltas(c: ItemChange): {
  reserve: { allocated: number; unlimited: number };
  release: { allocated: number; unlimited: number };
} {
  const d = contribution(c.next) - contribution(c.old);
  return {
    reserve: { allocated: Math.max(d, 0), unlimited: c.next === UNLIMITED && c.old !== UNLIMITED ? 1 : 0 },
    release: { allocated: Math.min(d, 0), unlimited: c.old === UNLIMITED && c.next !== UNLIMITED ? -1 : 0 },
  };
}

/** A node's quota for `item`; a missing value is -1 for the cloud and 0 for a department or project. */
export const quotaOf = (state: { quotas: Values }, item: string, domainId: string) =>
  state.quotas[item] ?? (domainId === CLOUD_DOMAIN_ID ? UNLIMITED : 0);

/** What a parent node holds for `item`. */
export const parentItem = (p: QuotaSetState, item: string): ParentItem => ({
  quota: quotaOf(p, item, p.domain_id),
  allocated: p.allocated[item] ?? 0,
});

/** What a node's own children hold for `item`. */
export const childItem = (c: { allocated: Values; unlimited: Values }, item: string): ChildItem => ({
  allocated: c.allocated[item] ?? 0,
  unlimited: c.unlimited[item] ?? 0,
});

/** `state` with the deltas of `changes` (reserve or release side, times `sign`) applied; null when nothing changes. */
export function withDeltas(state: QuotaSetState, changes: ItemChange[], side: 'reserve' | 'release', sign: 1 | -1): QuotaSetState | null {
  const allocated = { ...state.allocated };
  const unlimited = { ...state.unlimited };
  let changed = false;
  for (const c of changes) {
    const d = parentDeltas(c)[side];
    if (d.allocated !== 0) {
      allocated[c.item] = (allocated[c.item] ?? 0) + sign * d.allocated;
      changed = true;
    }
    if (d.unlimited !== 0) {
      unlimited[c.item] = (unlimited[c.item] ?? 0) + sign * d.unlimited;
      changed = true;
    }
  }
  return changed ? { ...state, allocated, unlimited } : null;
}
