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
 * A change of a child never over-commits its parent, without transactions (FerretDB has none), in three
 * linearizable steps (@stratum/revisions): (1) on the parent, check every item and reserve the increases; (2) on the
 * child, check that its values are still those the reservation was made for and that its own children fit, then set
 * them; (3) on the parent, release the decreases. A child that changed in between undoes (1) and the edit starts
 * again on fresh values. Between the steps the parent holds the reservation, so concurrent edits see less headroom,
 * never more. A crash between steps leaves a reservation (never an over-allocation); `reconcile` recomputes it.
 */
import { createHash } from 'node:crypto';
import { AppError } from '@stratum/http-kit';
import { fromMilli, type ItemSpec, regionItems, UNLIMITED } from '@stratum/quota-items';
import { RevisionConflictError } from '@stratum/revisions';
import type { AuditActor, AuditLog } from '../audit/audit.log';
import { CLOUD_DOMAIN_ID, type QuotaSetState, type RegistryRepository, type Values } from '../registry/registry.repository';
import { type ChildItem, conflictsOf, type ItemChange, limitOf, type ParentItem, parentDeltas } from './domain-quotas.allocation';
import { parsePatch, type QuotaErrorDetail } from './domain-quotas.schema';

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

const MAX_ATTEMPTS = 50;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A child node (a department under the cloud, or a project under its department) as the edit sees it. */
interface ChildNode {
  read(): Promise<{ revision: number; quotas: Values; allocated: Values; unlimited: Values }>;
  /** Sets `quotas` if `decide` allows; returns what `decide` said. */
  write(
    decide: (cur: { revision: number; quotas: Values; allocated: Values; unlimited: Values }) => 'ok' | Refusal,
    next: Values,
  ): Promise<'ok' | Refusal>;
}
type Refusal = 'stale' | QuotaErrorDetail[];

const quotaOf = (state: { quotas: Values }, item: string, domainId: string) =>
  state.quotas[item] ?? (domainId === CLOUD_DOMAIN_ID ? UNLIMITED : 0);
const parentItem = (p: QuotaSetState, item: string): ParentItem => ({
  quota: quotaOf(p, item, p.domain_id),
  allocated: p.allocated[item] ?? 0,
});
const childItem = (c: { allocated: Values; unlimited: Values }, item: string): ChildItem => ({
  allocated: c.allocated[item] ?? 0,
  unlimited: c.unlimited[item] ?? 0,
});
/** `state` with the deltas of `changes` (reserve or release side) applied; null when nothing changes. */
function withDeltas(state: QuotaSetState, changes: ItemChange[], side: 'reserve' | 'release', sign: 1 | -1): QuotaSetState | null {
  const allocated = { ...state.allocated };
  const unlimited = { ...state.unlimited };
  let changed = false;
  for (const c of changes) {
    const d = parentDeltas(c)[side];
    if (d.allocated !== 0) {
      allocated[c.item] = (allocated[c.item] ?? 0) + sign * d.allocated;
      changed = true;
    }
    if (d.unlimited !== 0) {
      unlimited[c.item] = (unlimited[c.item] ?? 0) + sign * d.unlimited;
      changed = true;
    }
  }
  return changed ? { ...state, allocated, unlimited } : null;
}

/** The strong ETag of a department's quotas: its nodes' revisions per region. */
export function etagOf(revisions: [string, number][]): string {
  const text = revisions.map(([r, n]) => `${r}:${n}`).join(',');
  return `"${createHash('sha256').update(text).digest('hex').slice(0, 32)}"`;
}

export class DomainQuotasService {
  constructor(
    private readonly repo: RegistryRepository,
    private readonly audit: AuditLog,
  ) {}

  async catalog(): Promise<Map<string, Catalog>> {
    const regions = await this.repo.listRegions();
    return new Map(
      regions.map((r) => [r._id, { items: regionItems({ volumeTypes: r.volume_types, products: r.products }), products: r.products }]),
    );
  }

