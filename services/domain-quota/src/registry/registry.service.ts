/**
 * The registry the quota tree stands on (docs/decisions.md §C): regions with their volume types and products, departments
 * (Keystone domains; `default` is the cloud platform), projects and their department, and actual usage per region.
 * The admin endpoints and the subscriber of identity and volume type events both change it through this service,
 * so they share one set of rules:
 *
 * - A region may drop a volume type or product only while no quota node or project holds any of its items at a value
 *   other than 0 (409 `in_use` otherwise), so a quota never hides behind a catalogue change.
 * - Deleting a project first sets its allocations to 0 through the quota tree (released from its department, and
 *   audited), as docs/upstream/domain-quota.md §6.8 asks; its usage reports go with it.
 * - Deleting a department requires that it has no projects (Cinder's nested quotas refuse the same); its own quotas
 *   are then released to the cloud through the tree. The cloud (`default`) cannot be deleted.
 * - A project may move to another department only while it holds no allocation.
 */
import { AppError } from '@stratum/http-kit';
import { fromMilli, regionItems } from '@stratum/quota-items';
import type { AuditActor, AuditLog } from '../audit/audit.log';
import type { QuotaTreeEdits } from '../domain-quotas/domain-quotas.edits';
import { CLOUD_DOMAIN_ID, type Values } from '../domain-quotas/domain-quotas.repository';
import {
  cloudNotDeletable,
  departmentHasAllocations,
  departmentHasProjects,
  domainNotFound,
  domainNotInRegistry,
  invalidRegionName,
  invalidVolumeTypeName,
  itemsInUse,
  projectHoldsAllocations,
  projectNotFound,
  regionNotFound,
} from '../errors';
import type { DepartmentDoc, ProjectDoc, RegionDoc, RegistryRepository } from './registry.repository';
import { PathSafeName, RegionName } from './registry.schema';
import { checkedReport, regionItemsOf, regionValues } from './registry.usage';

/** A region as the API shows it. */
export interface RegionView {
  name: string;
  volume_types: string[];
  products: string[];
}

/** Actual usage of a region as the API shows it (values in the items' units). */
export interface UsageView {
  collected_at: string | null;
  values: Values;
}

const regionView = (r: RegionDoc): RegionView => ({ name: r._id, volume_types: r.volume_types, products: r.products });
const departmentView = (d: DepartmentDoc) => ({ id: d._id, name: d.name });
const projectView = (p: ProjectDoc) => ({ id: p._id, domain_id: p.domain_id, name: p.name });

/** The volume type name a Cinder id was learnt for (own keys only: the id comes from a notification). */
const typeIdName = (r: RegionDoc, id: string): string | undefined =>
  r.volume_type_ids && Object.hasOwn(r.volume_type_ids, id) ? r.volume_type_ids[id] : undefined;

/** Region names become part of quota node keys (RegionName). @throws AppError 400. */
function checkRegionName(region: string): void {
  const ok = RegionName.safeParse(region);
  if (!ok.success) throw invalidRegionName(region, ok.error.issues[0]?.message ?? 'is not acceptable');
}

export class RegistryService {
  constructor(
    private readonly repo: RegistryRepository,
    private readonly edits: QuotaTreeEdits,
    private readonly audit: AuditLog,
  ) {}

  async listRegions(): Promise<RegionView[]> {
    return (await this.repo.listRegions()).map(regionView);
  }

  /** @throws AppError 404 when the region is unknown. */
  private async requireRegion(region: string): Promise<RegionDoc> {
    const doc = await this.repo.findRegion(region);
    if (!doc) throw regionNotFound(region);
    return doc;
  }

  async getRegion(region: string): Promise<RegionView> {
    return regionView(await this.requireRegion(region));
  }

  /**
   * Creates a region or replaces its volume types and products.
   * @returns the region and whether it was created.
   * @throws AppError 409 (`in_use` details) when a dropped item is still held somewhere in the region.
   */
  async putRegion(region: string, next: { volume_types: string[]; products: string[] }): Promise<{ region: RegionView; created: boolean }> {
    checkRegionName(region);
    const cur = await this.repo.findRegion(region);
    const doc: RegionDoc = {
      _id: region,
      volume_types: [...new Set(next.volume_types)],
      products: [...new Set(next.products)],
      ...(cur?.volume_type_ids ? { volume_type_ids: cur.volume_type_ids } : {}),
    };
    if (cur) await this.checkDropped(cur, doc);
    await this.repo.putRegion(doc);
    return { region: regionView(doc), created: !cur };
  }

