/**
 * Department and cloud platform quotas: the views of C1 and C3, the edit of C2 (docs/api/domain-quota.md), and project
 * allocations, under the allocation model of docs/upstream/domain-quota.md §6: cloud (`default`) → departments →
 * projects, per region and item.
 *
 * - `quotas(d)`: d's quota (-1 unlimited; a department or project without a value has 0, the cloud -1).
 * - `allocated(d)`: the sum of d's children's finite quotas (a department's projects; the cloud's departments and
 *   its own projects). C1 shows it as `usage`.
 * - `limits(d)`: the largest value d's quota may be set to: what the parent leaves free plus d's own share (-1 under
 *   an unlimited parent; -1 for the cloud itself).
 *
 * Edits go through QuotaTreeEdits (domain-quotas.edits.ts), which never over-commits a parent without transactions.
 * The wire shapes are domain-quotas.presenter.ts'; what the views need of the registry is QuotaCatalogue (the registry
 * provides it), so this module does not depend on the registry.
 */

import { AppError } from '@stratum/http-kit';
import {
  canonicalItemName,
  FIXED_ITEMS,
  fromMilli,
  type ItemSpec,
  regionItems,
  SECURE_CONTAINER_PRODUCT,
  toMilli,
  VOLUME_TYPE_ITEMS,
} from '@stratum/quota-items';
import { RevisionConflictError } from '@stratum/revisions';
import type { AuditActor, AuditLog } from '../audit/audit.log';
import {
  domainNotFound,
  etagMismatch,
  noQuotaItems,
  projectNotFound,
  type QuotaErrorDetail,
  quotaItemsNotAcceptable,
  quotaRecordsBusy,
  unknownRegion,
} from '../errors';
import type { QuotaTreeEdits } from './domain-quotas.edits';
import {
  type CloudRegionView,
  cloudRegionView,
  type DepartmentRegionView,
  departmentRegionView,
  etagOf,
  projectRegionView,
} from './domain-quotas.presenter';
import { CLOUD_DOMAIN_ID, type QuotaSetState, type QuotaTreeRepository, type Values } from './domain-quotas.repository';
import type { QuotaPatch } from './domain-quotas.schema';

/** A region's items and installed products. */
export interface Catalog {
  items: Map<string, ItemSpec>;
  products: readonly string[];
}

/**
 * What the views and edits read of the registry the tree stands on (registry/registry.repository.ts provides it):
 * the regions' catalogues, whether a department exists, a project's department, and the usage reported per region.
 */
export interface QuotaCatalogue {
  /** Every region with its volume types and products (the same array while it is reused, see the registry). */
  catalogue(): Promise<readonly { _id: string; volume_types: string[]; products: string[] }[]>;
  departmentExists(domainId: string): Promise<boolean>;
  findProject(projectId: string): Promise<{ domain_id: string } | null>;
  /** Region → actual usage (milli-units) and when it was collected. */
  usageByRegion(): Promise<Map<string, { values: Values; collected_at: string }>>;
}

/** Options of one edit. */
export interface EditOptions {
  actor: AuditActor;
  /** Validate everything, write nothing. */
  dryRun?: boolean;
  /** The ETag the client last saw (If-Match); a mismatch is a 412. */
  ifMatch?: string;
}

/** A department's C1 view and the ETag of what it was built from. */
export interface DepartmentView {
  view: Record<string, DepartmentRegionView>;
  etag: string;
}

/** An edit's region and its items, canonical item name → new value in milli-units (or UNLIMITED). */
export interface PatchRequest {
  region: string;
  items: Map<string, number>;
}

/** Why an item a region does not take is refused: not installed there, an unknown volume type, or unknown. */
function why(item: string, regionItems: Map<string, ItemSpec>, products: readonly string[]): string {
  if (Object.hasOwn(FIXED_ITEMS, item) && FIXED_ITEMS[item]?.area === 'secure_container' && !products.includes(SECURE_CONTAINER_PRODUCT))
    return 'item_unavailable';
  if (Object.keys(VOLUME_TYPE_ITEMS).some((p) => item.startsWith(p)) && !regionItems.has(item)) return 'unknown_volume_type';
  return 'unknown_item';
}

