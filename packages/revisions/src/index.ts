/**
 * Linearizable read-modify-write of records, by the store's atomic conditional single-document update.
 *
 * Each record is one document `{_id: key, revision, ...state}`. A change reads the record, decides its next state,
 * and writes it with `replaceOne({_id: key, revision: n}, {...next, revision: n + 1})` (or `insertOne` for a new
 * key): the store applies the filter and the write as one step, so of two writers that read revision n exactly one
 * succeeds, and the other decides again on the state that won. This is optimistic concurrency on a version number,
 * the same compare-and-set MongoDB's and Octavia's quota code use; MongoDB ≥ 6 and FerretDB 2.x with DocumentDB
 * apply conditional updates atomically (docs/stores.md, "Writes"), which FerretDB 1.x did not.
 *
 * Round trips: with a cache (see RevisionCache), a change first decides on the cached head and writes at once, one
 * round trip to the store; a stale head only costs a failed write and a read. Without one, or after a failed write,
 * it is a read and a write. A decision that writes nothing (a refusal, or no change) on a cached head is confirmed
 * against the store before it is answered, so a stale cache never refuses what the store would allow.
 *
 * Within one process, updates of one key are queued and committed in groups (all those that arrived while the
 * previous commit ran, as one revision), so a hot key costs one write per group rather than per update, and
 * contention costs retries only between replicas.
 *
 * Crash safety of the cache: before it writes revision n + 1, a writer marks the key in the cache as "revision n + 1
 * being committed" (an entry with an empty JSON). Readers take such an entry as a miss and read the store, and the
 * cache keeps it against older offers, so a process killed between its commit and its cache update leaves no stale
 * entry behind: the next read rolls the cache forward to what the store holds (the write-intent of a write-through
 * cache). A marker whose write never committed only costs store reads until a newer revision or its expiry.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Collection, Db, Document, Filter } from 'mongodb';

/** A record's state at one revision (revisions count from 1; a key never written has none). */
export interface Revision<S> {
  revision: number;
  state: S;
}

/** What an update decided: `next` (undefined = no change) and the caller's result. */
export interface Decision<S, R> {
  next?: S;
  result: R;
}

/** Raised when a key stayed contended for every attempt (Octavia's 503 `Project busy` situation). */
export class RevisionConflictError extends Error {
  constructor(readonly key: string) {
    super(`record ${key} is busy: too many concurrent changes`);
    this.name = 'RevisionConflictError';
  }
}

type HeadDoc = Document & { _id: string; revision?: number };

/** An update waiting for its key's next commit. */
interface PendingUpdate<S, R> {
  decide(current: Revision<S> | null): Decision<S, R>;
  resolve(v: { result: R; current: Revision<S> | null }): void;
  reject(e: unknown): void;
}

/**
 * A cache of records in front of the store, for `peek` and for the first attempt of `update` (implementations in
 * @stratum/cache). Entries carry their revision and only ever move forward (`offer` ignores an older revision), so a
 * slow reader filling a miss cannot hide a newer change. A cache that fails answers a miss; the store stays the truth.
 */
export interface RevisionCache {
  /**
   * The cached record: revision (0 = the key has no record) and the state's JSON, or null on a miss. An empty JSON is
   * a write-intent marker (revision being committed), which RevisionedRecords reads as a miss.
   */
  get(key: string): Promise<{ revision: number; json: string } | null>;
  /** Stores the record (or a marker, JSON ''), unless the cache holds a newer revision. Never throws. */
  offer(key: string, revision: number, json: string): Promise<void>;
}

/** The JSON of a write-intent marker in a RevisionCache: "this revision is being committed; read the store". */
export const INTENT_MARKER = '';

export interface RevisionedRecordsOptions {
  /** Serves `peek` and first attempts from this cache; every committed revision is offered to it. */
  cache?: RevisionCache;
  /** Attempts before RevisionConflictError. Default 40. */
  maxAttempts?: number;
}