  /** @throws AppError 409 listing the items `next` drops from `cur`'s catalogue that are still held. */
  private async checkDropped(cur: RegionDoc, next: RegionDoc): Promise<void> {
    const before = regionItemsOf(cur);
    const after = regionItems({ volumeTypes: next.volume_types, products: next.products });
    const dropped = [...before.keys()].filter((i) => !after.has(i));
    await this.refuseHeld(cur._id, dropped, 'removing the volume type or product');
  }

  /** @throws AppError 404 unknown region; 409 while any item of the region is held. */
  async deleteRegion(region: string): Promise<void> {
    const cur = await this.requireRegion(region);
    const items = [...regionItemsOf(cur).keys()];
    await this.refuseHeld(region, items, 'deleting the region');
    await this.repo.deleteRegion(region);
  }

  /** @throws AppError 409 (`in_use` details) when any of `items` is still held in `region`. */
  private async refuseHeld(region: string, items: string[], what: string): Promise<void> {
    const used = await this.repo.tree.itemsInUse(region, items);
    if (used.length > 0) throw itemsInUse(region, used, what);
  }

  /** Adds a volume type to a region (idempotent), remembering its Cinder id when known. @throws AppError 404. */
  async addVolumeType(region: string, name: string, id?: string): Promise<void> {
    if (!PathSafeName.safeParse(name).success) throw invalidVolumeTypeName(name);
    const cur = await this.requireRegion(region);
    const ids = { ...cur.volume_type_ids, ...(id ? { [id]: name } : {}) };
    const types = cur.volume_types.includes(name) ? cur.volume_types : [...cur.volume_types, name];
    await this.repo.putRegion({ ...cur, volume_types: types, volume_type_ids: ids });
  }

  /**
   * Removes a volume type from a region (by name, or by Cinder id when the name is unknown).
   * @throws AppError 404 unknown region; 409 while its items are held.
   */
  async removeVolumeType(region: string, name: string, id?: string): Promise<void> {
    const cur = await this.requireRegion(region);
    const known = id ? typeIdName(cur, id) : undefined;
    const gone = new Set([name, ...(known ? [known] : [])]);
    const next: RegionDoc = { ...cur, volume_types: cur.volume_types.filter((t) => !gone.has(t)) };
    if (id && next.volume_type_ids) {
      const { [id]: _dropped, ...rest } = next.volume_type_ids;
      next.volume_type_ids = rest;
    }
    await this.checkDropped(cur, next);
    await this.repo.putRegion(next);
  }

  /**
   * A volume type renamed in Cinder (`volume_type.update` carries the id and the new name): the new name is added,
   * and the old one removed when none of its items is held (otherwise it stays until its quotas are 0).
   * @returns whether the old name was removed (false when it was unknown, unchanged or still held).
   */
  async renameVolumeType(region: string, id: string, name: string): Promise<boolean> {
    const cur = await this.requireRegion(region);
    const old = typeIdName(cur, id);
    await this.addVolumeType(region, name, id);
    if (!old || old === name) return false;
    try {
      await this.removeVolumeType(region, old);
      return true;
    } catch (e) {
      if (e instanceof AppError && e.status === 409) return false;
      throw e;
    }
  }

  async listDepartments() {
    return (await this.repo.listDepartments()).map(departmentView);
  }

  /** @throws AppError 404 unknown department. */
  async getDepartment(domainId: string) {
    const d = await this.repo.findDepartment(domainId);
    if (!d) throw domainNotFound(domainId);
    return departmentView(d);
  }

  /** Creates a department or renames it. @returns the department and whether it was created. */
  async putDepartment(domainId: string, name: string) {
    const created = !(await this.repo.findDepartment(domainId));
    await this.repo.putDepartment({ _id: domainId, name });
    return { domain: departmentView({ _id: domainId, name }), created };
  }

