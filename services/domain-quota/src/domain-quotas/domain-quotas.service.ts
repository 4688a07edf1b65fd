/**
 * Department and cloud platform quotas: the views of C1 and C3 and the edit of C2, under the allocation model of
 * reference/domain-quota.md §6: cloud (`default`) → departments → projects, per region and item.
 *
 * - `quotas(d)`: d's quota (-1 unlimited; a department without a value has 0, the cloud -1).
 * - `allocated(d)`: for a department, the sum of its projects' quotas; for the cloud, the sum of department quotas
 *   (plus its own projects'). Kept denormalised on each quota set document.
 * - `limits(d)`: the largest value d's quota may be set to: what the cloud leaves free plus d's own quota
 *   (-1 when the cloud is unlimited; -1 for the cloud itself).
 *
 * Edits never use transactions (FerretDB has none): headroom is reserved on the cloud document with one conditional
 * update that pins the cloud's quota and bounds its allocation, then the department's value is set with one
 * conditional update that pins its old value and bounds its projects' allocation; a failed step undoes the earlier
 * ones and the edit is retried on fresh values.
 */
import { AppError } from '@stratum/http-kit';
import { fromMilli, type ItemSpec, regionItems, UNLIMITED } from '@stratum/quota-items';
import type { Filter } from 'mongodb';
import { CLOUD_DOMAIN_ID, type QuotaSetDoc, quotaSetId, type RegistryRepository } from '../registry/registry.repository';
import { parsePatch, type QuotaErrorDetail } from './domain-quotas.schema';

type Values = Record<string, number>;
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
}

interface Catalog {
  items: Map<string, ItemSpec>;
  products: readonly string[];
}

/** Contribution of a quota value to its parent's allocation: unlimited consumes no finite headroom. */
const contribution = (v: number) => (v === UNLIMITED ? 0 : v);
/** Matches a stored value equal to `v`, where a missing value means `missingAs`. */
const pinned = (v: number, missingAs: number): unknown => (v === missingAs ? { $in: [v, null] } : v);
/** Matches a stored number not above `v` (a missing value counts as 0). */
const atMost = (v: number): unknown => ({ $not: { $gt: v } });

const MAX_ATTEMPTS = 25;

export class DomainQuotasService {
  constructor(private readonly repo: RegistryRepository) {}

  private async catalog(): Promise<Map<string, Catalog>> {
    const regions = await this.repo.listRegions();
    return new Map(
      regions.map((r) => [r._id, { items: regionItems({ volumeTypes: r.volume_types, products: r.products }), products: r.products }]),
    );
  }

  private async requireDepartment(domainId: string): Promise<void> {
    if (!(await this.repo.findDepartment(domainId))) throw new AppError(404, `Could not find domain: ${domainId}.`);
  }

  /** C1: `{<region>: {usage, quotas, limits}}` of a department (or of the cloud when domainId is `default`). */
  async getDepartment(domainId: string): Promise<Record<string, DepartmentRegionView>> {
    await this.requireDepartment(domainId);
    return this.departmentView(domainId, await this.catalog());
  }

  private async departmentView(domainId: string, catalog: Map<string, Catalog>): Promise<Record<string, DepartmentRegionView>> {
    const [own, cloud] = await Promise.all([this.repo.quotaSetsOf(domainId), this.repo.quotaSetsOf(CLOUD_DOMAIN_ID)]);
    const out: Record<string, DepartmentRegionView> = {};
    for (const [region, cat] of catalog) {
      const view: DepartmentRegionView = { usage: {}, quotas: {}, limits: {} };
      const dq = own.get(region);
      const cq = cloud.get(region);
      for (const item of cat.items.keys()) {
        const quota = this.quotaOf(dq, item, domainId);
        view.usage[item] = fromMilli(dq?.allocated[item] ?? 0);
        view.quotas[item] = fromMilli(quota);
        view.limits[item] = fromMilli(domainId === CLOUD_DOMAIN_ID ? UNLIMITED : this.limitOf(cq, item, quota));
      }
      out[region] = view;
    }
    return out;
  }

