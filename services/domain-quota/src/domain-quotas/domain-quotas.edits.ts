/**
 * Changes of the quota tree without multi-document transactions (FerretDB has none, and the code runs on both
 * stores), each step a linearizable read-modify-write of one node (@stratum/revisions: one conditional write).
 *
 * A child's change (a department under the cloud, a project under its department or the cloud) never over-commits
 * its parent, in three steps: (1) on the parent, check every item and reserve the increases; (2) on the child,
 * check that its values are still those the reservation was made for and that its own children fit, then set them;
 * (3) on the parent, release the decreases. A child that changed in between undoes (1) and the edit starts again on
 * fresh values. Between the steps the parent holds the reservation, so concurrent edits see less headroom, never
 * more. Step 1 is skipped when a change only gives back and is fine on the child's side (it cannot conflict with
 * the parent), step 3 when nothing is given back. A crash between steps leaves a reservation (never an
 * over-allocation); nothing recomputes it yet.
 */
import { AppError } from '@stratum/http-kit';
import { fromMilli, UNLIMITED } from '@stratum/quota-items';
import { RevisionConflictError } from '@stratum/revisions';
import { CLOUD_DOMAIN_ID, quotaSetId, type RegistryRepository, type Values } from '../registry/registry.repository';
import { childItem, conflictsOf, type ItemChange, parentDeltas, parentItem, quotaOf, withDeltas } from './domain-quotas.allocation';
import type { QuotaErrorDetail } from './domain-quotas.schema';

const MAX_ATTEMPTS = 50;
/** A parent that constrains nothing: checks with it are the child's side alone. */
const NO_PARENT = { quota: UNLIMITED, allocated: 0 };
const hasDelta = (d: { allocated: number; unlimited: number }) => d.allocated !== 0 || d.unlimited !== 0;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A child node as step 2 sees it. */
type ChildView = { quotas: Values; allocated: Values; unlimited: Values };
type Refusal = 'stale' | QuotaErrorDetail[];

/** A child node (a department under the cloud, or a project under its department) as the edit sees it. */
interface ChildNode {
  read(): Promise<ChildView>;
  /** Sets `next` into the child's quotas if `decide` allows; returns what `decide` said. */
  write(decide: (cur: ChildView) => 'ok' | Refusal, next: Values): Promise<'ok' | Refusal>;
}

/** 409 with every detail, in Keystone's envelope. */
export function conflictError(details: QuotaErrorDetail[]): AppError {
  const msg = details
    .map((d) => {
      switch (d.reason) {
        case 'exceeds_limit':
          return `Quota for ${d.item} in region ${d.region} cannot be ${d.requested}: at most ${d.max} is available from the parent quota.`;
        case 'below_allocated':
          return `Quota for ${d.item} in region ${d.region} cannot be ${d.requested}: ${d.min} is already allocated below it.`;
        case 'unlimited_under_finite_parent':
          return `Quota for ${d.item} in region ${d.region} cannot be unlimited while the parent quota is finite.`;
        case 'unlimited_children':
          return `Quota for ${d.item} in region ${d.region} cannot be finite while a quota below it is unlimited.`;
        default:
          return `Quota for ${d.item} in region ${d.region} cannot be ${d.requested}.`;
      }
    })
    .join(' ');
  return new AppError(409, msg, details);
}

export class QuotaTreeEdits {
  constructor(private readonly repo: RegistryRepository) {}

  /**
   * Sets a department's quotas in `region` under the cloud.
   * @returns the changes made (or, for a dry run, that would be made).
   * @throws AppError 409 with every conflict; RevisionConflictError when the nodes stayed contended.
   */
  department(region: string, domainId: string, items: Map<string, number>, dryRun: boolean): Promise<ItemChange[]> {
    const node: ChildNode = {
      // The cached head: a stale one is caught in step 2, which re-checks the values on the committed revision.
      read: async () => (await this.repo.peekQuotaSet(region, domainId)).state,
      write: async (decide, next) => {
        const { result } = await this.repo.changeQuotaSet<'ok' | Refusal>(region, domainId, (cur) => {
          const verdict = decide(cur.state);
          return verdict === 'ok'
            ? { next: { ...cur.state, quotas: { ...cur.state.quotas, ...next } }, result: 'ok' }
            : { result: verdict };
        });
        return result;
      },
    };
    return this.setChild(region, CLOUD_DOMAIN_ID, node, items, dryRun);
  }

