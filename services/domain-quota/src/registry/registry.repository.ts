/**
 * The department quota registry in MongoDB.
 *
 * - `dq_regions`:  `{_id: region, volume_types: [name], products: [name]}`
 * - `dq_departments`: `{_id: domain_id, name}` (`default` is the cloud platform)
 * - `dq_projects`: `{_id: project_id, domain_id, name}`
 * - `dq_quotas`: one document per (region, department): `{_id: "<region>/<domain_id>", region, domain_id,
 *   quotas: {item: milli}, allocated: {item: milli}}`. `allocated` is denormalised: for a department, the sum of its
 *   projects' allocations; for `default` (the cloud), the sum of the departments' quotas plus its own projects'.
 *   Keeping it on the parent document lets one conditional update check and reserve headroom atomically.
 * - `dq_project_quotas`: `{_id: "<region>/<project_id>", region, project_id, domain_id, quotas: {item: milli}}`
 * - `dq_usage`: `{_id: region, values: {item: milli}, collected_at}` (actual use reported by the services)
 *
 * Values are integer milli-units (quota-items `toMilli`), -1 = unlimited.
 */
import type { Collection, Db, Filter, UpdateFilter } from 'mongodb';

export const CLOUD_DOMAIN_ID = 'default';

export interface RegionDoc {
  _id: string;
  volume_types: string[];
  products: string[];
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
export interface QuotaSetDoc {
  _id: string;
  region: string;
  domain_id: string;
  quotas: Record<string, number>;
  allocated: Record<string, number>;
}
export interface ProjectQuotaDoc {
  _id: string;
  region: string;
  project_id: string;
  domain_id: string;
  quotas: Record<string, number>;
}
export interface UsageDoc {
  _id: string;
  values: Record<string, number>;
  collected_at: string;
}

export const quotaSetId = (region: string, domainId: string) => `${region}/${domainId}`;

export class RegistryRepository {
  readonly regions: Collection<RegionDoc>;
  readonly departments: Collection<DepartmentDoc>;
  readonly projects: Collection<ProjectDoc>;
  readonly quotaSets: Collection<QuotaSetDoc>;
  readonly projectQuotas: Collection<ProjectQuotaDoc>;
  readonly usage: Collection<UsageDoc>;

  constructor(db: Db) {
    this.regions = db.collection('dq_regions');
    this.departments = db.collection('dq_departments');
    this.projects = db.collection('dq_projects');
    this.quotaSets = db.collection('dq_quotas');
    this.projectQuotas = db.collection('dq_project_quotas');
    this.usage = db.collection('dq_usage');
  }

  async ensureIndexes(): Promise<void> {
    await this.quotaSets.createIndex({ domain_id: 1, region: 1 }, { name: 'domain_region' });
    await this.projectQuotas.createIndex({ domain_id: 1, region: 1 }, { name: 'domain_region' });
    await this.projects.createIndex({ domain_id: 1 }, { name: 'domain' });
  }

  listRegions(): Promise<RegionDoc[]> {
    return this.regions.find({}).sort({ _id: 1 }).toArray();
  }

  findDepartment(domainId: string): Promise<DepartmentDoc | null> {
    return this.departments.findOne({ _id: domainId });
  }

  /** The quota sets of one department (or of the cloud), by region. */
  async quotaSetsOf(domainId: string): Promise<Map<string, QuotaSetDoc>> {
    const docs = await this.quotaSets.find({ domain_id: domainId }).toArray();
    return new Map(docs.map((d) => [d.region, d]));
  }

  async usageByRegion(): Promise<Map<string, UsageDoc>> {
    const docs = await this.usage.find({}).toArray();
    return new Map(docs.map((d) => [d._id, d]));
  }

  /** Departments in a region whose quota for `item` is unlimited (-1). */
  async unlimitedDepartments(region: string, item: string): Promise<string[]> {
    const docs = await this.quotaSets
      .find({ region, domain_id: { $ne: CLOUD_DOMAIN_ID }, [`quotas.${item}`]: -1 } as Filter<QuotaSetDoc>)
      .project<{ domain_id: string }>({ domain_id: 1 })
      .toArray();
    return docs.map((d) => d.domain_id);
  }

  /**
   * One conditional update of a quota set: applies `update` only if `guard` still holds (compare-and-set).
   * @returns true when the document matched and was changed.
   */
  async compareAndSet(id: string, guard: Filter<QuotaSetDoc>, update: UpdateFilter<QuotaSetDoc>): Promise<boolean> {
    const r = await this.quotaSets.updateOne({ _id: id, ...guard }, update);
    return r.matchedCount === 1;
  }

  /**
   * The quota set of one department (or the cloud) in one region, created empty when missing (a department added
   * after the bootstrap), so compare-and-set updates always have a document to match.
   */
  async quotaSet(region: string, domainId: string): Promise<QuotaSetDoc> {
    const _id = quotaSetId(region, domainId);
    const found = await this.quotaSets.findOne({ _id });
    if (found) return found;
    const created = await this.quotaSets.findOneAndUpdate(
      { _id },
      { $setOnInsert: { region, domain_id: domainId, quotas: {}, allocated: {} } },
      { upsert: true, returnDocument: 'after' },
    );
    return created as QuotaSetDoc;
  }
}