/** E11000 (duplicate key), as MongoDB and FerretDB report it. */
export function isDuplicateKeyError(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { code?: unknown }).code === 11000;
}

/** Where a decision's base came from: the cache (may be stale) or the store (current when read). */
type Base<S> = { rev: Revision<S> | null; cached: boolean };

/**
 * Records of state `S` (a plain object without `_id` or `revision` keys) keyed by string.
 */
export class RevisionedRecords<S extends Document> {
  /** One document per key: the state's fields at top level plus `revision`. Query these for lists. */
  readonly heads: Collection<HeadDoc>;
  /** Updates waiting per key (group commit), and the keys whose queue is being committed. */
  private readonly pending = new Map<string, PendingUpdate<S, unknown>[]>();
  private readonly draining = new Set<string>();
  private readonly maxAttempts: number;
  private readonly cache?: RevisionCache;

  constructor(db: Db, name: string, opts: RevisionedRecordsOptions = {}) {
    this.heads = db.collection<HeadDoc>(name);
    this.maxAttempts = opts.maxAttempts ?? 40;
    this.cache = opts.cache;
  }

  /** The state of a record document (its fields without `_id` and `revision`). */
  static stateOf<S>(head: Document): S {
    const { _id, revision, ...state } = head;
    return state as S;
  }

  /**
   * The record of `key` from the cache, else the store (one lookup). It may lag a change another replica made within
   * the cache's lifetime (a writer offers its change before answering, so a caller sees its own changes). Null when
   * never written.
   */
  async peek(key: string): Promise<Revision<S> | null> {
    const cached = await this.cachedOf(key);
    if (cached !== undefined) return cached;
    const rev = await this.read(key);
    await this.offer(key, rev);
    return rev;
  }

  /** The current revision of `key` from the store (linearizable), or null when it was never written. */
  async read(key: string): Promise<Revision<S> | null> {
    const head = await this.heads.findOne({ _id: key });
    // A document written before it was revisioned (no `revision`) counts as revision 0.
    return head
      ? { revision: Number.isInteger(head.revision) ? (head.revision as number) : 0, state: RevisionedRecords.stateOf<S>(head) }
      : null;
  }

  /** The cached record (null = cached as absent), or undefined on a miss or without a cache. */
  private async cachedOf(key: string): Promise<Revision<S> | null | undefined> {
    const c = await this.cache?.get(key);
    if (!c || c.json === INTENT_MARKER) return undefined;
    return c.revision === 0 ? null : { revision: c.revision, state: JSON.parse(c.json) as S };
  }

  private async offer(key: string, rev: Revision<S> | null): Promise<void> {
    await this.cache?.offer(key, rev?.revision ?? 0, rev ? JSON.stringify(rev.state) : 'null');
  }

  /**
   * Asks `decide` what to do with the current revision of `key`, and commits `next` as the following revision if no
   * one else committed one in between (else asks again on the new state). `decide` may throw to refuse; it must have
   * no side effects, as it may run several times.
   * @returns the result of the call of `decide` whose decision took effect, and the revision it left.
   * @throws RevisionConflictError after `maxAttempts` lost races; store errors as the driver raises them.
   */
  update<R>(key: string, decide: (current: Revision<S> | null) => Decision<S, R>): Promise<{ result: R; current: Revision<S> | null }> {
    return new Promise((resolve, reject) => {
      let queue = this.pending.get(key);
      if (!queue) {
        queue = [];
        this.pending.set(key, queue);
      }
      queue.push({ decide, resolve, reject } as PendingUpdate<S, unknown>);
      if (!this.draining.has(key)) void this.drain(key);
    });
  }

  /** Commits the updates waiting for `key`, a batch at a time, until none is left. */
  private async drain(key: string): Promise<void> {
    this.draining.add(key);
    try {
      for (;;) {
        const batch = this.pending.get(key);
        if (!batch || batch.length === 0) break;
        this.pending.delete(key);
        await this.commitBatch(key, batch);
      }
    } finally {
      this.draining.delete(key);
      this.pending.delete(key);
    }
  }

