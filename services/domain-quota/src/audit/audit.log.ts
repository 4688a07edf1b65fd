/**
 * The audit log of quota changes (docs/decisions.md §C, docs/upstream/domain-quota.md §6.8): one document per item of every
 * accepted or refused change, in `dq_audit`:
 * `{_id, at, request_id, user_id, actor_project_id, actor_domain_id, domain_id, project_id?, region, item, old, new,
 *   outcome: "accepted" | "refused", status?, reason?, message?, published}`; a repaired sum of the tree is an accepted
 *   entry with reason `repaired_allocated` or `repaired_unlimited` (old and new are then the sum, not a quota).
 * Values are in the API's units (-1 unlimited). `published` is the outbox flag of audit.publisher.ts, which emits
 * each entry as a `domain_quota.update` notification for the event service.
 */
import { randomUUID } from 'node:crypto';
import { fromMilli } from '@stratum/quota-items';
import type { Collection, Db, Filter } from 'mongodb';

/** Who made a change, from the validated identity and the request. */
export interface AuditActor {
  userId: string;
  projectId: string | null;
  domainId: string | null;
  requestId: string;
}

/** One item's accepted change, in milli-units (-1 unlimited): from `old` to `next`. */
export interface AuditedChange {
  item: string;
  old: number;
  next: number;
}

/**
 * A refused change as the service answered it: the HTTP status, the message and, for a refused quota edit, one
 * detail per problem (`{region, item?, current?, requested?, reason}`, the group's QuotaErrorDetail).
 */
export interface Refusal {
  status: number;
  message: string;
  details?: readonly unknown[];
}

/** The fields of a refusal's detail the log keeps. */
interface RefusedItem {
  region?: string;
  item?: string;
  current?: unknown;
  requested?: unknown;
  reason?: string;
}

export interface AuditEntry {
  _id: string;
  at: string;
  request_id: string;
  user_id: string;
  actor_project_id: string | null;
  actor_domain_id: string | null;
  domain_id: string;
  project_id?: string;
  region: string;
  item: string | null;
  old: number | null;
  new: number | null;
  outcome: 'accepted' | 'refused';
  status?: number;
  reason?: string;
  message?: string;
  published: boolean;
}

export const AUDIT_COLLECTION = 'dq_audit';

export class AuditLog {
  readonly col: Collection<AuditEntry>;
  /** Called after entries are written (the publisher's kick, so notifications follow without waiting a round). */
  onWrite?: () => void;

  constructor(db: Db) {
    this.col = db.collection<AuditEntry>(AUDIT_COLLECTION);
  }

  /** A department's entries and the unpublished ones, each as a bounded range in `at` order. */
  async ensureIndexes(): Promise<void> {
    await this.col.createIndexes([
      { key: { domain_id: 1, at: 1 }, name: 'domain_at' },
      { key: { published: 1, at: 1 }, name: 'published_at' },
    ]);
  }

  private base(actor: AuditActor, domainId: string, region: string, projectId?: string) {
    return {
      at: new Date().toISOString(),
      request_id: actor.requestId,
      user_id: actor.userId,
      actor_project_id: actor.projectId,
      actor_domain_id: actor.domainId,
      domain_id: domainId,
      ...(projectId ? { project_id: projectId } : {}),
      region,
      published: false,
    };
  }

  /** Records the items of an accepted change (nothing for a no-op). */
  async accepted(
    actor: AuditActor,
    domainId: string,
    region: string,
    changes: readonly AuditedChange[],
    projectId?: string,
  ): Promise<void> {
    if (changes.length === 0) return;
    const base = this.base(actor, domainId, region, projectId);
    await this.col.insertMany(
      changes.map((c) => ({
        _id: randomUUID(),
        ...base,
        item: c.item,
        old: fromMilli(c.old),
        new: fromMilli(c.next),
        outcome: 'accepted' as const,
      })),
    );
    this.onWrite?.();
  }

  /**
   * Records a repaired sum of the quota tree (domain-quotas.integrity.ts): `item`'s `allocated` (in its unit) or its
   * count of unlimited children on the node of `domain_id`, from `stored` to `expected`, reason `repaired_<field>`.
   */
  async repaired(
    actor: AuditActor,
    d: { region: string; domain_id: string; item: string; field: 'allocated' | 'unlimited'; stored: number; expected: number },
  ): Promise<void> {
    await this.col.insertOne({
      _id: randomUUID(),
      ...this.base(actor, d.domain_id, d.region),
      item: d.item,
      old: d.stored,
      new: d.expected,
      outcome: 'accepted',
      reason: `repaired_${d.field}`,
      message: `${d.field} of ${d.item} set to what the children hold`,
    });
    this.onWrite?.();
  }

  /** Records a refused change: one entry per detail of the error (or one without an item). */
  async refused(actor: AuditActor, domainId: string, region: string, error: Refusal, projectId?: string): Promise<void> {
    const base = this.base(actor, domainId, region, projectId);
    const details = (error.details ?? []) as RefusedItem[];
    const entries = (details.length > 0 ? details : [undefined]).map((d) => ({
      _id: randomUUID(),
      ...base,
      region: d?.region ?? region,
      item: d?.item ?? null,
      old: typeof d?.current === 'number' ? d.current : null,
      new: typeof d?.requested === 'number' ? d.requested : null,
      outcome: 'refused' as const,
      status: error.status,
      reason: d?.reason ?? (error.status === 412 ? 'precondition_failed' : 'invalid_request'),
      message: error.message,
    }));
    await this.col.insertMany(entries);
    this.onWrite?.();
  }

  /** Entries not yet published as notifications, oldest first. */
  unpublished(limit: number): Promise<AuditEntry[]> {
    return this.col.find({ published: false }, { singleBatch: true, batchSize: limit }).sort({ at: 1, _id: 1 }).limit(limit).toArray();
  }

  async markPublished(ids: readonly string[]): Promise<void> {
    if (ids.length > 0) await this.col.updateMany({ _id: { $in: [...ids] } }, { $set: { published: true } });
  }

  /**
   * One department's entries, newest first.
   * @param before marker: the `_id` of the last entry of the previous page.
   * @returns the page, or null when `before` is not an entry of that department.
   */
  async list(domainId: string, limit: number, before?: string): Promise<AuditEntry[] | null> {
    const filter: Filter<AuditEntry> = { domain_id: domainId };
    if (before !== undefined) {
      const marker = await this.col.findOne({ _id: before, domain_id: domainId });
      if (!marker) return null;
      filter.$or = [{ at: { $lt: marker.at } }, { at: marker.at, _id: { $lt: marker._id } }];
    }
    return this.col.find(filter, { singleBatch: true, batchSize: limit }).sort({ at: -1, _id: -1 }).limit(limit).toArray();
  }
}
