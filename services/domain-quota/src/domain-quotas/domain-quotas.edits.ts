/**
 * Changes of the quota tree without multi-document transactions (FerretDB has none, and the code runs on both
 * stores), each step a linearizable read-modify-write of one node (@stratum/revisions: one conditional write).
 *
 * A child's change (a department under the cloud, a project under its department or the cloud) never over-commits
 * its parent, in three steps under an edit id:
 * 1. on the parent: check every item, reserve the increases, and record the edit as pending (`pending[id]`: the
 *    child and its changes);
 * 2. on the child: check that its values are still those the edit was decided on, that its own children fit, and
 *    that the edit was not fenced off; then set them and mark the edit `applied` (`edits[id]`);
 * 3. on the parent: release the decreases and drop the pending record, if it is still there.
 * A child that changed in between settles the edit back (undoes the reservation) and the edit starts again on fresh
 * values. Between the steps the parent holds the reservation, so concurrent edits see less headroom, never more.
 *
 * An edit whose process died between the steps (kill -9, the store failing mid-edit) stays pending on the parent;
 * the reconciler (domain-quotas.reconciler.ts) settles it with `resolve`: when the child carries the `applied` mark
 * it rolls forward (step 3); otherwise it first marks the edit `aborted` on the child (so a late step 2 of a process
 * that was only slow refuses) and then rolls back. Settling removes the pending record in the same conditional write
 * that moves `allocated`, so two settlers (the edit itself, reconcilers on several replicas) never release twice.
 * Marks are pruned from a child once the parent no longer holds their edit (prunedMarks). A fence outlives its
 * edit's settlement, though: a process that was only slow (a stall past the lease) may reach step 2 after a reconciler
 * rolled its edit back, and must still refuse. So pruning a fence raises the child's `fenced_upto` to the parent
 * revision it pruned at, and step 2 refuses an edit reserved at or below it (withMark, isFenced); such an edit settles
 * back and starts again.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { fromMilli, UNLIMITED } from '@stratum/quota-items';
import { type Decision, RevisionConflictError } from '@stratum/revisions';
import { type QuotaErrorDetail, quotaConflict } from '../errors';
import {
  childItem,
  conflictsOf,
  type ItemChange,
  isFenced,
  parentItem,
  pendingOf,
  quotaOf,
  withMark,
  withReservation,
  withSettled,
} from './domain-quotas.allocation';
import {
  CLOUD_DOMAIN_ID,
  type EditFence,
  type PendingEdit,
  type QuotaSetState,
  type QuotaTreeRepository,
  quotaSetId,
  type Values,
} from './domain-quotas.repository';

const MAX_ATTEMPTS = 50;
/** A parent that constrains nothing: checks with it are the child's side alone. */
const NO_PARENT = { quota: UNLIMITED, allocated: 0 };

/** A child (department or project) as step 2 sees it: a project has no children of its own. */
export interface ChildView extends EditFence {
  quotas: Values;
  allocated: Values;
  unlimited: Values;
}
type Refusal = 'stale' | 'fenced' | QuotaErrorDetail[];

/** `d:<domain_id>` or `p:<project_id>`: a child as its parent's pending records name it. */
export const departmentRef = (domainId: string) => `d:${domainId}`;
export const projectRef = (projectId: string) => `p:${projectId}`;

/** How a pending edit was settled by `resolve`. */
export type Resolution = 'forward' | 'back' | 'settled';

/** Test seam: runs after a step of a child's edit (a hook that throws stops the edit there, as a crash would). */
export interface EditHooks {
  afterStep?(step: 1 | 2, region: string, editId: string): Promise<void>;
}

export class QuotaTreeEdits {
  constructor(
    private readonly repo: QuotaTreeRepository,
    private readonly hooks: EditHooks = {},
  ) {}

  /**
   * Sets a department's quotas in `region` under the cloud.
   * @returns the changes made (or, for a dry run, that would be made).
   * @throws AppError 409 with every conflict; RevisionConflictError when the nodes stayed contended; store errors.
   */
  department(region: string, domainId: string, items: Map<string, number>, dryRun: boolean): Promise<ItemChange[]> {
    return this.setChild(region, CLOUD_DOMAIN_ID, departmentRef(domainId), items, dryRun);
  }