/**
 * Reads a PATCH body's items against its region's catalogue (docs/upstream/domain-quota.md §6.4 steps 3-6); the
 * body's shape was checked by its schema (quotaPatchBody). Every problem of the items is reported at once.
 * @param catalog region → its items and products, for every known region.
 * @throws AppError 400: unknown region; no items; items the region does not take or values they cannot hold (each
 *   problem in `details`; a duplicate is an item given in both spellings).
 */
export function patchRequestOf(patch: QuotaPatch, catalog: Map<string, Catalog>): PatchRequest {
  const { region, ...rest } = patch;
  const regionCat = catalog.get(region);
  if (!regionCat) throw unknownRegion(region);
  if (Object.keys(rest).length === 0) throw noQuotaItems();
  const details: QuotaErrorDetail[] = [];
  const items = new Map<string, number>();
  for (const [given, value] of Object.entries(rest)) {
    const item = canonicalItemName(given);
    const spec = regionCat.items.get(item);
    if (!spec) {
      details.push({ region, item: given, reason: why(item, regionCat.items, regionCat.products) });
      continue;
    }
    if (items.has(item)) {
      details.push({ region, item: given, reason: 'duplicate_item' });
      continue;
    }
    const m = toMilli(value, spec);
    if (!m.ok) {
      details.push({ region, item: given, requested: value, reason: m.reason });
      continue;
    }
    items.set(item, m.milli);
  }
  if (details.length > 0) throw quotaItemsNotAcceptable(region, details);
  return { region, items };
}

export class DomainQuotasService {
  private readonly catalogs = new WeakMap<object, Map<string, Catalog>>();

  constructor(
    private readonly tree: QuotaTreeRepository,
    private readonly registry: QuotaCatalogue,
    private readonly edits: QuotaTreeEdits,
    private readonly audit: AuditLog,
  ) {}

  /** The items of every region, rebuilt only when the repository's catalogue is re-read. */
  async catalog(): Promise<Map<string, Catalog>> {
    const regions = await this.registry.catalogue();
    let built = this.catalogs.get(regions);
    if (!built) {
      built = new Map(
        regions.map((r) => [r._id, { items: regionItems({ volumeTypes: r.volume_types, products: r.products }), products: r.products }]),
      );
      this.catalogs.set(regions, built);
    }
    return built;
  }

  private async requireDepartment(domainId: string): Promise<void> {
    if (!(await this.registry.departmentExists(domainId))) throw domainNotFound(domainId);
  }

  /** @throws AppError 404 when the project is unknown or not in department `domainId`. */
  private async requireProject(projectId: string, domainId: string) {
    const project = await this.registry.findProject(projectId);
    if (!project || project.domain_id !== domainId) throw projectNotFound(projectId);
    return project;
  }

  /** C1: `{<region>: {usage, quotas, limits}}` of a department (or of the cloud when domainId is `default`), and its ETag. */
  async getDepartment(domainId: string): Promise<DepartmentView> {
    await this.requireDepartment(domainId);
    return this.departmentView(domainId, await this.catalog());
  }

  private async departmentView(domainId: string, catalog: Map<string, Catalog>): Promise<DepartmentView> {
    const regions = [...catalog.keys()];
    const [own, cloud] = await Promise.all([
      Promise.all(regions.map((r) => this.tree.peekQuotaSet(r, domainId))),
      Promise.all(regions.map((r) => this.tree.peekQuotaSet(r, CLOUD_DOMAIN_ID))),
    ]);
    const view: Record<string, DepartmentRegionView> = {};
    regions.forEach((region, i) => {
      const items = (catalog.get(region) as Catalog).items.keys();
      view[region] = departmentRegionView(domainId, items, own[i]?.state as QuotaSetState, cloud[i]?.state as QuotaSetState);
    });
    return { view, etag: etagOf(regions.map((r, i) => [r, own[i]?.revision ?? 0])) };
  }

  /** C3: `{<region>: {quotas, allocated, limits, usage, quota_fake, usage_collected_at}}` of the cloud platform. */
  async getCloud(): Promise<Record<string, CloudRegionView>> {
    const [catalog, usage] = await Promise.all([this.catalog(), this.registry.usageByRegion()]);
    const regions = [...catalog.keys()];
    const cloud = await Promise.all(regions.map((r) => this.tree.peekQuotaSet(r, CLOUD_DOMAIN_ID)));
    const out: Record<string, CloudRegionView> = {};
    regions.forEach((region, i) => {
      out[region] = cloudRegionView((catalog.get(region) as Catalog).items.keys(), cloud[i]?.state as QuotaSetState, usage.get(region));
    });
    return out;
  }

