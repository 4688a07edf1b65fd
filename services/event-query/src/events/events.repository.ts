/**
 * The `events` collection and its summaries: every read and write of events goes through here.
 *
 * Summaries answer `/v2/event_types` and `/v2/event_types/{type}/traits` without scanning events (Panko ran a
 * DISTINCT over every trait row, docs/upstream/events.md §14 #6):
 * - `event_types`: one document per (project scope, event type), `{_id: "<scope>\u001f<type>", project_id, event_type}`;
 * - `event_traits`: one per (scope, type, trait name, trait type), `{_id: …, project_id, event_type, name, type}`.
 * Both are insert-only (a duplicate key means "already known"), so concurrent writers never contend on one
 * document, and an in-process cache of what was already written keeps the writes to new combinations only.
 */
import {
  type Collection,
  type Db,
  type Filter,
  MongoBulkWriteError,
  MongoServerError,
  type OptionalUnlessRequiredId,
  type Sort,
  type WriteConcernSettings,
} from 'mongodb';
import { EVENT_PROJECTION, type EventDoc, type StoredEvent, traitsOf } from './events.model';

export const EVENTS_COLLECTION = 'events';
export const EVENT_TYPES_COLLECTION = 'event_types';
export const EVENT_TRAITS_COLLECTION = 'event_traits';

/** A distinct trait name and type of an event type (Panko's TraitDescription). */
export interface TraitDescription {
  name: string;
  type: string;
}

interface EventTypeDoc {
  _id: string;
  project_id: string | null;
  event_type: string;
}

interface EventTraitDoc extends EventTypeDoc, TraitDescription {}

/**
 * Events are acknowledged to the bus only after this write concern is met: on a replica set, a majority has the
 * event in its journal, so a fail-over cannot lose an acknowledged event.
 */
const DURABLE: WriteConcernSettings = { w: 'majority', journal: true };

/** Index names of earlier versions whose keys differ from today's. */
const RETIRED_INDEXES = ['generated', 'resource_type_generated', 'project_generated', 'type_generated'];

/** MongoDB's MaxTimeMSExpired. */
const MAX_TIME_EXPIRED = 50;

/**
 * A valid query the store did not answer within EVENTS_QUERY_TIMEOUT_MS (`ms`); the router answers it with a 503
 * that says so.
 */
export class QueryTimedOut extends Error {
  constructor(readonly ms: number) {
    super(`The query did not finish within ${ms} ms`);
    this.name = 'QueryTimedOut';
  }
}

export class EventsRepository {
  private readonly col: Collection<EventDoc>;
  private readonly types: Collection<EventTypeDoc>;
  private readonly traits: Collection<EventTraitDoc>;
  /** Summary `_id`s this process has already written. */
  private readonly known = new Set<string>();

  /** @param queryTimeoutMs server-side time limit of a read (`maxTimeMS`); 0 = none. */
  constructor(
    db: Db,
    private readonly queryTimeoutMs = 0,
  ) {
    this.col = db.collection<EventDoc>(EVENTS_COLLECTION);
    this.types = db.collection<EventTypeDoc>(EVENT_TYPES_COLLECTION);
    this.traits = db.collection<EventTraitDoc>(EVENT_TRAITS_COLLECTION);
  }