  /** Sets a project's allocations in `region` under its department (or the cloud, for the `default` domain). */
  project(region: string, projectId: string, domainId: string, items: Map<string, number>, dryRun: boolean): Promise<ItemChange[]> {
    return this.setChild(region, domainId, projectRef(projectId), items, dryRun);
  }

  /** The cloud's own edit: one step on its node (its parent is the capacity of the region, not modelled). */
  async cloud(region: string, items: Map<string, number>, dryRun: boolean): Promise<ItemChange[]> {
    let details: QuotaErrorDetail[] = [];
    const { result: changes } = await this.repo.changeQuotaSet<ItemChange[]>(region, CLOUD_DOMAIN_ID, (p) => {
      const cs = [...items]
        .map(([item, next]) => ({ item, old: quotaOf(p.state, item, CLOUD_DOMAIN_ID), next }))
        .filter((c) => c.next !== c.old);
      details = cs.flatMap((c) => conflictsOf(region, c, NO_PARENT, childItem(p.state, c.item), fromMilli));
      if (details.length > 0 || dryRun || cs.length === 0) return { result: cs };
      const quotas = { ...p.state.quotas, ...Object.fromEntries(cs.map((c) => [c.item, c.next])) };
      return { next: { ...p.state, quotas }, result: cs };
    });
    if (details.length > 0) {
      for (const d of details) {
        if (d.reason === 'unlimited_children' && d.item) d.departments = await this.repo.unlimitedDepartments(region, d.item);
      }
      throw quotaConflict(details);
    }
    return changes;
  }

  /**
   * A child as step 2 reads it before deciding: a department through the cached head (a stale one is caught in step
   * 2, which re-checks the values on the committed revision), a project from the store.
   */
  private async readChild(region: string, ref: string): Promise<ChildView> {
    const id = ref.slice(2);
    if (ref.startsWith('d:')) {
      const s = (await this.repo.peekQuotaSet(region, id)).state;
      return { quotas: s.quotas, allocated: s.allocated, unlimited: s.unlimited, edits: s.edits ?? {} };
    }
    const p = await this.repo.readProjectQuota(region, id);
    return { quotas: p?.state.quotas ?? {}, allocated: {}, unlimited: {}, edits: p?.state.edits ?? {} };
  }

  /**
   * One linearizable change of a child's quotas and marks. A project record written here belongs to `parentOwner`.
   * @param decide sees the committed child; its `next` replaces the child's quotas and marks.
   */
  private async changeChild<R>(
    region: string,
    parentOwner: string,
    ref: string,
    decide: (cur: ChildView) => Decision<{ quotas: Values } & EditFence, R>,
  ): Promise<R> {
    const id = ref.slice(2);
    const fence = (s: Partial<EditFence>) => ({
      edits: s.edits ?? {},
      ...(s.fenced_upto === undefined ? {} : { fenced_upto: s.fenced_upto }),
    });
    if (ref.startsWith('d:')) {
      const { result } = await this.repo.changeQuotaSet<R>(region, id, (cur) => {
        const s = cur.state;
        const d = decide({ quotas: s.quotas, allocated: s.allocated, unlimited: s.unlimited, ...fence(s) });
        return d.next ? { next: { ...s, quotas: d.next.quotas, ...fence(d.next) }, result: d.result } : { result: d.result };
      });
      return result;
    }
    const { result } = await this.repo.changeProjectQuota<R>(region, id, parentOwner, (cur) => {
      const s = cur.state;
      const d = decide({ quotas: s.quotas, allocated: {}, unlimited: {}, ...fence(s) });
      return d.next
        ? { next: { ...s, domain_id: parentOwner, quotas: d.next.quotas, ...fence(d.next) }, result: d.result }
        : { result: d.result };
    });
    return result;
  }

  /** Settles pending edit `id` on `parentOwner`'s node (a no-op when it is no longer pending). @returns whether it was. */
  private async settle(region: string, parentOwner: string, id: string, how: 'forward' | 'back'): Promise<boolean> {
    const { result } = await this.repo.changeQuotaSet<boolean>(region, parentOwner, (p) => {
      const next = withSettled(p.state, id, how);
      return next ? { next, result: true } : { result: false };
    });
    return result;
  }

