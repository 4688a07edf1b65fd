/**
 * Group B rules: default resolution (Octavia `_get_db_quotas`: a null limit takes the configured default), list,
 * show, update, reset, and enforcement (Octavia `check_quota_met` / `decrement_quota`, without their drift).
 *
 * Every change is a linearizable read-modify-write of the project's record (QuotasRepository.change), so concurrent
 * consumes never take `in_use` past a limit, on any number of replicas.
 */
import { AppError } from '@stratum/http-kit';
import {
  LBAAS_DISPLAY_NAME,
  LBAAS_RESOURCES,
  type LbaasLimits,
  type LbaasResolved,
  type LbaasResource,
  QUOTA_UNLIMITED,
} from '@stratum/quota-items';
import { type Decision, type Revision, RevisionConflictError } from '@stratum/revisions';
import { emptyQuotaState, type ListWindow, type QuotaDoc, type QuotaState, type QuotasRepository } from './quotas.repository';

/** Per-resource counts (consume, release, or absolute in_use); omitted resources are untouched. */
export type ResourceCounts = Partial<Record<LbaasResource, number>>;

/** A project's effective limits and in_use counts. */
export interface QuotaUsage {
  projectId: string;
  limits: LbaasResolved;
  inUse: Record<LbaasResource, number>;
}

/** Octavia's 503 when a project's quota row stays locked (`ProjectBusyException`, two spaces after each period). */
const PROJECT_BUSY = 'Project busy.  Unable to lock the project.  Please try again.';

export class QuotasService {
  constructor(
    private readonly repo: QuotasRepository,
    /** Deployment defaults, from configuration (same on every replica that shares the configuration). */
    readonly defaults: Readonly<LbaasResolved>,
    private readonly pageMax: number,
  ) {}

  /** Effective limits of a stored record: null → default. */
  resolve(limits: Partial<LbaasLimits> | undefined): LbaasResolved {
    const out = {} as LbaasResolved;
    for (const r of LBAAS_RESOURCES) out[r] = limits?.[r] ?? this.defaults[r];
    return out;
  }

  private usageOf(projectId: string, state: QuotaState): QuotaUsage {
    return { projectId, limits: this.resolve(state.limits), inUse: { ...state.in_use } };
  }

  /** Runs a change, turning a key that stayed contended into Octavia's 503. */
  private async change<R>(projectId: string, decide: (current: Revision<QuotaState> | null) => Decision<QuotaState, R>) {
    try {
      return await this.repo.change(projectId, decide);
    } catch (e) {
      if (e instanceof RevisionConflictError) throw new AppError(503, PROJECT_BUSY, undefined, { 'Retry-After': '1' });
      throw e;
    }
  }

  /**
   * Show: a project without a record has the defaults (never 404, as Octavia). Reads through the cache: a PUT answers
   * after its change is in the cache, so the caller sees its own change; with an in-process cache and several
   * replicas, another replica's change may show up to the cache's lifetime later.
   */
  async show(projectId: string): Promise<LbaasResolved> {
    return this.resolve((await this.repo.findOne(projectId, false))?.limits);
  }

  /** The effective limits and in_use counts of a project (zeros without a record). */
  async usage(projectId: string): Promise<QuotaUsage> {
    return this.usageOf(projectId, (await this.repo.findOne(projectId)) ?? emptyQuotaState());
  }

  /**
   * One page of records in project_id order (`direction`), walking from `marker` (backwards when `reverse`).
   * @returns the page in `direction` order, and whether more records lie beyond it in the walking direction.
   */
  async list(w: Omit<ListWindow, 'limit'> & { limit?: number }): Promise<{ docs: QuotaDoc[]; more: boolean }> {
    const limit = w.limit === undefined || w.limit <= 0 ? this.pageMax : Math.min(w.limit, this.pageMax);
    const rows = await this.repo.list({ ...w, limit: limit + 1 });
    const docs = rows.slice(0, limit);
    return { docs: w.reverse ? docs.reverse() : docs, more: rows.length > limit };
  }