  /** The base of the first attempt: the cached record when there is one, else the store's. */
  private async firstBase(key: string): Promise<Base<S>> {
    const cached = await this.cachedOf(key);
    return cached !== undefined ? { rev: cached, cached: true } : { rev: await this.read(key), cached: false };
  }

  /**
   * Group commit: the updates queued for one key while the previous commit ran are decided in order, each on the
   * state the ones before it left, and written together as one revision by one conditional write. If the write finds
   * another revision there, every decision is taken again on the store's state. A `decide` that throws refuses its
   * own update only.
   */
  private async commitBatch(key: string, batch: PendingUpdate<S, unknown>[]): Promise<void> {
    const fail = (e: unknown) => {
      for (const u of batch) u.reject(e);
    };
    let base: Base<S>;
    try {
      base = await this.firstBase(key);
    } catch (e) {
      return fail(e);
    }
    for (let attempt = 1; ; attempt++) {
      let state: S | undefined;
      const outcomes: ({ ok: true; result: unknown } | { ok: false; error: unknown })[] = [];
      let allChanged = true;
      for (const u of batch) {
        try {
          const { next, result } = u.decide(state !== undefined ? { revision: base.rev?.revision ?? 0, state } : base.rev);
          if (next !== undefined) state = next;
          else allChanged = false;
          outcomes.push({ ok: true, result });
        } catch (error) {
          allChanged = false;
          outcomes.push({ ok: false, error });
        }
      }
      const settle = (current: Revision<S> | null) =>
        batch.forEach((u, i) => {
          const o = outcomes[i] as (typeof outcomes)[number];
          if (o.ok) u.resolve({ result: o.result, current });
          else u.reject(o.error);
        });
      try {
        // A decision that wrote nothing for some update is only as good as its base: confirm a cached one first.
        if (base.cached && !allChanged) {
          const stored = await this.read(key);
          if ((stored?.revision ?? -1) !== (base.rev?.revision ?? -1)) {
            base = { rev: stored, cached: false };
            await this.offer(key, stored);
            continue;
          }
          base = { rev: stored, cached: false };
        }
        if (state === undefined) return settle(base.rev);
        // Write-intent first: if this process dies after the commit and before the offer below, readers still go to
        // the store instead of trusting the older cached revision.
        await this.cache?.offer(key, (base.rev?.revision ?? 0) + 1, INTENT_MARKER);
        const committed = await this.write(key, base.rev, state);
        if (committed) {
          await this.offer(key, committed);
          return settle(committed);
        }
      } catch (e) {
        return fail(e);
      }
      if (attempt >= this.maxAttempts) return fail(new RevisionConflictError(key));
      // Another writer committed first: back off a little, with jitter, and decide again on the store's state.
      if (attempt > 1) await sleep(Math.random() * Math.min(50, 2 * attempt));
      try {
        base = { rev: await this.read(key), cached: false };
      } catch (e) {
        return fail(e);
      }
    }
  }

  /**
   * Writes `state` as the revision after `base`, if `base` is still the stored revision (one conditional write).
   * @returns the committed revision, or null when another writer got there first.
   */
  private async write(key: string, base: Revision<S> | null, state: S): Promise<Revision<S> | null> {
    const revision = (base?.revision ?? 0) + 1;
    const doc = { ...state, revision };
    if (base === null) {
      try {
        await this.heads.insertOne({ _id: key, ...doc });
      } catch (e) {
        if (isDuplicateKeyError(e)) return null;
        throw e;
      }
    } else {
      // Revision 0 is a document stored before it had a revision field.
      const guard: Filter<HeadDoc> = { _id: key, revision: base.revision === 0 ? { $exists: false } : base.revision };
      if ((await this.heads.replaceOne(guard, doc)).matchedCount === 0) return null;
    }
    return { revision, state };
  }
}