  private async requireDepartment(domainId: string): Promise<void> {
    if (!(await this.repo.findDepartment(domainId))) throw new AppError(404, `Could not find domain: ${domainId}.`);
  }

  /** C1: `{<region>: {usage, quotas, limits}}` of a department (or of the cloud when domainId is `default`), and its ETag. */
  async getDepartment(domainId: string): Promise<{ view: Record<string, DepartmentRegionView>; etag: string }> {
    await this.requireDepartment(domainId);
    const catalog = await this.catalog();
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
    const out: Record<string, CloudRegionView> = {};
    for (const [region, cat] of catalog) {
      const cq = (await this.repo.peekQuotaSet(region, CLOUD_DOMAIN_ID)).state;
      const u = usage.get(region);
      const view: CloudRegionView = { quotas: {}, allocated: {}, limits: {}, usage: {}, quota_fake: {} };
      for (const item of cat.items.keys()) {
        const quota = fromMilli(quotaOf(cq, item, CLOUD_DOMAIN_ID));
        view.quotas[item] = quota;
        view.allocated[item] = fromMilli(cq.allocated[item] ?? 0);
        view.limits[item] = -1;
        view.usage[item] = fromMilli(u?.values[item] ?? 0);
        view.quota_fake[item] = quota;
      }
      if (u?.collected_at) view.usage_collected_at = u.collected_at;
      out[region] = view;
    }
    return out;
  }

  /**
   * C2: sets the named items of one region of a department (or of the cloud), all or nothing, and records every
   * accepted or refused item in the audit log.
   * @returns the C1 view after the edit (for a dry run: as it would be) and its ETag.
   * @throws AppError 404 unknown department; 400 malformed body (all problems); 409 hierarchy conflicts (all, with
   *   min/max); 412 If-Match mismatch; 503 when the records stayed contended.
   */
  async patch(domainId: string, body: unknown, opts: EditOptions): Promise<{ view: Record<string, DepartmentRegionView>; etag: string }> {
    const region =
      typeof (body as { domain?: { region?: unknown } })?.domain?.region === 'string'
        ? (body as { domain: { region: string } }).domain.region
        : '';
    try {
      await this.requireDepartment(domainId);
      const catalog = await this.catalog();
      const req = parsePatch(body, catalog);
      if (opts.ifMatch !== undefined) await this.checkEtag(domainId, [...catalog.keys()], opts.ifMatch);
      const changes =
        domainId === CLOUD_DOMAIN_ID
          ? await this.patchCloud(req.region, req.items, !!opts.dryRun)
          : await this.setChild(req.region, CLOUD_DOMAIN_ID, this.departmentNode(req.region, domainId), req.items, !!opts.dryRun);
      if (!opts.dryRun) await this.audit.accepted(opts.actor, domainId, req.region, changes);
      const after = await this.getDepartment(domainId);
      if (opts.dryRun) this.simulate(after.view, req.region, changes, domainId);
      return after;
    } catch (e) {
      if (e instanceof RevisionConflictError)
        throw new AppError(503, 'Quota records are busy; try again.', undefined, { 'Retry-After': '1' });
      if (e instanceof AppError && !opts.dryRun && e.status >= 400 && e.status < 500 && e.status !== 404) {
        await this.audit.refused(opts.actor, domainId, region, e);
      }
      throw e;
    }
  }

  /** A dry run's view: the current one with the requested quotas (usage and limits as they are now). */
  private simulate(view: Record<string, DepartmentRegionView>, region: string, changes: ItemChange[], _domainId: string): void {
    const v = view[region];
    if (!v) return;
    for (const c of changes) v.quotas[c.item] = fromMilli(c.next);
  }

