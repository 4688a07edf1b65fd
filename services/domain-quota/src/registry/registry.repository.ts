/**
 * The department quota registry in MongoDB: what the quota tree stands on.
 *
 * Plain collections (one writer at a time per document is enough; last write wins):
 * - `dq_regions`:  `{_id: region, volume_types: [name], products: [name]}`
 * - `dq_departments`: `{_id: domain_id, name}` (`default` is the cloud platform)
 * - `dq_projects`: `{_id: project_id, domain_id, name}`
 * - `dq_usage`: `{_id: region, values: {item: milli}, collected_at}` (actual use reported by the services)
 * - `dq_project_usage`: `{_id: "<project_id>/<region>", project_id, region, values: {item: milli}, collected_at}`
 *   (one project's actual use in one region; a department's is the sum over its projects, joined with `dq_projects`
 *   when read, so a project that moves department takes its reports along without a rewrite)
 *
 * The quota nodes themselves are the tree's (domain-quotas/domain-quotas.repository.ts, `tree` here); the audit log
 * is audit/audit.log.ts. Values are integer milli-units (quota-items `toMilli`).
 */
import type { Collection, Db } from 'mongodb';
import { QuotaTreeRepository, type Values } from '../domain-quotas/domain-quotas.repository';
import type { QuotaCatalogue } from '../domain-quotas/domain-quotas.service';

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
/** One project's report in one region (`_id` is `<project_id>/<region>`: region names have no slash). */
export interface ProjectUsageDoc {
  _id: string;
  project_id: string;
  region: string;
  values: Values;
  collected_at: string;
}

/** The `_id` of a project's report in a region. */
export const projectUsageId = (projectId: string, region: string) => `${projectId}/${region}`;

/** The registry's collections, and the catalogue the department quota views and edits read (QuotaCatalogue). */
export class RegistryRepository implements QuotaCatalogue {
  readonly regions: Collection<RegionDoc>;
  readonly departments: Collection<DepartmentDoc>;
  readonly projects: Collection<ProjectDoc>;
  readonly usage: Collection<UsageDoc>;
  readonly projectUsage: Collection<ProjectUsageDoc>;

  /** Regions, and departments known to exist, as read within the last `catalogTtlMs` (see catalogue()). */
  private regionsMemo: { at: number; value: Promise<RegionDoc[]> } | null = null;
  private readonly knownDepartments = new Map<string, number>();

  /**
   * @param tree the quota nodes of the same store (a bulk load and a deletion read and change them too).
   * @param catalogTtlMs how long this process reuses the region list and a department's existence; its own changes
   *   apply at once, another replica's within this time.
   */
  constructor(
    db: Db,
    readonly tree: QuotaTreeRepository = new QuotaTreeRepository(db),
    private readonly catalogTtlMs = 2000,
  ) {
    this.regions = db.collection('dq_regions');
    this.departments = db.collection('dq_departments');
    this.projects = db.collection('dq_projects');
    this.usage = db.collection('dq_usage');
    this.projectUsage = db.collection('dq_project_usage');
  }

  /** The registry's indexes and the tree's. */
  async ensureIndexes(): Promise<void> {
    await this.projects.createIndex({ domain_id: 1 }, { name: 'domain' });
    // A department's read: its projects' reports (project_id $in the department's projects).
    await this.projectUsage.createIndex({ project_id: 1, region: 1 }, { name: 'project' });
    await this.tree.ensureIndexes();
  }

  /** Whether the registry holds anything (a region, department, project, usage report or quota node). */
  async isEmpty(): Promise<boolean> {
    const one = { projection: { _id: 1 } };
    const finds = [
      () => this.regions.findOne({}, one),
      () => this.departments.findOne({}, one),
      () => this.projects.findOne({}, one),
      () => this.usage.findOne({}, one),
      () => this.projectUsage.findOne({}, one),
    ];
    for (const find of finds) if ((await find()) !== null) return false;
    return this.tree.isEmpty();
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

  /** Deletes a project and its usage reports (the reports first: a failure in between leaves no orphan report). */
  async deleteProject(projectId: string): Promise<void> {
    await this.projectUsage.deleteMany({ project_id: projectId });
    await this.projects.deleteOne({ _id: projectId });
  }

  /** Stores a project's report in a region. @returns whether it was new (no earlier report of that project there). */
  async putProjectUsage(doc: ProjectUsageDoc): Promise<boolean> {
    const r = await this.projectUsage.replaceOne({ _id: doc._id }, doc, { upsert: true });
    return r.upsertedCount > 0;
  }

  async deleteProjectUsage(id: string): Promise<void> {
    await this.projectUsage.deleteOne({ _id: id });
  }

  /** The reports of the given projects, in every region. */
  projectUsageOf(projectIds: readonly string[]): Promise<ProjectUsageDoc[]> {
    if (projectIds.length === 0) return Promise.resolve([]);
    return this.projectUsage
      .find({ project_id: { $in: [...projectIds] } })
      .sort({ _id: 1 })
      .toArray();
  }

  async putUsage(doc: UsageDoc): Promise<void> {
    await this.usage.replaceOne({ _id: doc._id }, doc, { upsert: true });
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
}
