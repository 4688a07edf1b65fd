/**
 * The `lbaas_quotas` collection: one head document per project,
 * `{_id: project_id, revision, limits: {<resource>: int | null}, in_use: {<resource>: int}}`
 * (null limit = the deployment default applies, as Octavia's NULL column). Every change goes through `change`, a
 * linearizable read-modify-write committed by one conditional write on `revision` (@stratum/revisions).
 */
import type { LbaasLimits, LbaasResource } from '@stratum/quota-items';
import { LBAAS_RESOURCES } from '@stratum/quota-items';
import { type Decision, type Revision, type RevisionCache, RevisionedRecords } from '@stratum/revisions';
import type { Db, Filter } from 'mongodb';

export const LBAAS_QUOTAS_COLLECTION = 'lbaas_quotas';

/** A project's stored quota: its limits and its in_use counts. */
export interface QuotaState {
  limits: LbaasLimits;
  in_use: Record<LbaasResource, number>;
}

/** A head document as lists read it. */
export interface QuotaDoc extends QuotaState {
  _id: string;
  revision?: number;
}

/** The state of a project that was never written: every limit null (default), nothing in use. */
export function emptyQuotaState(): QuotaState {
  const limits = {} as LbaasLimits;
  const inUse = {} as Record<LbaasResource, number>;
  for (const r of LBAAS_RESOURCES) {
    limits[r] = null;
    inUse[r] = 0;
  }
  return { limits, in_use: inUse };
}

/** List order and window: keyset pagination on project_id. */
export interface ListWindow {
  projectId?: string;
  /** Exclusive bound: rows after it in `direction` order (or before it when `reverse`). */
  marker?: string;
  /** Order of project_id (1 ascending, -1 descending). */
  direction: 1 | -1;
  /** Walk backwards from the marker (page_reverse): rows come back nearest to the marker first. */
  reverse: boolean;
  limit: number;
}

export class QuotasRepository {
  private readonly records: RevisionedRecords<QuotaState>;

  /** @param cache serves the head reads of `findOne(…, false)` (shows). */
  constructor(db: Db, cache?: RevisionCache) {
    this.records = new RevisionedRecords<QuotaState>(db, LBAAS_QUOTAS_COLLECTION, { cache });
  }

  /** Projects are keyed by `_id`, which MongoDB indexes already; nothing else to create. */
  async ensureIndexes(): Promise<void> {}

  /**
   * A project's quota, or null when it has no record.
   * @param latest read the store (linearizable); otherwise the cache first (it may lag another replica's change for
   *   the cache's lifetime; a writer offers its change to the cache before answering).
   */
  async findOne(projectId: string, latest = true): Promise<QuotaDoc | null> {
    const rev = latest ? await this.records.read(projectId) : await this.records.peek(projectId);
    return rev ? { _id: projectId, revision: rev.revision, ...rev.state } : null;
  }

  /**
   * Linearizable change of one project's record (see RevisionedRecords.update): `decide` sees the current state (null
   * when there is no record) and returns the next one, or none to leave it unchanged; it may throw to refuse.
   */
  change<R>(projectId: string, decide: (current: Revision<QuotaState> | null) => Decision<QuotaState, R>) {
    return this.records.update(projectId, decide);
  }

  /**
   * Head records in project_id order, walking from the marker (forwards, or backwards when `reverse`).
   * @returns up to `limit` records in walking order.
   */
  async list(w: ListWindow): Promise<QuotaDoc[]> {
    const filter: Filter<{ _id: string }> = {};
    if (w.projectId !== undefined) filter._id = w.projectId;
    else if (w.marker !== undefined) {
      const forwardOp = w.direction === 1 ? '$gt' : '$lt';
      const backwardOp = w.direction === 1 ? '$lt' : '$gt';
      filter._id = { [w.reverse ? backwardOp : forwardOp]: w.marker };
    }
    const walk = (w.reverse ? -w.direction : w.direction) as 1 | -1;
    // One batch, no cursor left open (docs/stores.md, "Reads"); the `_id` order comes from the primary key.
    const rows = await this.records.heads
      .find(filter, { singleBatch: true, batchSize: w.limit })
      .sort({ _id: walk })
      .limit(w.limit)
      .toArray();
    return rows as unknown as QuotaDoc[];
  }
}
