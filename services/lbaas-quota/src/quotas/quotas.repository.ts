/**
 * The `lbaas_quotas` collection: one document per project,
 * `{_id: project_id, limits: {<resource>: int | null}, in_use: {<resource>: int}}`
 * (null limit = the deployment default applies, as Octavia's NULL column).
 */
import type { LbaasLimits, LbaasResource } from '@stratum/quota-items';
import { LBAAS_RESOURCES } from '@stratum/quota-items';
import type { Collection, Db, Filter } from 'mongodb';

export const LBAAS_QUOTAS_COLLECTION = 'lbaas_quotas';

export interface QuotaDoc {
  _id: string;
  limits: LbaasLimits;
  in_use: Record<LbaasResource, number>;
}

const zeros = (): Record<LbaasResource, number> => Object.fromEntries(LBAAS_RESOURCES.map((r) => [r, 0])) as Record<LbaasResource, number>;

export class QuotasRepository {
  private readonly col: Collection<QuotaDoc>;

  constructor(db: Db) {
    this.col = db.collection<QuotaDoc>(LBAAS_QUOTAS_COLLECTION);
  }

  /** Projects are keyed by `_id`, which MongoDB indexes already; nothing else to create. */
  async ensureIndexes(): Promise<void> {}

  async findOne(projectId: string): Promise<QuotaDoc | null> {
    return this.col.findOne({ _id: projectId });
  }

  /**
   * A page of records ordered by project_id.
   * @param after exclusive lower bound (the marker) in that order.
   */
  async list(opts: { projectId?: string; after?: string; limit: number }): Promise<QuotaDoc[]> {
    const filter: Filter<QuotaDoc> = {};
    if (opts.projectId !== undefined) filter._id = opts.projectId;
    else if (opts.after !== undefined) filter._id = { $gt: opts.after };
    return this.col.find(filter).sort({ _id: 1 }).limit(opts.limit).toArray();
  }

  /**
   * Sets the given limits (others unchanged; a new record gets null limits and zero in_use) in one atomic upsert.
   * @returns the record after the change.
   */
  async setLimits(projectId: string, limits: Partial<LbaasLimits>): Promise<QuotaDoc> {
    const set: Record<string, number | null> = {};
    const onInsert: Record<string, unknown> = { in_use: zeros() };
    for (const r of LBAAS_RESOURCES) {
      if (r in limits) set[`limits.${r}`] = limits[r] ?? null;
      else onInsert[`limits.${r}`] = null;
    }
    const update = Object.keys(set).length > 0 ? { $set: set, $setOnInsert: onInsert } : { $setOnInsert: onInsert };
    const doc = await this.col.findOneAndUpdate({ _id: projectId }, update, { upsert: true, returnDocument: 'after' });
    return doc as QuotaDoc;
  }

  /**
   * Resets every limit to null (deployment default), keeping the record and its in_use counts (as Octavia).
   * @param guard extra conditions that must hold atomically (e.g. no in_use above a default).
   * @returns the record after the reset, or null when no record matched.
   */
  async resetLimits(projectId: string, guard: Filter<QuotaDoc> = {}): Promise<QuotaDoc | null> {
    const set = Object.fromEntries(LBAAS_RESOURCES.map((r) => [`limits.${r}`, null]));
    return this.col.findOneAndUpdate({ _id: projectId, ...guard }, { $set: set }, { returnDocument: 'after' });
  }
}