  private async checkEtag(domainId: string, regions: string[], ifMatch: string): Promise<void> {
    const revs = await Promise.all(
      regions.map(async (r) => [r, (await this.repo.quotaSets.read(`${r}/${domainId}`))?.revision ?? 0] as [string, number]),
    );
    const current = etagOf(revs);
    const given = ifMatch.split(',').map((s) => s.trim());
    if (!given.includes('*') && !given.includes(current)) {
      throw new AppError(412, 'The department quotas changed since they were read (If-Match does not match the current ETag).');
    }
  }

  private departmentNode(region: string, domainId: string): ChildNode {
    return {
      read: async () => {
        const r = await this.repo.quotaSets.read(`${region}/${domainId}`);
        const s = r?.state;
        return { revision: r?.revision ?? 0, quotas: s?.quotas ?? {}, allocated: s?.allocated ?? {}, unlimited: s?.unlimited ?? {} };
      },
      write: async (decide, next) => {
        const { result } = await this.repo.changeQuotaSet<'ok' | Refusal>(region, domainId, (cur) => {
          const verdict = decide({ revision: cur.revision, ...cur.state });
          return verdict === 'ok'
            ? { next: { ...cur.state, quotas: { ...cur.state.quotas, ...next } }, result: 'ok' }
            : { result: verdict };
        });
        return result;
      },
    };
  }

  private projectNode(region: string, projectId: string, domainId: string): ChildNode {
    return {
      read: async () => {
        const r = await this.repo.projectQuotas.read(`${region}/${projectId}`);
        return { revision: r?.revision ?? 0, quotas: r?.state.quotas ?? {}, allocated: {}, unlimited: {} };
      },
      write: async (decide, next) => {
        const { result } = await this.repo.changeProjectQuota<'ok' | Refusal>(region, projectId, domainId, (cur) => {
          const verdict = decide({ revision: cur.revision, quotas: cur.state.quotas, allocated: {}, unlimited: {} });
          return verdict === 'ok'
            ? { next: { ...cur.state, domain_id: domainId, quotas: { ...cur.state.quotas, ...next } }, result: 'ok' }
            : { result: verdict };
        });
        return result;
      },
    };
  }