  /**
   * Deletes a department: its own quotas are released to the cloud (audited), then it is removed.
   * @throws AppError 400 for `default`; 404 unknown; 409 while it has projects or allocations.
   */
  async deleteDepartment(domainId: string, actor: AuditActor): Promise<void> {
    if (domainId === CLOUD_DOMAIN_ID) throw cloudNotDeletable();
    await this.getDepartment(domainId);
    const projects = await this.repo.listProjects(domainId);
    if (projects.length > 0) throw departmentHasProjects(domainId, projects.length);
    for (const region of await this.repo.listRegions()) {
      const node = (await this.repo.tree.readQuotaSet(region._id, domainId)).state;
      const held = Object.entries(node.allocated).filter(([, v]) => v !== 0);
      if (held.length > 0) {
        const details = held.map(([item, v]) => ({ region: region._id, item, current: fromMilli(v), reason: 'allocated' }));
        throw departmentHasAllocations(domainId, region._id, details);
      }
      const items = new Map(
        Object.entries(node.quotas)
          .filter(([, v]) => v !== 0)
          .map(([k]) => [k, 0] as [string, number]),
      );
      if (items.size === 0) continue;
      const changes = await this.edits.department(region._id, domainId, items, false);
      await this.audit.accepted(actor, domainId, region._id, changes);
    }
    await this.repo.deleteDepartment(domainId);
  }

  /** Projects, of one department when `domainId` is given. */
  async listProjects(domainId?: string) {
    return (await this.repo.listProjects(domainId)).map(projectView);
  }

  /** @throws AppError 404 unknown project. */
  async getProject(projectId: string) {
    const p = await this.repo.findProject(projectId);
    if (!p) throw projectNotFound(projectId);
    return projectView(p);
  }

  /** Each region where the project holds an allocation: region → its items at a value other than 0. */
  private async allocationsOf(projectId: string): Promise<Map<string, string[]>> {
    const regions = await this.repo.listRegions();
    const quotas = await Promise.all(regions.map((r) => this.repo.tree.readProjectQuota(r._id, projectId)));
    const out = new Map<string, string[]>();
    regions.forEach((r, i) => {
      const held = Object.entries(quotas[i]?.state.quotas ?? {})
        .filter(([, v]) => v !== 0)
        .map(([k]) => k);
      if (held.length > 0) out.set(r._id, held);
    });
    return out;
  }

  /**
   * Registers a project in a department, or renames it.
   * @returns the project and whether it was created.
   * @throws AppError 400 unknown department; 409 when it would move to another department while holding allocations.
   */
  async putProject(projectId: string, next: { domain_id: string; name: string }) {
    if (!(await this.repo.findDepartment(next.domain_id))) throw domainNotInRegistry(next.domain_id);
    const cur = await this.repo.findProject(projectId);
    if (cur && cur.domain_id !== next.domain_id) {
      const held = await this.allocationsOf(projectId);
      if (held.size > 0) {
        const details = [...held].flatMap(([region, items]) => items.map((item) => ({ region, item, reason: 'allocated' })));
        throw projectHoldsAllocations(projectId, cur.domain_id, details);
      }
    }
    const doc: ProjectDoc = { _id: projectId, domain_id: next.domain_id, name: next.name };
    await this.repo.putProject(doc);
    return { project: projectView(doc), created: !cur };
  }

  /** Deletes a project, first releasing its allocations to its department (audited). @throws AppError 404. */
  async deleteProject(projectId: string, actor: AuditActor): Promise<void> {
    const p = await this.repo.findProject(projectId);
    if (!p) throw projectNotFound(projectId);
    for (const [region, items] of await this.allocationsOf(projectId)) {
      const changes = await this.edits.project(region, projectId, p.domain_id, new Map(items.map((i) => [i, 0])), false);
      await this.audit.accepted(actor, p.domain_id, region, changes, projectId);
    }
    await this.repo.deleteProject(projectId);
  }

  /** Actual usage per region: `{<region>: {collected_at, values}}` (every item of the region; 0 when not reported). */
  async getUsage(): Promise<Record<string, UsageView>> {
    const [regions, usage] = await Promise.all([this.repo.listRegions(), this.repo.usageByRegion()]);
    const out: Record<string, UsageView> = {};
    for (const r of regions) {
      const u = usage.get(r._id);
      const items = regionItemsOf(r);
      out[r._id] = { collected_at: u?.collected_at ?? null, values: regionValues(items.keys(), u?.values) };
    }
    return out;
  }

  /**
   * Replaces a region's actual usage, as reported by the services.
   * @throws AppError 404 unknown region; 400 listing every unknown item or bad value (-1 is not a usage).
   */
  async putUsage(region: string, next: { collected_at?: string; values: Record<string, number> }): Promise<UsageView> {
    const { report, view } = checkedReport(await this.requireRegion(region), next);
    await this.repo.putUsage({ _id: region, ...report });
    return view;
  }
}
