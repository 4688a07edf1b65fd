/**
 * The `lbaas_quotas` collection: one head document per project,
 * `{_id: project_id, revision, limits: {<resource>: int | null}, in_use: {<resource>: int}, idempotency_keys?: […]}`
 * (null limit = the deployment default applies, as Octavia's NULL column). Every change goes through `change`, a
 * linearizable read-modify-write committed by one conditional write on `revision` (@stratum/revisions), so the
 * outcome of a keyed enforcement call is remembered in the same write as the change it made.
 */
import type { LbaasLimits, LbaasResource } from '@stratum/quota-items';
import { LBAAS_RESOURCES } from '@stratum/quota-items';
import { type Decision, type Revision, type RevisionCache, RevisionedRecords } from '@stratum/revisions';
import type { Db, Filter } from 'mongodb';

export const LBAAS_QUOTAS_COLLECTION = 'lbaas_quotas';

/**
 * The remembered outcome of one enforcement call made with an idempotency key (see QuotasService.enforce).
 * `limits` and `in_use` are the usage the call answered (200), in LBAAS_RESOURCES order; `message` its 403.
 */
export interface IdempotencyRecord {
  key: string;
  /** Digest of what the call asked (action and counts): the same key with another request is refused. */
  fingerprint: string;
  /** When the call was first answered, in ms since the epoch. */
  at: number;
  status: 200 | 403;
  limits?: number[];
  in_use?: number[];
  message?: string;
}

/** A project's stored quota: its limits, its in_use counts, and the recent keyed enforcement calls (oldest first). */
export interface QuotaState {
  limits: LbaasLimits;
  in_use: Record<LbaasResource, number>;
  idempotency_keys?: IdempotencyRecord[];
}

/** A head document as lists read it (without the idempotency keys). */
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
   * Head records in project_id order, walking from the marker (forwards, or backwards when `reverse`); with
   * `projectId`, only that project's record, the marker still applying (as Octavia's PaginationHelper: the filter and
   * the marker both narrow the query).
   * @returns up to `limit` records in walking order, without their idempotency keys.
   */
  async list(w: ListWindow): Promise<QuotaDoc[]> {
    const walk = (w.reverse ? -w.direction : w.direction) as 1 | -1;
    const filter = this.filterOf(w.projectId, w.marker, walk);
    // One batch, no cursor left open (docs/stores.md, "Reads"); the `_id` order comes from the primary key.
    return this.records.heads
      .find<QuotaDoc>(filter, { singleBatch: true, batchSize: w.limit, projection: { idempotency_keys: 0 } })
      .sort({ _id: walk })
      .limit(w.limit)
      .toArray();
  }

  /**
   * Whether a record matching `projectId` (when given) lies strictly beyond `from` in `walk` order (1 ascending
   * project ids, -1 descending): whether a page link in that direction leads anywhere.
   */
  async existsBeyond(projectId: string | undefined, from: string, walk: 1 | -1): Promise<boolean> {
    const row = await this.records.heads.findOne(this.filterOf(projectId, from, walk), { projection: { _id: 1 } });
    return row !== null;
  }

  /** `_id` equal to `projectId` (when given) and beyond `marker` (when given) in `walk` order. */
  private filterOf(projectId: string | undefined, marker: string | undefined, walk: 1 | -1): Filter<{ _id: string }> {
    const id: Record<string, string> = {};
    if (projectId !== undefined) id.$eq = projectId;
    if (marker !== undefined) id[walk === 1 ? '$gt' : '$lt'] = marker;
    return Object.keys(id).length > 0 ? { _id: id } : {};
  }
}