  /** C3: `{<region>: {quotas, allocated, limits, usage, quota_fake}}` of the cloud platform. */
  async getCloud(): Promise<Record<string, CloudRegionView>> {
    const [catalog, cloud, usage] = await Promise.all([this.catalog(), this.repo.quotaSetsOf(CLOUD_DOMAIN_ID), this.repo.usageByRegion()]);
    const out: Record<string, CloudRegionView> = {};
    for (const [region, cat] of catalog) {
      const cq = cloud.get(region);
      const u = usage.get(region);
      const view: CloudRegionView = { quotas: {}, allocated: {}, limits: {}, usage: {}, quota_fake: {} };
      for (const item of cat.items.keys()) {
        const quota = fromMilli(this.quotaOf(cq, item, CLOUD_DOMAIN_ID));
        view.quotas[item] = quota;
        view.allocated[item] = fromMilli(cq?.allocated[item] ?? 0);
        view.limits[item] = -1;
        view.usage[item] = fromMilli(u?.values[item] ?? 0);
        view.quota_fake[item] = quota;
      }
      out[region] = view;
    }
    return out;
  }

  private quotaOf(doc: QuotaSetDoc | undefined, item: string, domainId: string): number {
    return doc?.quotas[item] ?? (domainId === CLOUD_DOMAIN_ID ? UNLIMITED : 0);
  }

  /** limits(d) = cloud quota − cloud allocated + d's own contribution; -1 when the cloud is unlimited. */
  private limitOf(cloud: QuotaSetDoc | undefined, item: string, own: number): number {
    const cloudQuota = this.quotaOf(cloud, item, CLOUD_DOMAIN_ID);
    if (cloudQuota === UNLIMITED) return UNLIMITED;
    return cloudQuota - (cloud?.allocated[item] ?? 0) + contribution(own);
  }

