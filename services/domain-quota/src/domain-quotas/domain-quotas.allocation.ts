/**
 * Quota arithmetic of the tree cloud → department → project, per region and item (docs/upstream/domain-quota.md §6.1,
 * §6.4 step 7, §6.5): the checks of one child's change against its parent and its own children, and the
 * reservation deltas on the parent. Pure functions on milli-unit values (UNLIMITED = -1) and node states; no I/O.
 */
import { UNLIMITED } from '@stratum/quota-items';
import type { QuotaErrorDetail } from '../errors';
import {
  CLOUD_DOMAIN_ID,
  type EditFence,
  type EditMark,
  type EditMarks,
  type ItemChange,
  type PendingEdit,
  type QuotaSetState,
  type Values,
} from './domain-quotas.repository';

/** What a child's quota commits in its parent's `allocated`: its value, or nothing when unlimited (§6.1 I2 keeps an
 * unlimited child under an unlimited parent only, where nothing is counted against a cap). */
export const contribution = (v: number) => (v === UNLIMITED ? 0 : v);

export type { ItemChange };

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

/** The oldest reservation time among `pending`, or undefined when there is none. */
function oldestOf(pending: Record<string, PendingEdit>): number | undefined {
  let min: number | undefined;
  for (const e of Object.values(pending)) if (min === undefined || e.at < min) min = e.at;
  return min;
}

/** `state` with `pending` as its edits in flight (fields dropped when there are none). */
function withPending(state: QuotaSetState, pending: Record<string, PendingEdit>): QuotaSetState {
  const { pending: _p, pending_since: _s, ...rest } = state;
  const since = oldestOf(pending);
  return since === undefined ? rest : { ...rest, pending, pending_since: since };
}

/** The pending edit `id` of a node, if it is one of its own (ids come from the store, never from a client). */
export const pendingOf = (state: QuotaSetState, id: string): PendingEdit | undefined =>
  state.pending && Object.hasOwn(state.pending, id) ? state.pending[id] : undefined;

/** Step 1 on the parent: `state` with the reserve deltas of `edit` applied and the edit recorded as pending `id`. */
export function withReservation(state: QuotaSetState, id: string, edit: PendingEdit): QuotaSetState {
  const reserved = withDeltas(state, edit.changes, 'reserve', 1) ?? state;
  return withPending(reserved, { ...state.pending, [id]: edit });
}

/**
 * Settles pending edit `id` on the parent: `forward` (its child holds the new values: release the decreases) or `back`
 * (its child kept the old ones: undo the reservation). Null when `id` is not pending (already settled): settling is
 * idempotent, so two settlers never release twice.
 */
export function withSettled(state: QuotaSetState, id: string, how: 'forward' | 'back'): QuotaSetState | null {
  const edit = pendingOf(state, id);
  if (!edit) return null;
  const moved =
    (how === 'forward' ? withDeltas(state, edit.changes, 'release', 1) : withDeltas(state, edit.changes, 'reserve', -1)) ?? state;
  const rest = Object.fromEntries(Object.entries(state.pending ?? {}).filter(([k]) => k !== id));
  return withPending(moved, rest);
}

/**
 * A child's marks without those of settled edits: a mark made at parent revision <= `parentRev` whose edit is not
 * pending at that revision was settled (an edit is recorded on the parent before any mark of it exists, and an id is
 * never reused).
 */
export function prunedMarks(
  marks: EditMarks | undefined,
  parentRev: number,
  parentPending: Record<string, PendingEdit> | undefined,
): EditMarks {
  const out: EditMarks = {};
  for (const [id, m] of Object.entries(marks ?? {})) {
    if (m.rev > parentRev || (parentPending && Object.hasOwn(parentPending, id))) out[id] = m;
  }
  return out;
}

/**
 * A child's marks with `mark` recorded for edit `id`, pruned as of the parent at revision `mark.rev` (whose edits in
 * flight are `parentPending`). A pruned `aborted` mark is a fence whose edit may belong to a process that was only
 * slow, and whose step 2 may still come: `fenced_upto` rises to `mark.rev`, so that step 2 still refuses (isFenced).
 */
export function withMark(
  child: Partial<EditFence>,
  id: string,
  mark: EditMark,
  parentPending: Record<string, PendingEdit> | undefined,
): EditFence {
  const kept = prunedMarks(child.edits, mark.rev, parentPending);
  const droppedFence = Object.entries(child.edits ?? {}).some(([k, m]) => m.outcome === 'aborted' && !Object.hasOwn(kept, k));
  const fencedUpto = droppedFence ? Math.max(child.fenced_upto ?? 0, mark.rev) : child.fenced_upto;
  return { edits: { ...kept, [id]: mark }, ...(fencedUpto === undefined ? {} : { fenced_upto: fencedUpto }) };
}

/**
 * Whether step 2 of edit `id`, reserved at parent revision `reservedRev`, must refuse: the child holds a mark of it
 * (fenced off by a reconciler), or fences of edits reserved up to `fenced_upto` >= `reservedRev` were pruned and its
 * own may have been one of them. A refused edit settles back and starts again on a new id.
 */
export function isFenced(child: Partial<EditFence>, id: string, reservedRev: number): boolean {
  return Object.hasOwn(child.edits ?? {}, id) || reservedRev <= (child.fenced_upto ?? 0);
}

/** A child of a parent as the sum check reads it: its reference (`d:<domain>` or `p:<project>`), quotas and marks. */
export interface ChildRecord {
  ref: string;
  quotas: Values;
  edits?: EditMarks;
}

/**
 * What a parent's `allocated` and `unlimited` must be, from its children and its edits in flight: each child's
 * contribution (finite quota, or one unlimited child), plus for each pending edit its reservation when the child does
 * not hold it yet, or minus its release when it does (what step 3 has still to give back). This holds at every
 * instant of the edit protocol, so a difference is corruption, never an edit in progress.
 */
export function expectedSums(
  children: ChildRecord[],
  pending: Record<string, PendingEdit> | undefined,
): { allocated: Values; unlimited: Values } {
  const allocated = new Map<string, number>();
  const unlimited = new Map<string, number>();
  const add = (m: Map<string, number>, k: string, d: number) => {
    if (d !== 0) m.set(k, (m.get(k) ?? 0) + d);
  };
  const byRef = new Map(children.map((c) => [c.ref, c]));
  for (const c of children) {
    for (const [item, v] of Object.entries(c.quotas)) {
      if (v === UNLIMITED) add(unlimited, item, 1);
      else add(allocated, item, v);
    }
  }
  for (const [id, edit] of Object.entries(pending ?? {})) {
    const marks = byRef.get(edit.child)?.edits;
    const applied = !!marks && Object.hasOwn(marks, id) && marks[id]?.outcome === 'applied';
    for (const c of edit.changes) {
      const d = parentDeltas(c);
      if (applied) {
        add(allocated, c.item, -d.release.allocated);
        add(unlimited, c.item, -d.release.unlimited);
      } else {
        add(allocated, c.item, d.reserve.allocated);
        add(unlimited, c.item, d.reserve.unlimited);
      }
    }
  }
  const out = (m: Map<string, number>) => Object.fromEntries([...m].filter(([, v]) => v !== 0));
  return { allocated: out(allocated), unlimited: out(unlimited) };
}
