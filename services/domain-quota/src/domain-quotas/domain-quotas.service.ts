/**
 * Department and cloud platform quotas: the views of C1 and C3, the edit of C2, and project allocations, under the
 * allocation model of reference/domain-quota.md §6: cloud (`default`) → departments → projects, per region and item.
 *
 * - `quotas(d)`: d's quota (-1 unlimited; a department or project without a value has 0, the cloud -1).
 * - `allocated(d)`: the sum of d's children's finite quotas (a department's projects; the cloud's departments and
 *   its own projects). C1 shows it as `usage`.
 * - `limits(d)`: the largest value d's quota may be set to: what the parent leaves free plus d's own share (-1 under
 *   an unlimited parent; -1 for the cloud itself).
 *
 * Edits go through QuotaTreeEdits (domain-quotas.edits.ts), which never over-commits a parent without transactions.
 */
import { createHash } from 'node:crypto';
import { AppError } from '@stratum/http-kit';
import { fromMilli, type ItemSpec, regionItems, UNLIMITED } from '@stratum/quota-items';
import { RevisionConflictError } from '@stratum/revisions';
import type { AuditActor, AuditLog } from '../audit/audit.log';
import { CLOUD_DOMAIN_ID, type QuotaSetState, type RegistryRepository, type Values } from '../registry/registry.repository';
import { limitOf, parentItem, quotaOf } from './domain-quotas.allocation';
import type { QuotaTreeEdits } from './domain-quotas.edits';
import { parsePatch } from './domain-quotas.schema';

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
  usage_collected_at?: string;
}

export interface Catalog {
  items: Map<string, ItemSpec>;
  products: readonly string[];
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

/** The strong ETag of a department's quotas: its nodes' revisions per region. */
export function etagOf(revisions: [string, number][]): string {
  const text = revisions.map(([r, n]) => `${r}:${n}`).join(',');
  return `"${createHash('sha256').update(text).digest('hex').slice(0, 32)}"`;
}

export class DomainQuotasService {
  private readonly catalogs = new WeakMap<object, Map<string, Catalog>>();

  constructor(
    private readonly repo: RegistryRepository,
    private readonly edits: QuotaTreeEdits,
    private readonly audit: AuditLog,
  ) {}

  /** The items of every region, rebuilt only when the repository's catalogue is re-read. */
  async catalog(): Promise<Map<string, Catalog>> {
    const regions = await this.repo.catalogue();
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
    if (!(await this.repo.departmentExists(domainId))) throw new AppError(404, `Could not find domain: ${domainId}.`);
  }

  /** @throws AppError 404 when the project is unknown or not in department `domainId`. */
  private async requireProject(projectId: string, domainId: string) {
    const project = await this.repo.findProject(projectId);
    if (!project || project.domain_id !== domainId) throw new AppError(404, `Could not find project: ${projectId}.`);
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
      Promise.all(regions.map((r) => this.repo.peekQuotaSet(r, domainId))),
      Promise.all(regions.map((r) => this.repo.peekQuotaSet(r, CLOUD_DOMAIN_ID))),
    ]);
    const view: Record<string, DepartmentRegionView> = {};
    regions.forEach((region, i) => {
      view[region] = this.regionView(
        domainId,
        catalog.get(region) as Catalog,
        own[i]?.state as QuotaSetState,
        cloud[i]?.state as QuotaSetState,
      );
    });
    return { view, etag: etagOf(regions.map((r, i) => [r, own[i]?.revision ?? 0])) };
  }

  private regionView(domainId: string, cat: Catalog, own: QuotaSetState, cloud: QuotaSetState): DepartmentRegionView {
    const out: DepartmentRegionView = { usage: {}, quotas: {}, limits: {} };
    for (const item of cat.items.keys()) {
      const quota = quotaOf(own, item, domainId);
      out.usage[item] = fromMilli(own.allocated[item] ?? 0);
      out.quotas[item] = fromMilli(quota);
      out.limits[item] = fromMilli(domainId === CLOUD_DOMAIN_ID ? UNLIMITED : limitOf(parentItem(cloud, item), quota));
    }
    return out;
  }

  /** C3: `{<region>: {quotas, allocated, limits, usage, quota_fake, usage_collected_at}}` of the cloud platform. */
  async getCloud(): Promise<Record<string, CloudRegionView>> {
    const [catalog, usage] = await Promise.all([this.catalog(), this.repo.usageByRegion()]);
    const regions = [...catalog.keys()];
    const cloud = await Promise.all(regions.map((r) => this.repo.peekQuotaSet(r, CLOUD_DOMAIN_ID)));
    const out: Record<string, CloudRegionView> = {};
    regions.forEach((region, i) => {
      const cq = cloud[i]?.state as QuotaSetState;
      const u = usage.get(region);
      const view: CloudRegionView = { quotas: {}, allocated: {}, limits: {}, usage: {}, quota_fake: {} };
      for (const item of (catalog.get(region) as Catalog).items.keys()) {
        const quota = fromMilli(quotaOf(cq, item, CLOUD_DOMAIN_ID));
        view.quotas[item] = quota;
        view.allocated[item] = fromMilli(cq.allocated[item] ?? 0);
        view.limits[item] = -1;
        view.usage[item] = fromMilli(u?.values[item] ?? 0);
        view.quota_fake[item] = quota;
      }
      if (u?.collected_at) view.usage_collected_at = u.collected_at;
      out[region] = view;
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
      if (e instanceof RevisionConflictError)
        throw new AppError(503, 'Quota records are busy; try again.', undefined, { 'Retry-After': '1' });
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
  patch(domainId: string, body: unknown, opts: EditOptions): Promise<DepartmentView> {
    const region = () => {
      const r = (body as { domain?: { region?: unknown } } | null)?.domain?.region;
      return typeof r === 'string' ? r : '';
    };
    return this.audited(opts, { domainId, region }, async () => {
      await this.requireDepartment(domainId);
      const catalog = await this.catalog();
      const req = parsePatch(body, catalog);
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
    const revs = await Promise.all(regions.map(async (r) => [r, (await this.repo.readQuotaSet(r, domainId)).revision] as [string, number]));
    const given = ifMatch.split(',').map((s) => s.trim());
    if (!given.includes('*') && !given.includes(etagOf(revs))) {
      throw new AppError(412, 'The department quotas changed since they were read (If-Match does not match the current ETag).');
    }
  }

  /**
   * A project's allocation in one region (what its department has handed it), checked against its department (or
   * the cloud, for a project of the `default` domain) like any child.
   * @throws AppError 404 unknown project; 400 malformed body; 409 conflicts; 503.
   */
  async setProjectQuotas(projectId: string, domainId: string, body: unknown, opts: EditOptions): Promise<Record<string, Values>> {
    await this.requireProject(projectId, domainId);
    const catalog = await this.catalog();
    const req = parsePatch(body, catalog, 'project');
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
    const quotas = await Promise.all(regions.map((r) => this.repo.readProjectQuota(r, projectId)));
    const out: Record<string, Values> = {};
    regions.forEach((region, i) => {
      const q = quotas[i]?.state.quotas ?? {};
      out[region] = Object.fromEntries([...(catalog.get(region) as Catalog).items.keys()].map((item) => [item, fromMilli(q[item] ?? 0)]));
    });
    return out;
  }
}