  /**
   * PUT: sets the given limits (null = back to the default); others unchanged. Creates the record (as Octavia's
   * update does). Lowering a limit below in_use is allowed; later consumes are refused (as Octavia).
   * @returns the effective limits after the change.
   */
  async update(projectId: string, limits: Partial<LbaasLimits>): Promise<LbaasResolved> {
    const { current } = await this.change<void>(projectId, (cur) => {
      const state = cur?.state ?? emptyQuotaState();
      const next = { ...state.limits, ...limits };
      const same = cur !== null && LBAAS_RESOURCES.every((r) => next[r] === state.limits[r]);
      return same ? { result: undefined } : { next: { limits: next, in_use: state.in_use }, result: undefined };
    });
    return this.resolve(current?.state.limits);
  }

  /**
   * DELETE: every limit back to the default; the record and its in_use counts stay (as Octavia). Refused with 409
   * when in_use is above a finite default (the project would be over quota) unless `force`.
   * @throws AppError 404 `Quotas <pid> not found.` when the project has no record; 409 as above.
   */
  async reset(projectId: string, force: boolean): Promise<void> {
    await this.change<void>(projectId, (cur) => {
      if (!cur) throw new AppError(404, `Quotas ${projectId} not found.`);
      const over = LBAAS_RESOURCES.filter((r) => this.defaults[r] !== QUOTA_UNLIMITED && cur.state.in_use[r] > this.defaults[r]);
      if (over.length > 0 && !force) {
        const what = over.map((r) => `${LBAAS_DISPLAY_NAME[r]} (${cur.state.in_use[r]} in use, default ${this.defaults[r]})`);
        throw new AppError(
          409,
          `Quotas of ${projectId} cannot be reset: usage is above the default for ${what.join(', ')}. Use force=true to reset anyway.`,
        );
      }
      return { next: { limits: emptyQuotaState().limits, in_use: cur.state.in_use }, result: undefined };
    });
  }

  /**
   * Consumes `counts` atomically, all or nothing, against the effective limits (as Octavia's check_quota_met, with
   * the increment and the check in one step): allowed when `in_use + count <= limit` or the limit is -1.
   * @throws AppError 403 `Quota has been met for resources: <Name>[, <Name>…]` naming every resource over its limit.
   */
  async consume(projectId: string, counts: ResourceCounts): Promise<QuotaUsage> {
    const { current } = await this.change<void>(projectId, (cur) => {
      const state = cur?.state ?? emptyQuotaState();
      const limits = this.resolve(state.limits);
      const inUse = { ...state.in_use };
      const over: LbaasResource[] = [];
      for (const r of LBAAS_RESOURCES) {
        const n = counts[r];
        if (n === undefined) continue;
        if (limits[r] !== QUOTA_UNLIMITED && inUse[r] + n > limits[r]) over.push(r);
        inUse[r] += n;
      }
      if (over.length > 0)
        throw new AppError(403, `Quota has been met for resources: ${over.map((r) => LBAAS_DISPLAY_NAME[r]).join(', ')}`);
      return { next: { limits: state.limits, in_use: inUse }, result: undefined };
    });
    return this.usageOf(projectId, current?.state ?? emptyQuotaState());
  }

  /**
   * Releases `counts` (as Octavia's decrement_quota, but clamped: in_use never drops below 0).
   * A project without a record has nothing to release and is left without one.
   */
  async release(projectId: string, counts: ResourceCounts): Promise<QuotaUsage> {
    const { current } = await this.change<void>(projectId, (cur) => {
      if (!cur) return { result: undefined };
      const inUse = { ...cur.state.in_use };
      for (const r of LBAAS_RESOURCES) if (counts[r] !== undefined) inUse[r] = Math.max(0, inUse[r] - (counts[r] as number));
      return { next: { limits: cur.state.limits, in_use: inUse }, result: undefined };
    });
    return this.usageOf(projectId, current?.state ?? emptyQuotaState());
  }

  /** Reconciliation: sets absolute in_use counts (may exceed a limit: they report what exists). */
  async setInUse(projectId: string, counts: ResourceCounts): Promise<QuotaUsage> {
    const { current } = await this.change<void>(projectId, (cur) => {
      const state = cur?.state ?? emptyQuotaState();
      return { next: { limits: state.limits, in_use: { ...state.in_use, ...counts } }, result: undefined };
    });
    return this.usageOf(projectId, current?.state ?? emptyQuotaState());
  }
}