  /**
   * Sets a child's quotas under `parentOwner`'s node in `region` (the three steps in the module comment).
   * @returns the changes made (or, for a dry run, that would be made).
   */
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
      // 1. On the parent: every check, then reserve the increases.
      let conflicts: QuotaErrorDetail[] = [];
      const { result: reserved } = await this.repo.changeQuotaSet<boolean>(region, parentOwner, (p) => {
        conflicts = changes.flatMap((c) => conflictsOf(region, c, parentItem(p.state, c.item), childItem(child, c.item), fromMilli));
        if (conflicts.length > 0 || dryRun) return { result: false };
        const next = withDeltas(p.state, changes, 'reserve', 1);
        return next ? { next, result: true } : { result: false };
      });
      if (conflicts.length > 0) throw this.conflict(conflicts);
      if (dryRun) return changes;
      const undo = async () => {
        if (reserved)
          await this.repo.changeQuotaSet(region, parentOwner, (p) => ({
            next: withDeltas(p.state, changes, 'reserve', -1) ?? p.state,
            result: undefined,
          }));
      };
      // 2. On the child: still the values decided on, and its own children still fit.
      const next = Object.fromEntries(changes.map((c) => [c.item, c.next]));
      const outcome = await node.write((cur) => {
        if (changes.some((c) => (cur.quotas[c.item] ?? 0) !== c.old)) return 'stale';
        const own = changes.flatMap((c) => conflictsOf(region, c, { quota: UNLIMITED, allocated: 0 }, childItem(cur, c.item), fromMilli));
        return own.length > 0 ? own : 'ok';
      }, next);
      if (outcome !== 'ok') {
        await undo();
        if (outcome === 'stale') {
          if (attempt >= MAX_ATTEMPTS) throw new RevisionConflictError(`${region}/${parentOwner}`);
          await sleep(Math.random() * Math.min(20, attempt));
          continue;
        }
        throw this.conflict(outcome);
      }
      // 3. On the parent: release the decreases.
      await this.repo.changeQuotaSet(region, parentOwner, (p) => {
        const released = withDeltas(p.state, changes, 'release', 1);
        return released ? { next: released, result: undefined } : { result: undefined };
      });
      return changes;
    }
  }

  /** The cloud's own edit: one step on its node (its parent is the capacity of the region, not modelled). */
  private async patchCloud(region: string, items: Map<string, number>, dryRun: boolean): Promise<ItemChange[]> {
    let details: QuotaErrorDetail[] = [];
    const { result: changes } = await this.repo.changeQuotaSet<ItemChange[]>(region, CLOUD_DOMAIN_ID, (p) => {
      const cs = [...items]
        .map(([item, next]) => ({ item, old: quotaOf(p.state, item, CLOUD_DOMAIN_ID), next }))
        .filter((c) => c.next !== c.old);
      details = cs.flatMap((c) => conflictsOf(region, c, { quota: UNLIMITED, allocated: 0 }, childItem(p.state, c.item), fromMilli));
      if (details.length > 0 || dryRun || cs.length === 0) return { result: cs };
      const quotas = { ...p.state.quotas, ...Object.fromEntries(cs.map((c) => [c.item, c.next])) };
      return { next: { ...p.state, quotas }, result: cs };
    });
    if (details.length > 0) {
      for (const d of details) {
        if (d.reason === 'unlimited_children' && d.item) d.departments = await this.repo.unlimitedDepartments(region, d.item);
      }
      throw this.conflict(details);
    }
    return changes;
  }

  /**
   * A project's allocation in one region (what its department has handed it), checked against its department (or
   * the cloud, for a project of the `default` domain) like any child.
   * @throws AppError 404 unknown project; 400 malformed body; 409 conflicts; 412; 503.
   */
  async setProjectQuotas(projectId: string, domainId: string, body: unknown, opts: EditOptions): Promise<Record<string, Values>> {
    const project = await this.requireProject(projectId, domainId);
    const catalog = await this.catalog();
    const req = parsePatch(body, catalog, 'project');
    try {
      const changes = await this.setChild(
        req.region,
        project.domain_id,
        this.projectNode(req.region, projectId, project.domain_id),
        req.items,
        !!opts.dryRun,
      );
      if (!opts.dryRun) await this.audit.accepted(opts.actor, project.domain_id, req.region, changes, projectId);
      return this.getProjectQuotas(projectId, domainId);
    } catch (e) {
      if (e instanceof RevisionConflictError)
        throw new AppError(503, 'Quota records are busy; try again.', undefined, { 'Retry-After': '1' });
      if (e instanceof AppError && !opts.dryRun && e.status >= 400 && e.status < 500)
        await this.audit.refused(opts.actor, project.domain_id, req.region, e, projectId);
      throw e;
    }
  }

  /** A project's allocations: `{<region>: {item: value}}` (items it was never given are 0). */
  async getProjectQuotas(projectId: string, domainId: string): Promise<Record<string, Values>> {
    await this.requireProject(projectId, domainId);
    const catalog = await this.catalog();
    const out: Record<string, Values> = {};
    for (const [region, cat] of catalog) {
      const r = await this.repo.projectQuotas.read(`${region}/${projectId}`);
      out[region] = Object.fromEntries([...cat.items.keys()].map((item) => [item, fromMilli(r?.state.quotas[item] ?? 0)]));
    }
    return out;
  }

  /** @throws AppError 404 when the project is unknown or not in department `domainId`. */
  private async requireProject(projectId: string, domainId: string) {
    const project = await this.repo.findProject(projectId);
    if (!project || project.domain_id !== domainId) throw new AppError(404, `Could not find project: ${projectId}.`);
    return project;
  }

  private conflict(details: QuotaErrorDetail[]): AppError {
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
}
