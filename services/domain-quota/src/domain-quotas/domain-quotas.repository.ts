/**
 * The quota tree in MongoDB: nodes changed only through linearizable read-modify-writes (@stratum/revisions: one
 * conditional write on the node's `revision`), because the sums below must never be over-committed:
 * - `dq_quotas`: the cloud (`<region>/default`) and each department (`<region>/<domain_id>`):
 *   `{region, domain_id, quotas: {item: milli}, allocated: {item: milli}, unlimited: {item: count}}`
 * - `dq_project_quotas`: each project (`<region>/<project_id>`): `{region, project_id, domain_id, quotas}`
 *
 * `allocated` is denormalised on the parent: for a department, the sum of its projects' finite quotas; for the cloud,
 * the sum of the departments' finite quotas plus its own projects'. `unlimited` counts the children at -1, so a parent
 * can refuse to become finite while any child is unlimited. Keeping both on the parent lets one read-modify-write of
 * the parent check and reserve headroom. A child's edit in flight is recorded on the parent with its reservation
 * (`pending`, `pending_since`) and on the child once applied or fenced (`edits`); see domain-quotas.edits.ts for the
 * protocol and domain-quotas.integrity.ts for the sums this keeps exact.
 *
 * Values are integer milli-units (quota-items `toMilli`), -1 = unlimited. The registry (regions, departments,
 * projects, usage) is registry/registry.repository.ts; this module knows nothing of it.
 */
import { type Decision, type Revision, type RevisionCache, RevisionedRecords } from '@stratum/revisions';
import type { Db, Document } from 'mongodb';

/** The cloud platform's domain id: the root of every region's tree. */
export const CLOUD_DOMAIN_ID = 'default';

/** item → value in milli-units (-1 unlimited), or a count for `unlimited`. */
export type Values = Record<string, number>;

/** One item's change of a child, in milli-units: the value it was decided on and the value it is set to. */
export interface ItemChange {
  item: string;
  old: number;
  next: number;
}

/** A child's edit in flight, kept on its parent from the reservation until it is settled (domain-quotas.edits.ts). */
export interface PendingEdit {
  /** The child: `d:<domain_id>` (a department under the cloud) or `p:<project_id>`. */
  child: string;
  changes: ItemChange[];
  /** When the reservation was made, in milliseconds since the epoch. */
  at: number;
}

/** What became of an edit on its child: `applied` (its values were written) or `aborted` (fenced off by a rollback). */
export interface EditMark {
  /** The parent's revision at which the edit was seen pending (marks are pruned once it is settled). */
  rev: number;
  outcome: 'applied' | 'aborted';
}

/** Edit id → mark, on a child. */
export type EditMarks = Record<string, EditMark>;

/**
 * A child's marks and, once pruning dropped `aborted` marks (fences) of settled edits, `fenced_upto`: the highest
 * parent revision it pruned at. An edit reserved at or below it and holding no mark is refused in step 2, as its
 * fence may be one of those dropped (domain-quotas.allocation.ts, isFenced).
 */
export interface EditFence {
  edits: EditMarks;
  fenced_upto?: number;
}

/** The cloud's or a department's quota in one region. */
export interface QuotaSetState {
  region: string;
  domain_id: string;
  quotas: Values;
  /** Sum of the children's finite quotas (and of the reservations of edits in flight). */
  allocated: Values;
  /** Number of children whose quota is -1. */
  unlimited: Values;
  /** Edit id → a child's edit in flight under this node. */
  pending?: Record<string, PendingEdit>;
  /** The oldest `at` of `pending` (absent when none), for the reconciler's query. */
  pending_since?: number;
  /** Marks of this node's own edits (as a child of the cloud). */
  edits?: EditMarks;
  /** The parent revision up to which fences were pruned from `edits` (see EditFence). */
  fenced_upto?: number;
}

/** A project's quota in one region (what is allocated to it). */
export interface ProjectQuotaState {
  region: string;
  project_id: string;
  domain_id: string;
  quotas: Values;
  /** Marks of this project's edits. */
  edits?: EditMarks;
  /** The parent revision up to which fences were pruned from `edits` (see EditFence). */
  fenced_upto?: number;
}