  /**
   * Creates the indexes the queries use (idempotent), each an equality prefix and then the sort keys in the direction
   * the query sorts, so that a page is a bounded range read in order and the limit stops the scan (docs/stores.md,
   * "Indexes"):
   * - `project_generated_asc`: a member's list (project scope) in Panko's default order, ascending. One direction
   *   only: with an ascending and a descending index on the same keys, DocumentDB served only one direction in order;
   * - `resource_type_generated_desc`: A2, a resource's events of one type in a time window, newest first;
   * - `type_generated_asc`: lists filtered by event type, and trait values of a type;
   * - `generated_asc`: the admin list in time order, with `_id` as the tiebreaker that makes pages stable.
   * Indexes of earlier versions with other keys (RETIRED_INDEXES) are dropped, as they only slow writes.
   */
  async ensureIndexes(): Promise<void> {
    await this.col.createIndexes([
      { key: { project_id: 1, generated: 1, _id: 1 }, name: 'project_generated_asc' },
      { key: { resource_id: 1, event_type: 1, generated: -1, _id: -1 }, name: 'resource_type_generated_desc' },
      { key: { event_type: 1, generated: 1, _id: 1 }, name: 'type_generated_asc' },
      { key: { generated: 1, _id: 1 }, name: 'generated_asc' },
    ]);
    const existing = new Set((await this.col.listIndexes().toArray()).map((i) => String(i.name)));
    for (const name of RETIRED_INDEXES) if (existing.has(name)) await this.col.dropIndex(name);
    await this.types.createIndex({ project_id: 1 }, { name: 'project' });
    await this.traits.createIndex({ event_type: 1 }, { name: 'type' });
  }

  /**
   * Stores events, skipping any whose message_id is already stored (idempotent on message_id), then records their
   * event types and trait descriptions in the summary.
   * @returns how many were new and how many were duplicates.
   * @throws the driver's error for anything but duplicate keys (the caller must not acknowledge the batch).
   */
  async insertMany(docs: EventDoc[]): Promise<{ inserted: number; duplicates: number }> {
    if (docs.length === 0) return { inserted: 0, duplicates: 0 };
    const duplicates = await insertIgnoringDuplicates(this.col, docs, DURABLE);
    const result = { inserted: docs.length - duplicates, duplicates };
    // Duplicates were stored once already, so summarising them again is harmless.
    await this.summarise(docs);
    return result;
  }

  private async summarise(docs: EventDoc[]): Promise<void> {
    const types = new Map<string, EventTypeDoc>();
    const traits = new Map<string, EventTraitDoc>();
    for (const doc of docs) {
      const typeId = `${doc.project_id ?? ''}\u001f${doc.event_type}`;
      if (!this.known.has(typeId)) types.set(typeId, { _id: typeId, project_id: doc.project_id, event_type: doc.event_type });
      for (const { name, type } of traitsOf(doc)) {
        const id = `${typeId}\u001f${name}\u001f${type}`;
        if (!this.known.has(id)) traits.set(id, { _id: id, project_id: doc.project_id, event_type: doc.event_type, name, type });
      }
    }
    await insertIgnoringDuplicates(this.types, [...types.values()]);
    await insertIgnoringDuplicates(this.traits, [...traits.values()]);
    for (const id of [...types.keys(), ...traits.keys()]) this.known.add(id);
  }

  /** One event by message_id (visibility is the caller's check, so the lookup stays a pure `_id` match). */
  async findById(id: string): Promise<(StoredEvent & Pick<EventDoc, 'project_id'>) | null> {
    return this.guard(this.col.findOne({ _id: id }, { projection: { ...EVENT_PROJECTION, project_id: 1 }, maxTimeMS: this.timeout() }));
  }

  /** The sort-key values of one event (for marker paging). */
  async sortKeysOf(id: string): Promise<Pick<EventDoc, '_id' | 'generated' | 'event_type' | 'project_id'> | null> {
    return this.guard(
      this.col.findOne({ _id: id }, { projection: { _id: 1, generated: 1, event_type: 1, project_id: 1 }, maxTimeMS: this.timeout() }),
    );
  }

  /**
   * Events matching `filter`, in `sort` order, at most `limit`, in one batch: the whole page comes back with the
   * find and no cursor is left open (on FerretDB 2.5 an open cursor holds a PostgreSQL connection of its pool, so
   * the next query waits for a new one; docs/stores.md, "Reads").
   */
  async find(filter: Filter<EventDoc>, sort: Sort, limit: number): Promise<StoredEvent[]> {
    return this.guard(
      this.col
        .find(filter, { projection: EVENT_PROJECTION, maxTimeMS: this.timeout(), singleBatch: true, batchSize: limit })
        .sort(sort)
        .limit(limit)
        .toArray(),
    );
  }