  /**
   * Runs an edit, recording a refusal (4xx other than 404) in the audit log unless it is a dry run, and turning
   * contended records into a 503.
   */
  private async audited<T>(
    opts: EditOptions,
    target: { domainId: string; region: () => string; projectId?: string },
    edit: () => Promise<T>,
  ): Promise<T> {
    try {
      return await edit();
    } catch (e) {
      if (e instanceof RevisionConflictError) throw quotaRecordsBusy();
      if (e instanceof AppError && !opts.dryRun && e.status >= 400 && e.status < 500 && e.status !== 404) {
        await this.audit.refused(opts.actor, target.domainId, target.region(), e, target.projectId);
      }
      throw e;
    }
  }

  /**
   * C2: sets the named items of one region of a department (or of the cloud), all or nothing, and records every
   * accepted or refused item in the audit log.
   * @returns the C1 view after the edit (for a dry run: as it would be) and its ETag.
   * @throws AppError 404 unknown department; 400 malformed body (all problems); 409 hierarchy conflicts (all, with
   *   min/max); 412 If-Match mismatch; 503 when the records stayed contended.
   */
  patch(domainId: string, patch: QuotaPatch, opts: EditOptions): Promise<DepartmentView> {
    return this.audited(opts, { domainId, region: () => patch.region }, async () => {
      await this.requireDepartment(domainId);
      const catalog = await this.catalog();
      const req = patchRequestOf(patch, catalog);
      if (opts.ifMatch !== undefined) await this.checkEtag(domainId, [...catalog.keys()], opts.ifMatch);
      const dryRun = !!opts.dryRun;
      const changes =
        domainId === CLOUD_DOMAIN_ID
          ? await this.edits.cloud(req.region, req.items, dryRun)
          : await this.edits.department(req.region, domainId, req.items, dryRun);
      if (!dryRun) await this.audit.accepted(opts.actor, domainId, req.region, changes);
      const after = await this.departmentView(domainId, catalog);
      // A dry run's view: the current one with the requested quotas (usage and limits as they are now).
      if (dryRun) for (const c of changes) (after.view[req.region] as DepartmentRegionView).quotas[c.item] = fromMilli(c.next);
      return after;
    });
  }

  private async checkEtag(domainId: string, regions: string[], ifMatch: string): Promise<void> {
    const revs = await Promise.all(regions.map(async (r) => [r, (await this.tree.readQuotaSet(r, domainId)).revision] as [string, number]));
    const given = ifMatch.split(',').map((s) => s.trim());
    if (!given.includes('*') && !given.includes(etagOf(revs))) {
      throw etagMismatch();
    }
  }

  /**
   * A project's allocation in one region (what its department has handed it), checked against its department (or
   * the cloud, for a project of the `default` domain) like any child.
   * @throws AppError 404 unknown project; 400 malformed body; 409 conflicts; 503.
   */
  async setProjectQuotas(projectId: string, domainId: string, patch: QuotaPatch, opts: EditOptions): Promise<Record<string, Values>> {
    await this.requireProject(projectId, domainId);
    const catalog = await this.catalog();
    const req = patchRequestOf(patch, catalog);
    return this.audited(opts, { domainId, region: () => req.region, projectId }, async () => {
      const changes = await this.edits.project(req.region, projectId, domainId, req.items, !!opts.dryRun);
      if (!opts.dryRun) await this.audit.accepted(opts.actor, domainId, req.region, changes, projectId);
      return this.projectView(projectId, catalog);
    });
  }

  /** A project's allocations: `{<region>: {item: value}}` (items it was never given are 0). */
  async getProjectQuotas(projectId: string, domainId: string): Promise<Record<string, Values>> {
    await this.requireProject(projectId, domainId);
    return this.projectView(projectId, await this.catalog());
  }

  private async projectView(projectId: string, catalog: Map<string, Catalog>): Promise<Record<string, Values>> {
    const regions = [...catalog.keys()];
    const quotas = await Promise.all(regions.map((r) => this.tree.readProjectQuota(r, projectId)));
    const out: Record<string, Values> = {};
    regions.forEach((region, i) => {
      out[region] = projectRegionView((catalog.get(region) as Catalog).items.keys(), quotas[i]?.state.quotas);
    });
    return out;
  }
}
