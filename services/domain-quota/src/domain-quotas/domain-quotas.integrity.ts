/**
 * The sums of the quota tree, verified and repaired: every parent's `allocated` (and count of `unlimited` children)
 * must be what its children hold (expectedSums: the children's quotas plus the edits in flight), the cloud's over
 * its departments and its own projects, a department's over its projects, per region and item — as Cinder's
 * `fix_allocated_quotas` recomputes `allocated` from the children (docs/upstream/domain-quota.md §6.5 step 7).
 *
 * A check reads every node, then re-verifies each parent that looks wrong on its own: its head, its children, its
 * head again; the difference counts only when the head did not move in between, so a concurrent edit never shows as
 * corruption. A repair writes the expected sums with one conditional write on that verified revision (a PATCH that
 * commits first makes it verify again), so it never overwrites an edit.
 */
import { fromMilli } from '@stratum/quota-items';
import type { Revision } from '@stratum/revisions';
import type { AuditActor, AuditLog } from '../audit/audit.log';
import { type ChildRecord, expectedSums } from './domain-quotas.allocation';
import { departmentRef, projectRef } from './domain-quotas.edits';
import {
  CLOUD_DOMAIN_ID,
  type ProjectQuotaState,
  type QuotaSetState,
  type QuotaTreeRepository,
  quotaSetId,
  type Values,
} from './domain-quotas.repository';

/** One wrong sum: `allocated` in the item's unit, or `unlimited` as a count of children at -1. */
export interface SumDiscrepancy {
  region: string;
  /** The parent: `default` (the cloud) or a department. */
  domain_id: string;
  item: string;
  field: 'allocated' | 'unlimited';
  stored: number;
  expected: number;
  /** Whether this run wrote the expected value. */
  repaired: boolean;
}

export interface CheckReport {
  /** Parents (cloud and department nodes, per region) whose sums were verified. */
  nodes: number;
  discrepancies: SumDiscrepancy[];
  /** Parents that kept changing while they were verified (`<region>/<domain_id>`): run the check again. */
  busy: string[];
}

/** Who a repair is recorded as when no request made it (the CLI, the launcher). */
export const SYSTEM_ACTOR: AuditActor = { userId: 'stratum-registry-check', projectId: null, domainId: null, requestId: '' };

const ATTEMPTS = 5;
const own = (v: Values, k: string) => (Object.hasOwn(v, k) ? (v[k] as number) : 0);

/** The differences between a node's stored sums and the expected ones, in milli-units / counts. */
function differences(
  state: QuotaSetState,
  expected: { allocated: Values; unlimited: Values },
): { item: string; field: 'allocated' | 'unlimited'; stored: number; expected: number }[] {
  const out: { item: string; field: 'allocated' | 'unlimited'; stored: number; expected: number }[] = [];
  for (const field of ['allocated', 'unlimited'] as const) {
    const items = new Set([...Object.keys(state[field]), ...Object.keys(expected[field])]);
    for (const item of [...items].sort()) {
      const stored = own(state[field], item);
      const want = own(expected[field], item);
      if (stored !== want) out.push({ item, field, stored, expected: want });
    }
  }
  return out;
}

const departmentChild = (d: Revision<QuotaSetState>): ChildRecord => ({
  ref: departmentRef(d.state.domain_id),
  quotas: d.state.quotas,
  edits: d.state.edits,
});
const projectChild = (p: Revision<ProjectQuotaState>): ChildRecord => ({
  ref: projectRef(p.state.project_id),
  quotas: p.state.quotas,
  edits: p.state.edits,
});

export class TreeIntegrity {
  constructor(
    private readonly repo: QuotaTreeRepository,
    private readonly audit?: AuditLog,
  ) {}