/** `<region>/<owner>`: the key of a quota node. */
export const quotaSetId = (region: string, ownerId: string) => `${region}/${ownerId}`;

/** A node that was never written: no quotas, nothing allocated. */
export const emptyQuotaSet = (region: string, domainId: string): QuotaSetState => ({
  region,
  domain_id: domainId,
  quotas: {},
  allocated: {},
  unlimited: {},
});

/** A head document as a revision (a document stored before it was revisioned counts as revision 0). */
function headRevision<S>(head: Document): Revision<S> {
  return { revision: Number.isInteger(head.revision) ? (head.revision as number) : 0, state: RevisionedRecords.stateOf<S>(head) };
}

/** A node's state with every map present (documents stored before `unlimited` existed lack it). */
function withDefaults(rev: Revision<QuotaSetState> | null, region: string, domainId: string): Revision<QuotaSetState> {
  if (!rev) return { revision: 0, state: emptyQuotaSet(region, domainId) };
  return { revision: rev.revision, state: { ...emptyQuotaSet(region, domainId), ...rev.state } };
}

/** The quota nodes of one store: reads (through the cache or linearizable) and conditional changes. */
export class QuotaTreeRepository {
  readonly quotaSets: RevisionedRecords<QuotaSetState>;
  readonly projectQuotas: RevisionedRecords<ProjectQuotaState>;

  /** @param cache serves the head reads of views (C1, C3); every change is offered to it. */
  constructor(db: Db, cache?: RevisionCache) {
    this.quotaSets = new RevisionedRecords<QuotaSetState>(db, 'dq_quotas', { cache });
    this.projectQuotas = new RevisionedRecords<ProjectQuotaState>(db, 'dq_project_quotas');
  }

  /** A department's project quotas by `domain_id`; and no index on `pending_since` (see below). */
  async ensureIndexes(): Promise<void> {
    await this.projectQuotas.heads.createIndex({ domain_id: 1 }, { name: 'domain' });
    // No index on `pending_since`: on FerretDB 2.5 + DocumentDB 0.106, a scan of that (RUM) index failed with
    // "lock BufferContent is not held" once the index had churned under a burst of edits, and kept failing, so the
    // reconciler never ran (docs/stores.md). The quota nodes are few (regions × departments); the pass scans them.
    if (await this.quotaSets.heads.indexExists('pending_since').catch(() => false)) {
      await this.quotaSets.heads.dropIndex('pending_since');
    }
  }

  /** Whether the tree holds no node at all. */
  async isEmpty(): Promise<boolean> {
    for (const col of [this.quotaSets.heads, this.projectQuotas.heads]) {
      if ((await col.findOne({}, { projection: { _id: 1 } })) !== null) return false;
    }
    return true;
  }

  /** Writes a whole node as its next revision (a bulk load: no check, the sums are the caller's). */
  async writeQuotaSet(s: QuotaSetState): Promise<void> {
    await this.quotaSets.update(quotaSetId(s.region, s.domain_id), () => ({ next: s, result: undefined }));
  }

  /** Writes a whole project quota as its next revision (a bulk load: no check). */
  async writeProjectQuota(q: ProjectQuotaState): Promise<void> {
    await this.projectQuotas.update(quotaSetId(q.region, q.project_id), () => ({ next: q, result: undefined }));
  }

  /** Every quota node's head (the cloud's and the departments'), from the store. */
  async allQuotaSets(): Promise<Revision<QuotaSetState>[]> {
    const docs = await this.quotaSets.heads.find({}).toArray();
    return docs.map((d) => withDefaults(headRevision(d), String(d.region), String(d.domain_id)));
  }

  /** Every project quota's head, from the store. */
  async allProjectQuotas(): Promise<Revision<ProjectQuotaState>[]> {
    const docs = await this.projectQuotas.heads.find({}).toArray();
    return docs.map((d) => headRevision<ProjectQuotaState>(d));
  }

