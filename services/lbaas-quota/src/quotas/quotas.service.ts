/**
 * Group B rules: default resolution (Octavia `_get_db_quotas`: a null limit takes the configured default), list,
 * show, update and reset.
 */
import { AppError } from '@stratum/http-kit';
import { LBAAS_DISPLAY_NAME, LBAAS_RESOURCES, type LbaasLimits, type LbaasResolved } from '@stratum/quota-items';
import type { Filter } from 'mongodb';
import type { QuotaDoc, QuotasRepository } from './quotas.repository';

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

  /** Show: a project without a record has the defaults (never 404, as Octavia). */
  async show(projectId: string): Promise<LbaasResolved> {
    return this.resolve((await this.repo.findOne(projectId))?.limits);
  }

  /**
   * One page of records, ordered by project_id.
   * @returns the records and whether more follow.
   */
  async list(opts: { projectId?: string; marker?: string; limit?: number }): Promise<{ docs: QuotaDoc[]; more: boolean }> {
    const limit = Math.min(opts.limit ?? this.pageMax, this.pageMax);
    const docs = await this.repo.list({ projectId: opts.projectId, after: opts.marker, limit: limit + 1 });
    return { docs: docs.slice(0, limit), more: docs.length > limit };
  }

  /** PUT: sets the given limits. @returns the effective limits after the change. */
  async update(projectId: string, limits: Partial<LbaasLimits>): Promise<LbaasResolved> {
    return this.resolve((await this.repo.setLimits(projectId, limits)).limits);
  }

  /**
   * DELETE: reset to the defaults. Refused with 409 when usage is above a finite default (it would leave the project
   * over quota) unless `force`.
   * @throws AppError 404 `Quotas <pid> not found.` when the project has no record; 409 as above.
   */
  async reset(projectId: string, force: boolean): Promise<void> {
    const guard: Filter<QuotaDoc> = {};
    if (!force) {
      for (const r of LBAAS_RESOURCES) {
        if (this.defaults[r] !== -1) (guard as Record<string, unknown>)[`in_use.${r}`] = { $not: { $gt: this.defaults[r] } };
      }
    }
    const doc = await this.repo.resetLimits(projectId, guard);
    if (doc) return;
    const existing = await this.repo.findOne(projectId);
    if (!existing) throw new AppError(404, `Quotas ${projectId} not found.`);
    const over = LBAAS_RESOURCES.filter((r) => this.defaults[r] !== -1 && (existing.in_use?.[r] ?? 0) > this.defaults[r]);
    throw new AppError(
      409,
      `Quotas of ${projectId} cannot be reset: usage is above the default for ${over.map((r) => `${LBAAS_DISPLAY_NAME[r]} (${existing.in_use[r]} in use, default ${this.defaults[r]})`).join(', ')}. Use force=true to reset anyway.`,
    );
  }
}
