/**
 * The `events` collection: every read and write of events goes through here.
 */
import { type Collection, type Db, type Filter, MongoBulkWriteError, type Sort } from 'mongodb';
import type { EventDoc } from './events.model';

export const EVENTS_COLLECTION = 'events';

export class EventsRepository {
  private readonly col: Collection<EventDoc>;

  constructor(db: Db) {
    this.col = db.collection<EventDoc>(EVENTS_COLLECTION);
  }

  /**
   * Creates the indexes SPEC.md's queries use: A2 (resource + time), the project-scoped list, type + time, and
   * time order for the unfiltered list. Idempotent.
   */
  async ensureIndexes(): Promise<void> {
    // One index per command: FerretDB 1.24 panics ("slice bounds out of range") on a createIndexes carrying several.
    const specs = [
      { key: { generated: 1, _id: 1 }, name: 'generated' },
      { key: { 't.resource_id': 1, generated: 1 }, name: 'resource_generated' },
      { key: { project_id: 1, generated: 1 }, name: 'project_generated' },
      { key: { event_type: 1, generated: 1 }, name: 'type_generated' },
    ] as const;
    for (const { key, name } of specs) await this.col.createIndex(key, { name });
  }

  /**
   * Stores events, skipping any whose message_id is already stored (idempotent on message_id).
   * @returns how many were new and how many were duplicates.
   */
  async insertMany(docs: EventDoc[]): Promise<{ inserted: number; duplicates: number }> {
    if (docs.length === 0) return { inserted: 0, duplicates: 0 };
    try {
      const r = await this.col.insertMany(docs, { ordered: false });
      return { inserted: r.insertedCount, duplicates: 0 };
    } catch (err) {
      if (err instanceof MongoBulkWriteError) {
        const errors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
        if (errors.every((e) => e.code === 11000)) {
          return { inserted: err.insertedCount, duplicates: errors.length };
        }
      }
      throw err;
    }
  }

  async findOne(filter: Filter<EventDoc>): Promise<EventDoc | null> {
    return this.col.findOne(filter);
  }

  async find(filter: Filter<EventDoc>, sort: Sort, limit: number): Promise<EventDoc[]> {
    return this.col
      .find(filter, { projection: { t: 0, project_id: 0 } })
      .sort(sort)
      .limit(limit)
      .toArray();
  }
}