  /** Sets a project's allocations in `region` under its department (or the cloud, for the `default` domain). */
  project(region: string, projectId: string, domainId: string, items: Map<string, number>, dryRun: boolean): Promise<ItemChange[]> {
    const leaf = (quotas: Values): ChildView => ({ quotas, allocated: {}, unlimited: {} });
    const node: ChildNode = {
      read: async () => leaf((await this.repo.readProjectQuota(region, projectId))?.state.quotas ?? {}),
      write: async (decide, next) => {
        const { result } = await this.repo.changeProjectQuota<'ok' | Refusal>(region, projectId, domainId, (cur) => {
          const verdict = decide(leaf(cur.state.quotas));
          return verdict === 'ok'
            ? { next: { ...cur.state, domain_id: domainId, quotas: { ...cur.state.quotas, ...next } }, result: 'ok' }
            : { result: verdict };
        });
        return result;
      },
    };
    return this.setChild(region, domainId, node, items, dryRun);
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
      throw conflictError(details);
    }
    return changes;
  }

  /** The three steps of the module comment, for `node` under `parentOwner`'s node in `region`. */
  private async setChild(
    region: string,
    parentOwner: string,
    node: ChildNode,
    items: Map<string, number>,
    dryRun: boolean,
  ): Promise<ItemChange[]> {
    for (let attempt = 1; ; attempt++) {
      const child = await node.read();
      const changes = [...items].map(([item, next]) => ({ item, old: child.quotas[item] ?? 0, next })).filter((c) => c.next !== c.old);
      if (changes.length === 0) return [];
      // 1. On the parent: every check, then reserve the increases. A change that only gives back (and is fine on
      // the child's side) cannot conflict with the parent, so it skips this step.
      const reserves = changes.some((c) => hasDelta(parentDeltas(c).reserve));
      const childSide = changes.flatMap((c) => conflictsOf(region, c, NO_PARENT, childItem(child, c.item), fromMilli));
      let reserved = false;
      if (reserves || dryRun || childSide.length > 0) {
        let conflicts: QuotaErrorDetail[] = [];
        ({ result: reserved } = await this.repo.changeQuotaSet<boolean>(region, parentOwner, (p) => {
          conflicts = changes.flatMap((c) => conflictsOf(region, c, parentItem(p.state, c.item), childItem(child, c.item), fromMilli));
          if (conflicts.length > 0 || dryRun) return { result: false };
          const next = withDeltas(p.state, changes, 'reserve', 1);
          return next ? { next, result: true } : { result: false };
        }));
        if (conflicts.length > 0) throw conflictError(conflicts);
        if (dryRun) return changes;
      }
      // 2. On the child: still the values decided on, and its own children still fit.
      const next = Object.fromEntries(changes.map((c) => [c.item, c.next]));
      const outcome = await node.write((cur) => {
        if (changes.some((c) => (cur.quotas[c.item] ?? 0) !== c.old)) return 'stale';
        const own = changes.flatMap((c) => conflictsOf(region, c, NO_PARENT, childItem(cur, c.item), fromMilli));
        return own.length > 0 ? own : 'ok';
      }, next);
      if (outcome !== 'ok') {
        if (reserved) {
          await this.repo.changeQuotaSet(region, parentOwner, (p) => ({
            next: withDeltas(p.state, changes, 'reserve', -1) ?? p.state,
            result: undefined,
          }));
        }
        if (outcome !== 'stale') throw conflictError(outcome);
        if (attempt >= MAX_ATTEMPTS) throw new RevisionConflictError(quotaSetId(region, parentOwner));
        await sleep(Math.random() * Math.min(20, attempt));
        continue;
      }
      // 3. On the parent: release the decreases (when there are any).
      if (!changes.some((c) => hasDelta(parentDeltas(c).release))) return changes;
      await this.repo.changeQuotaSet(region, parentOwner, (p) => {
        const released = withDeltas(p.state, changes, 'release', 1);
        return released ? { next: released, result: undefined } : { result: undefined };
      });
      return changes;
    }
  }
}