  /** The three steps of the module comment, for the child `ref` under `parentOwner`'s node in `region`. */
  private async setChild(
    region: string,
    parentOwner: string,
    ref: string,
    items: Map<string, number>,
    dryRun: boolean,
  ): Promise<ItemChange[]> {
    for (let attempt = 1; ; attempt++) {
      const child = await this.readChild(region, ref);
      const changes = [...items]
        .map(([item, next]) => ({ item, old: Object.hasOwn(child.quotas, item) ? (child.quotas[item] as number) : 0, next }))
        .filter((c) => c.next !== c.old);
      if (changes.length === 0) return [];
      // 1. On the parent: every check, then reserve the increases and record the edit.
      const id = randomUUID();
      let conflicts: QuotaErrorDetail[] = [];
      const { current } = await this.repo.changeQuotaSet<void>(region, parentOwner, (p) => {
        conflicts = changes.flatMap((c) => conflictsOf(region, c, parentItem(p.state, c.item), childItem(child, c.item), fromMilli));
        if (conflicts.length > 0 || dryRun) return { result: undefined };
        return { next: withReservation(p.state, id, { child: ref, changes, at: Date.now() }), result: undefined };
      });
      if (conflicts.length > 0) throw quotaConflict(conflicts);
      if (dryRun) return changes;
      const parentRev = current?.revision ?? 0;
      const parentPending = current?.state.pending;
      await this.hooks.afterStep?.(1, region, id);
      // 2. On the child: not fenced off, still the values decided on, and its own children still fit.
      const next = Object.fromEntries(changes.map((c) => [c.item, c.next]));
      const outcome = await this.changeChild<'ok' | Refusal>(region, parentOwner, ref, (cur) => {
        if (isFenced(cur, id, parentRev)) return { result: 'fenced' };
        if (changes.some((c) => (Object.hasOwn(cur.quotas, c.item) ? cur.quotas[c.item] : 0) !== c.old)) return { result: 'stale' };
        const own = changes.flatMap((c) => conflictsOf(region, c, NO_PARENT, childItem(cur, c.item), fromMilli));
        if (own.length > 0) return { result: own };
        const marks = withMark(cur, id, { rev: parentRev, outcome: 'applied' }, parentPending);
        return { next: { quotas: { ...cur.quotas, ...next }, ...marks }, result: 'ok' };
      });
      if (outcome !== 'ok') {
        // Undo the reservation (a no-op when a reconciler that fenced the edit off settled it already).
        await this.settle(region, parentOwner, id, 'back');
        if (outcome !== 'stale' && outcome !== 'fenced') throw quotaConflict(outcome);
        if (attempt >= MAX_ATTEMPTS) throw new RevisionConflictError(quotaSetId(region, parentOwner));
        await sleep(Math.random() * Math.min(20, attempt));
        continue;
      }
      await this.hooks.afterStep?.(2, region, id);
      // 3. On the parent: release the decreases and drop the record (a reconciler may have done it already).
      await this.settle(region, parentOwner, id, 'forward');
      return changes;
    }
  }

  /**
   * Settles an edit left pending on `parentOwner`'s node in `region` by a process that did not finish it: forward
   * when its child carries the `applied` mark, else back after marking it `aborted` on the child (so its step 2 can
   * no longer apply it). Idempotent, safe to run on several replicas and beside the edit itself.
   * @returns what was done (`settled`: it was no longer pending, or another settler got there first).
   */
  async resolve(region: string, parentOwner: string, id: string): Promise<Resolution> {
    const parent = await this.repo.readQuotaSet(region, parentOwner);
    const edit = pendingOf(parent.state, id);
    if (!edit) return 'settled';
    const applied = await this.changeChild<boolean>(region, parentOwner, edit.child, (cur) => {
      if (Object.hasOwn(cur.edits, id)) return { result: cur.edits[id]?.outcome === 'applied' };
      const marks = withMark(cur, id, { rev: parent.revision, outcome: 'aborted' }, parent.state.pending);
      return { next: { quotas: cur.quotas, ...marks }, result: false };
    });
    const how = applied ? 'forward' : 'back';
    return (await this.settle(region, parentOwner, id, how)) ? how : 'settled';
  }
}

/** The pending edits of a node reserved at or before `before` (ms since the epoch). */
export function staleEdits(state: QuotaSetState, before: number): [string, PendingEdit][] {
  return Object.entries(state.pending ?? {}).filter(([, e]) => e.at <= before);
}