  /** The quota nodes of one region under the cloud (departments) and its project quotas, from the store. */
  async childrenOf(
    region: string,
    owner: string,
  ): Promise<{ departments: Revision<QuotaSetState>[]; projects: Revision<ProjectQuotaState>[] }> {
    const [departments, projects] = await Promise.all([
      owner === CLOUD_DOMAIN_ID ? this.quotaSets.heads.find({ region, domain_id: { $ne: CLOUD_DOMAIN_ID } }).toArray() : [],
      this.projectQuotas.heads.find({ region, domain_id: owner }).toArray(),
    ]);
    return {
      departments: departments.map((d) => withDefaults(headRevision(d), region, String(d.domain_id))),
      projects: projects.map((d) => headRevision<ProjectQuotaState>(d)),
    };
  }

  /**
   * Quota nodes holding an edit reserved at or before `before` (ms since the epoch), at most `limit`: a scan of the
   * nodes, on purpose without an index (see ensureIndexes).
   */
  async nodesWithPendingBefore(before: number, limit: number): Promise<Revision<QuotaSetState>[]> {
    const docs = await this.quotaSets.heads
      .find({ pending_since: { $lte: before } }, { singleBatch: true, batchSize: limit, hint: { $natural: 1 } })
      .limit(limit)
      .toArray();
    return docs.map((d) => withDefaults(headRevision(d), String(d.region), String(d.domain_id)));
  }

  /**
   * The items among `items` that some quota node (its quota or allocation) or project quota in `region` holds at a
   * value other than 0: the items a region may not drop from its catalogue.
   */
  async itemsInUse(region: string, items: readonly string[]): Promise<string[]> {
    if (items.length === 0) return [];
    const held = (field: string) => items.map((i) => ({ [`${field}.${i}`]: { $exists: true, $ne: 0 } }));
    const [nodes, projects] = await Promise.all([
      this.quotaSets.heads.find({ region, $or: [...held('quotas'), ...held('allocated')] }).toArray(),
      this.projectQuotas.heads.find({ region, $or: held('quotas') }).toArray(),
    ]);
    const used = new Set<string>();
    for (const d of [...nodes, ...projects] as unknown as { quotas?: Values; allocated?: Values }[]) {
      for (const i of items) if ((d.quotas?.[i] ?? 0) !== 0 || (d.allocated?.[i] ?? 0) !== 0) used.add(i);
    }
    return items.filter((i) => used.has(i));
  }

  /** A quota node through the cache (may lag another replica's change for the cache's lifetime), or its empty state. */
  async peekQuotaSet(region: string, domainId: string): Promise<Revision<QuotaSetState>> {
    return withDefaults(await this.quotaSets.peek(quotaSetId(region, domainId)), region, domainId);
  }

  /** A quota node's current revision from the store (linearizable; never the cache), or its empty state. */
  async readQuotaSet(region: string, domainId: string): Promise<Revision<QuotaSetState>> {
    return withDefaults(await this.quotaSets.read(quotaSetId(region, domainId)), region, domainId);
  }

  /** A project's latest committed quota in a region, or null when it was never given one. */
  readProjectQuota(region: string, projectId: string): Promise<Revision<ProjectQuotaState> | null> {
    return this.projectQuotas.read(quotaSetId(region, projectId));
  }

  /** Linearizable change of a quota node (see RevisionedRecords.update); `decide` sees the empty state when none. */
  changeQuotaSet<R>(region: string, domainId: string, decide: (current: Revision<QuotaSetState>) => Decision<QuotaSetState, R>) {
    return this.quotaSets.update(quotaSetId(region, domainId), (cur) => decide(withDefaults(cur, region, domainId)));
  }

  /** Linearizable change of a project's quota in a region. */
  changeProjectQuota<R>(
    region: string,
    projectId: string,
    domainId: string,
    decide: (current: Revision<ProjectQuotaState>) => Decision<ProjectQuotaState, R>,
  ) {
    return this.projectQuotas.update(quotaSetId(region, projectId), (cur) =>
      decide(cur ?? { revision: 0, state: { region, project_id: projectId, domain_id: domainId, quotas: {} } }),
    );
  }

  /** The heads of every department's quota node in a region whose quota for `item` is -1 (for messages). */
  async unlimitedDepartments(region: string, item: string): Promise<string[]> {
    const docs = await this.quotaSets.heads.find({ region, [`quotas.${item}`]: -1 }).toArray();
    return docs.map((d) => String(d.domain_id)).filter((d) => d !== CLOUD_DOMAIN_ID);
  }
}
