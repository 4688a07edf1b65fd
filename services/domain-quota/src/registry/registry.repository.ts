/**
 * The department quota registry in MongoDB.
 *
 * Plain collections (one writer at a time per document is enough; last write wins):
 * - `dq_regions`:  `{_id: region, volume_types: [name], products: [name]}`
 * - `dq_departments`: `{_id: domain_id, name}` (`default` is the cloud platform)
 * - `dq_projects`: `{_id: project_id, domain_id, name}`
 * - `dq_usage`: `{_id: region, values: {item: milli}, collected_at}` (actual use reported by the services)
 * - `dq_audit`: one document per (attempted) change of one item, see audit.ts
 *
 * Quota nodes, changed only through linearizable read-modify-writes (@stratum/revisions: one conditional write on
 * the node's `revision`), because the sums below must never be over-committed:
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
 * Values are integer milli-units (quota-items `toMilli`), -1 = unlimited.
 */
import { type Decision, type Revision, type RevisionCache, RevisionedRecords } from '@stratum/revisions';
import type { Collection, Db, Document } from 'mongodb';

export const CLOUD_DOMAIN_ID = 'default';

export type Values = Record<string, number>;

export interface RegionDoc {
  _id: string;
  volume_types: string[];
  products: string[];
  /** Cinder volume type id → name, for types learnt from volume_type.* events (a rename carries only the id). */
  volume_type_ids?: Record<string, string>;
}
export interface DepartmentDoc {
  _id: string;
  name: string;
}
export interface ProjectDoc {
  _id: string;
  domain_id: string;
  name: string;
}
export interface UsageDoc {
  _id: string;
  values: Values;
  collected_at: string;
}

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

export class RegistryRepository {
  readonly regions: Collection<RegionDoc>;
  readonly departments: Collection<DepartmentDoc>;
  readonly projects: Collection<ProjectDoc>;
  readonly usage: Collection<UsageDoc>;
  readonly quotaSets: RevisionedRecords<QuotaSetState>;
  readonly projectQuotas: RevisionedRecords<ProjectQuotaState>;

  /** Regions, and departments known to exist, as read within the last `catalogTtlMs` (see catalogue()). */
  private regionsMemo: { at: number; value: Promise<RegionDoc[]> } | null = null;
  private readonly knownDepartments = new Map<string, number>();

  /**
   * @param cache serves the head reads of views (C1, C3); every change is offered to it.
   * @param catalogTtlMs how long this process reuses the region list and a department's existence; its own changes
   *   apply at once, another replica's within this time.
   */
  constructor(
    db: Db,
    cache?: RevisionCache,
    private readonly catalogTtlMs = 2000,
  ) {
    this.regions = db.collection('dq_regions');
    this.departments = db.collection('dq_departments');
    this.projects = db.collection('dq_projects');
    this.usage = db.collection('dq_usage');
    this.quotaSets = new RevisionedRecords<QuotaSetState>(db, 'dq_quotas', { cache });
    this.projectQuotas = new RevisionedRecords<ProjectQuotaState>(db, 'dq_project_quotas');
  }

  async ensureIndexes(): Promise<void> {
    await this.projects.createIndex({ domain_id: 1 }, { name: 'domain' });
    await this.projectQuotas.heads.createIndex({ domain_id: 1 }, { name: 'domain' });
    // No index on `pending_since`: on FerretDB 2.5 + DocumentDB 0.106, a scan of that (RUM) index failed with
    // "lock BufferContent is not held" once the index had churned under a burst of edits, and kept failing, so the
    // reconciler never ran (docs/stores.md). The quota nodes are few (regions × departments); the pass scans them.
    if (await this.quotaSets.heads.indexExists('pending_since').catch(() => false)) {
      await this.quotaSets.heads.dropIndex('pending_since');
    }
  }

  /** Whether the registry holds anything (a region, department, project, quota node or usage). */
  async isEmpty(): Promise<boolean> {
    const cols: Collection<never>[] = [
      this.regions,
      this.departments,
      this.projects,
      this.usage,
      this.quotaSets.heads,
      this.projectQuotas.heads,
    ] as unknown as Collection<never>[];
    for (const col of cols) if ((await col.findOne({}, { projection: { _id: 1 } })) !== null) return false;
    return true;
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

  listRegions(): Promise<RegionDoc[]> {
    return this.regions.find({}).sort({ _id: 1 }).toArray();
  }

  /** The regions as listRegions, reused for `catalogTtlMs`: the catalogue every view and edit starts from. */
  catalogue(): Promise<RegionDoc[]> {
    const now = Date.now();
    if (!this.regionsMemo || now - this.regionsMemo.at > this.catalogTtlMs) {
      const value = this.listRegions();
      this.regionsMemo = { at: now, value };
      value.catch(() => {
        if (this.regionsMemo?.value === value) this.regionsMemo = null;
      });
    }
    return this.regionsMemo.value;
  }

  /** Whether a department exists; a yes is reused for `catalogTtlMs` (a no is always asked again). */
  async departmentExists(domainId: string): Promise<boolean> {
    const seen = this.knownDepartments.get(domainId);
    if (seen !== undefined && Date.now() - seen <= this.catalogTtlMs) return true;
    const found = (await this.findDepartment(domainId)) !== null;
    if (found) this.knownDepartments.set(domainId, Date.now());
    return found;
  }

  findRegion(region: string): Promise<RegionDoc | null> {
    return this.regions.findOne({ _id: region });
  }

  async putRegion(doc: RegionDoc): Promise<void> {
    await this.regions.replaceOne({ _id: doc._id }, doc, { upsert: true });
    this.regionsMemo = null;
  }

  async deleteRegion(region: string): Promise<void> {
    await this.regions.deleteOne({ _id: region });
    this.regionsMemo = null;
  }

  listDepartments(): Promise<DepartmentDoc[]> {
    return this.departments.find({}).sort({ _id: 1 }).toArray();
  }

  async putDepartment(doc: DepartmentDoc): Promise<void> {
    await this.departments.replaceOne({ _id: doc._id }, doc, { upsert: true });
  }

  async deleteDepartment(domainId: string): Promise<void> {
    await this.departments.deleteOne({ _id: domainId });
    this.knownDepartments.delete(domainId);
  }

  /** Projects, of one department when `domainId` is given, by id. */
  listProjects(domainId?: string): Promise<ProjectDoc[]> {
    return this.projects
      .find(domainId === undefined ? {} : { domain_id: domainId })
      .sort({ _id: 1 })
      .toArray();
  }

  async putProject(doc: ProjectDoc): Promise<void> {
    await this.projects.replaceOne({ _id: doc._id }, doc, { upsert: true });
  }

  async deleteProject(projectId: string): Promise<void> {
    await this.projects.deleteOne({ _id: projectId });
  }

  async putUsage(doc: UsageDoc): Promise<void> {
    await this.usage.replaceOne({ _id: doc._id }, doc, { upsert: true });
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

  findDepartment(domainId: string): Promise<DepartmentDoc | null> {
    return this.departments.findOne({ _id: domainId });
  }

  findProject(projectId: string): Promise<ProjectDoc | null> {
    return this.projects.findOne({ _id: projectId });
  }

  async usageByRegion(): Promise<Map<string, UsageDoc>> {
    const docs = await this.usage.find({}).toArray();
    return new Map(docs.map((d) => [d._id, d]));
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