  /**
   * C2: sets the named items of one region, all or nothing.
   * @throws AppError 404 unknown department; 400 malformed body (all problems); 409 hierarchy conflicts (all, with
   *   min/max); 409 when concurrent edits kept the change from applying after many attempts.
   */
  async patch(domainId: string, body: unknown): Promise<Record<string, DepartmentRegionView>> {
    await this.requireDepartment(domainId);
    const catalog = await this.catalog();
    const req = parsePatch(body, catalog);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const applied =
        domainId === CLOUD_DOMAIN_ID
          ? await this.tryPatchCloud(req.region, req.items)
          : await this.tryPatchDepartment(domainId, req.region, req.items);
      if (applied) return this.departmentView(domainId, catalog);
      await new Promise((r) => setTimeout(r, Math.random() * 5 * (attempt + 1)));
    }
    throw new AppError(409, 'Concurrent updates kept this change from applying; retry.');
  }

  private conflict(details: QuotaErrorDetail[]): AppError {
    const msg = details
      .map((d) => {
        switch (d.reason) {
          case 'exceeds_limit':
            return `Quota for ${d.item} in region ${d.region} cannot be ${d.requested}: at most ${d.max} is available from the cloud platform quota.`;
          case 'below_allocated':
            return `Quota for ${d.item} in region ${d.region} cannot be ${d.requested}: ${d.min} is already allocated to projects.`;
          case 'unlimited_under_finite_parent':
            return `Quota for ${d.item} in region ${d.region} cannot be unlimited while the cloud platform quota is finite.`;
          case 'unlimited_children':
            return `Quota for ${d.item} in region ${d.region} cannot be finite while a department's quota is unlimited.`;
          default:
            return `Quota for ${d.item} in region ${d.region} cannot be ${d.requested}.`;
        }
      })
      .join(' ');
    return new AppError(409, msg, details);
  }

  /** One attempt at a department edit. @returns false when a concurrent change interfered (retry). */
  private async tryPatchDepartment(domainId: string, region: string, items: Map<string, number>): Promise<boolean> {
    const cloudId = quotaSetId(region, CLOUD_DOMAIN_ID);
    const deptId = quotaSetId(region, domainId);
    const [cloud, dept] = await Promise.all([this.repo.quotaSet(region, CLOUD_DOMAIN_ID), this.repo.quotaSet(region, domainId)]);
    const details: QuotaErrorDetail[] = [];
    const changes: { item: string; old: number; next: number; cloudQuota: number; delta: number }[] = [];
    for (const [item, next] of items) {
      const old = this.quotaOf(dept, item, domainId);
      const cloudQuota = this.quotaOf(cloud, item, CLOUD_DOMAIN_ID);
      const allocated = dept?.allocated[item] ?? 0;
      const limit = this.limitOf(cloud, item, old);
      if (next === old) continue;
      const base = { region, item, requested: fromMilli(next), current: fromMilli(old) };
      if (next === UNLIMITED && cloudQuota !== UNLIMITED) {
        details.push({ ...base, reason: 'unlimited_under_finite_parent' });
      } else if (cloudQuota !== UNLIMITED && next > old && next > limit) {
        details.push({ ...base, min: fromMilli(allocated), max: fromMilli(limit), reason: 'exceeds_limit' });
      } else if (next !== UNLIMITED && old !== UNLIMITED && next < old && next < allocated) {
        details.push({ ...base, min: fromMilli(allocated), max: fromMilli(limit), reason: 'below_allocated' });
      } else if (next !== UNLIMITED && old === UNLIMITED && next < allocated) {
        details.push({ ...base, min: fromMilli(allocated), reason: 'below_allocated' });
      }
      changes.push({ item, old, next, cloudQuota, delta: contribution(next) - contribution(old) });
    }
    if (details.length > 0) throw this.conflict(details);
    if (changes.length === 0) return true;

    // 1. Reserve increases on the cloud, pinning its quota (and bounding its allocation when finite).
    const reserved: typeof changes = [];
    const undo = async () => {
      for (const c of reserved) await this.repo.compareAndSet(cloudId, {}, { $inc: { [`allocated.${c.item}`]: -c.delta } });
    };
    for (const c of changes) {
      if (c.delta <= 0 && c.next !== UNLIMITED) continue;
      const guard: Record<string, unknown> = { [`quotas.${c.item}`]: pinned(c.cloudQuota, UNLIMITED) };
      if (c.cloudQuota !== UNLIMITED) guard[`allocated.${c.item}`] = atMost(c.cloudQuota - c.delta);
      const ok = await this.repo.compareAndSet(cloudId, guard as Filter<QuotaSetDoc>, {
        $inc: { [`allocated.${c.item}`]: Math.max(c.delta, 0) },
      });
      if (!ok) {
        await undo();
        return false;
      }
      if (c.delta > 0) reserved.push(c);
    }

    // 2. Set the department's values, pinning the old values and bounding its projects' allocation.
    const guard: Record<string, unknown> = {};
    const set: Record<string, number> = {};
    for (const c of changes) {
      guard[`quotas.${c.item}`] = pinned(c.old, 0);
      if (c.next !== UNLIMITED) guard[`allocated.${c.item}`] = atMost(c.next);
      set[`quotas.${c.item}`] = c.next;
    }
    if (!(await this.repo.compareAndSet(deptId, guard as Filter<QuotaSetDoc>, { $set: set }))) {
      await undo();
      return false;
    }

    // 3. Release decreases on the cloud (after the department no longer holds them).
    for (const c of changes) {
      if (c.delta < 0) await this.repo.compareAndSet(cloudId, {}, { $inc: { [`allocated.${c.item}`]: c.delta } });
    }
    return true;
  }

  /** One attempt at a cloud edit. @returns false when a concurrent change interfered (retry). */
  private async tryPatchCloud(region: string, items: Map<string, number>): Promise<boolean> {
    const cloudId = quotaSetId(region, CLOUD_DOMAIN_ID);
    const cloud = await this.repo.quotaSet(region, CLOUD_DOMAIN_ID);
    const details: QuotaErrorDetail[] = [];
    const guard: Record<string, unknown> = {};
    const set: Record<string, number> = {};
    for (const [item, next] of items) {
      const old = this.quotaOf(cloud, item, CLOUD_DOMAIN_ID);
      const allocated = cloud?.allocated[item] ?? 0;
      if (next === old) continue;
      const base = { region, item, requested: fromMilli(next), current: fromMilli(old) };
      if (next !== UNLIMITED && (old === UNLIMITED || next < old) && next < allocated) {
        details.push({ ...base, min: fromMilli(allocated), reason: 'below_allocated' });
        continue;
      }
      if (next !== UNLIMITED && old === UNLIMITED) {
        const unlimited = await this.repo.unlimitedDepartments(region, item);
        if (unlimited.length > 0) {
          details.push({ ...base, reason: 'unlimited_children', departments: unlimited } as QuotaErrorDetail);
          continue;
        }
      }
      guard[`quotas.${item}`] = pinned(old, UNLIMITED);
      if (next !== UNLIMITED) guard[`allocated.${item}`] = atMost(next);
      set[`quotas.${item}`] = next;
    }
    if (details.length > 0) throw this.conflict(details);
    if (Object.keys(set).length === 0) return true;
    return this.repo.compareAndSet(cloudId, guard as Filter<QuotaSetDoc>, { $set: set });
  }
}