  /** Up to `limit` ids of events generated before `cutoff` (canonical timestamp), in no particular order. */
  async idsGeneratedBefore(cutoff: string, limit: number): Promise<string[]> {
    const docs = await this.col
      .find({ generated: { $lt: cutoff } }, { projection: { _id: 1 }, singleBatch: true, batchSize: limit })
      .limit(limit)
      .toArray();
    return docs.map((d) => d._id);
  }

  /** Deletes events by id (one `$in` on the primary key). @returns how many were deleted. */
  async deleteByIds(ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    return (await this.col.deleteMany({ _id: { $in: [...ids] } })).deletedCount;
  }

  /**
   * Drops summary entries (event types per scope, and their trait descriptions) whose events have all gone.
   * Trait descriptions of types that still have events are kept even if no remaining event has that trait.
   * @returns how many event-type entries were dropped.
   */
  async pruneSummaries(): Promise<number> {
    let dropped = 0;
    for await (const t of this.types.find({})) {
      const alive = await this.col.findOne({ event_type: t.event_type, project_id: t.project_id }, { projection: { _id: 1 } });
      if (alive) continue;
      await this.traits.deleteMany({ event_type: t.event_type, project_id: t.project_id });
      await this.types.deleteOne({ _id: t._id });
      for (const id of [...this.known]) if (id === t._id || id.startsWith(`${t._id}\u001f`)) this.known.delete(id);
      dropped++;
    }
    return dropped;
  }

  /** Distinct event types among the summaries matching `scope` (a visibility filter), sorted by name. */
  async eventTypes(scope: Record<string, unknown>): Promise<string[]> {
    const docs = await this.guard(
      this.types.find(scope as Filter<EventTypeDoc>, { projection: { event_type: 1 }, maxTimeMS: this.timeout() }).toArray(),
    );
    return [...new Set(docs.map((d) => d.event_type))].sort();
  }

  /** Distinct trait names and types of `eventType` among the summaries matching `scope`, sorted by name then type. */
  async traitDescriptions(eventType: string, scope: Record<string, unknown>): Promise<TraitDescription[]> {
    const docs = await this.guard(
      this.traits.find({ event_type: eventType, ...scope } as Filter<EventTraitDoc>, { maxTimeMS: this.timeout() }).toArray(),
    );
    const seen = new Map<string, TraitDescription>();
    for (const d of docs) seen.set(`${d.name}\u001f${d.type}`, { name: d.name, type: d.type });
    return [...seen.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.type < b.type ? -1 : 1));
  }

  private timeout(): number | undefined {
    return this.queryTimeoutMs > 0 ? this.queryTimeoutMs : undefined;
  }

  /** Turns a server-side time-out into QueryTimedOut (the query was valid, the store could not answer it in time). */
  private async guard<T>(p: Promise<T>): Promise<T> {
    try {
      return await p;
    } catch (err) {
      if (err instanceof MongoServerError && err.code === MAX_TIME_EXPIRED) {
        throw new QueryTimedOut(this.queryTimeoutMs);
      }
      throw err;
    }
  }
}

/**
 * Inserts documents, treating duplicate keys as already stored. Documents go in `_id` order: concurrent batches that
 * share keys then take their locks in one order (on PostgreSQL, two unordered batches inserting the same keys in
 * different orders deadlocked). @throws the driver's error for anything else.
 */
async function insertIgnoringDuplicates<T extends { _id: string }>(
  col: Collection<T>,
  docs: T[],
  writeConcern?: WriteConcernSettings,
): Promise<number> {
  if (docs.length === 0) return 0;
  const sorted = [...docs].sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0));
  try {
    await col.insertMany(sorted as OptionalUnlessRequiredId<T>[], {
      ordered: false,
      ...(writeConcern ? { writeConcern } : {}),
    });
    return 0;
  } catch (err) {
    const errors = err instanceof MongoBulkWriteError ? (Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors]) : [];
    if (errors.length === 0 || !errors.every((e) => e.code === 11000)) throw err;
    return errors.length;
  }
}