  /**
   * Verifies every sum of the tree and, with `repair`, sets each wrong one to what the children hold (audited as
   * `actor`, one entry per item).
   * @returns what was checked, every discrepancy found (and whether it was repaired), and parents too busy to verify.
   * @throws store errors as the driver raises them.
   */
  async check(opts: { repair?: boolean; actor?: AuditActor } = {}): Promise<CheckReport> {
    const before = await this.repo.allQuotaSets();
    const projects = await this.repo.allProjectQuotas();
    const after = await this.repo.allQuotaSets();

    // Every parent: each node, each project's owner, and the cloud of every region that has a node.
    const parents = new Map<string, { region: string; owner: string }>();
    const addParent = (region: string, owner: string) => parents.set(quotaSetId(region, owner), { region, owner });
    for (const n of before) {
      addParent(n.state.region, n.state.domain_id);
      addParent(n.state.region, CLOUD_DOMAIN_ID);
    }
    for (const p of projects) addParent(p.state.region, p.state.domain_id);

    const beforeByKey = new Map(before.map((n) => [quotaSetId(n.state.region, n.state.domain_id), n]));
    const afterByKey = new Map(after.map((n) => [quotaSetId(n.state.region, n.state.domain_id), n]));
    const childrenByKey = new Map<string, ChildRecord[]>();
    const childrenOf = (region: string, owner: string) => {
      const key = quotaSetId(region, owner);
      let list = childrenByKey.get(key);
      if (!list) {
        list = [];
        childrenByKey.set(key, list);
      }
      return list;
    };
    for (const n of after) if (n.state.domain_id !== CLOUD_DOMAIN_ID) childrenOf(n.state.region, CLOUD_DOMAIN_ID).push(departmentChild(n));
    for (const p of projects) childrenOf(p.state.region, p.state.domain_id).push(projectChild(p));

    const report: CheckReport = { nodes: parents.size, discrepancies: [], busy: [] };
    for (const [key, { region, owner }] of [...parents].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const first = beforeByKey.get(key);
      const moved = (first?.revision ?? -1) !== (afterByKey.get(key)?.revision ?? -1);
      if (!moved) {
        const state = first?.state ?? { region, domain_id: owner, quotas: {}, allocated: {}, unlimited: {} };
        if (differences(state, expectedSums(childrenByKey.get(key) ?? [], state.pending)).length === 0) continue;
      }
      // Looks wrong (or moved while read): verify this parent alone, and repair it if asked.
      await this.verify(region, owner, opts, report);
    }
    return report;
  }

  /** Reads one parent, its children and the parent again until the parent holds still; records and repairs. */
  private async verify(region: string, owner: string, opts: { repair?: boolean; actor?: AuditActor }, report: CheckReport): Promise<void> {
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      const head = await this.repo.readQuotaSet(region, owner);
      const kids = await this.repo.childrenOf(region, owner);
      const again = await this.repo.readQuotaSet(region, owner);
      if (again.revision !== head.revision) continue;
      const expected = expectedSums([...kids.departments.map(departmentChild), ...kids.projects.map(projectChild)], head.state.pending);
      const diffs = differences(head.state, expected);
      if (diffs.length === 0) return;
      let repaired = false;
      if (opts.repair) {
        const { result } = await this.repo.changeQuotaSet<boolean>(region, owner, (cur) =>
          cur.revision === head.revision
            ? { next: { ...cur.state, allocated: expected.allocated, unlimited: expected.unlimited }, result: true }
            : { result: false },
        );
        if (!result) continue; // an edit committed in between: verify again
        repaired = true;
      }
      for (const d of diffs) {
        const show = (v: number) => (d.field === 'allocated' ? fromMilli(v) : v);
        const entry = {
          region,
          domain_id: owner,
          item: d.item,
          field: d.field,
          stored: show(d.stored),
          expected: show(d.expected),
          repaired,
        };
        report.discrepancies.push(entry);
        if (repaired) await this.audit?.repaired(opts.actor ?? SYSTEM_ACTOR, entry);
      }
      return;
    }
    report.busy.push(quotaSetId(region, owner));
  }
}

/** One line per discrepancy, for logs and the CLI. */
export function describeDiscrepancy(d: SumDiscrepancy): string {
  const node = d.domain_id === CLOUD_DOMAIN_ID ? `cloud (default) in ${d.region}` : `department ${d.domain_id} in ${d.region}`;
  const what = d.field === 'allocated' ? `allocated ${d.item}` : `unlimited children for ${d.item}`;
  return `${node}: ${what} is ${d.stored}, its children hold ${d.expected}${d.repaired ? ' (repaired)' : ''}`;
}
