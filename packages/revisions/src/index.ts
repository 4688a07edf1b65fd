/**
 * Linearizable read-modify-write of records, on MongoDB and on FerretDB 1.x alike.
 *
 * Why not `findOneAndUpdate` with a condition: FerretDB 1.x has no transactions, and it applies an update's filter in
 * its own process, then writes the document back by `_id` (handler/common/update.go → `UPDATE … WHERE _id = $2`), so
 * two concurrent conditional updates of one document can both match and the last write wins. The only atomic
 * primitive that FerretDB and MongoDB share is the unique `_id`: an insert either creates the document or fails with
 * E11000.
 *
 * So every change of a record is a new revision, claimed by inserting `{_id: "<key>@<n>"}` into a log collection.
 * Whoever inserts revision n + 1 first has made the change (the insert is the commit point); every other writer that
 * read revision n retries on the new state. The current state of a key is its head document, rolled forward over any
 * log entries newer than the head. Heads are what lists and filters read; they converge on the latest revision (a
 * writer re-checks the log after writing its head and repairs it when a writer on another replica got ahead).
 *
 * Within one process, updates of one key are queued and committed in groups (all those that arrived while the
 * previous commit ran, as one revision), so contention costs retries only between replicas and a hot key costs one
 * commit per group rather than per update.
 *
 * Collections: `<name>` (heads: `{_id: key, revision, ...state}`) and `<name>.revisions`
 * (`{_id: "<key>@<n>", key, revision, state, at}`; the newest `keep` revisions of each key are kept).
 */
import type { Collection, Db, Document } from 'mongodb';

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

interface LogDoc<S> {
  _id: string;
  key: string;
  revision: number;
  state: S;
  at: Date;
}

type HeadDoc = Document & { _id: string; revision: number };

/** An update waiting for its key's next commit. */
interface PendingUpdate<S, R> {
  decide(current: Revision<S> | null): Decision<S, R>;
  resolve(v: { result: R; current: Revision<S> | null }): void;
  reject(e: unknown): void;
}

/**
 * A cache of heads in front of the store, for `peek` (implementations in @stratum/cache). Entries carry their
 * revision and only ever move forward (`offer` ignores an older revision), so a slow reader filling a miss cannot
 * hide a newer change. A cache that fails answers a miss; the store stays the truth.
 */
export interface RevisionCache {
  /** The cached head: revision (0 = the key has no record) and the state's JSON, or null on a miss. */
  get(key: string): Promise<{ revision: number; json: string } | null>;
  /** Stores the head unless the cache holds a newer revision. Never throws. */
  offer(key: string, revision: number, json: string): Promise<void>;
}

export interface RevisionedRecordsOptions {
  /** Serves `peek` from this cache; every committed revision is offered to it. */
  cache?: RevisionCache;
  /** Log entries kept per key below the newest; must exceed the number of replicas writing one key at once. Default 16. */
  keep?: number;
  /** Attempts before RevisionConflictError. Default 40. */
  maxAttempts?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** E11000 (duplicate key), as MongoDB and FerretDB report it. */
export function isDuplicateKeyError(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { code?: unknown }).code === 11000;
}

/** The log `_id` of revision `n` of `key` (unique: a revision is digits, so the last `@` splits it). */
export const revisionId = (key: string, n: number) => `${key}@${n}`;

/**
 * Records of state `S` (a plain object without `_id` or `revision` keys) keyed by string.
 */
export class RevisionedRecords<S extends Document> {
  /** Heads: one document per key, the state's fields at top level plus `revision`. Query these for lists. */
  readonly heads: Collection<HeadDoc>;
  private readonly log: Collection<LogDoc<S>>;
  /** Updates waiting per key (group commit), and the keys whose queue is being committed. */
  private readonly pending = new Map<string, PendingUpdate<S, unknown>[]>();
  private readonly draining = new Set<string>();
  private readonly keep: number;
  private readonly maxAttempts: number;
  private readonly cache?: RevisionCache;

  constructor(db: Db, name: string, opts: RevisionedRecordsOptions = {}) {
    this.heads = db.collection<HeadDoc>(name);
    this.log = db.collection<LogDoc<S>>(`${name}.revisions`);
    this.keep = opts.keep ?? 16;
    this.maxAttempts = opts.maxAttempts ?? 40;
    this.cache = opts.cache;
  }

  /** The state of a head document (its fields without `_id` and `revision`). */
  static stateOf<S>(head: Document): S {
    const { _id, revision, ...state } = head;
    return state as S;
  }

  /**
   * The head of `key` without rolling forward: one lookup, for reads that may lag a change still being published
   * (a writer answers only after publishing its head, so a caller sees its own changes). Null when never written.
   */
  async peek(key: string): Promise<Revision<S> | null> {
    const cached = await this.cache?.get(key);
    if (cached) return cached.revision === 0 ? null : { revision: cached.revision, state: JSON.parse(cached.json) as S };
    const rev = await this.headOf(key);
    await this.cache?.offer(key, rev?.revision ?? 0, rev ? JSON.stringify(rev.state) : 'null');
    return rev;
  }

  /** The store's head of `key`, bypassing the cache (writers and linearizable reads). */
  private async headOf(key: string): Promise<Revision<S> | null> {
    const head = await this.heads.findOne({ _id: key });
    // A document written before it was revisioned (no `revision`) counts as revision 0.
    return head ? { revision: Number.isInteger(head.revision) ? head.revision : 0, state: RevisionedRecords.stateOf<S>(head) } : null;
  }

  /** The current revision of `key` (linearizable), or null when it was never written. */
  async read(key: string): Promise<Revision<S> | null> {
    return this.rollForward(key, await this.headOf(key));
  }

  private async rollForward(key: string, from: Revision<S> | null): Promise<Revision<S> | null> {
    let current = from;
    for (;;) {
      const next = await this.log.findOne({ _id: revisionId(key, (current?.revision ?? 0) + 1) });
      if (!next) return current;
      current = { revision: next.revision, state: next.state };
    }
  }

  /**
   * Reads the current revision of `key`, asks `decide` what to do, and commits `next` as the following revision if
   * no one else committed one in between (else reads again and asks again). `decide` may throw to refuse; it must
   * have no side effects, as it may run several times.
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

  /**
   * Group commit: the updates queued for one key while the previous commit ran are decided in order, each on the
   * state the ones before it left (with the base revision number), and committed together as one revision. One
   * insert decides for all of them; if another replica won the revision, every decision is taken again on its
   * state. A `decide` that throws refuses its own update only.
   */
  private async commitBatch(key: string, batch: PendingUpdate<S, unknown>[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      let base: Revision<S> | null;
      try {
        // First attempt on the head alone (one round trip): if it lags the log, the insert below fails and the
        // next attempt rolls forward.
        base = attempt === 1 ? await this.headOf(key) : await this.read(key);
      } catch (e) {
        for (const u of batch) u.reject(e);
        return;
      }
      let state = base;
      let changed = false;
      const outcomes: ({ ok: true; result: unknown } | { ok: false; error: unknown })[] = [];
      for (const u of batch) {
        try {
          const { next, result } = u.decide(state);
          if (next !== undefined) {
            state = { revision: base?.revision ?? 0, state: next };
            changed = true;
          }
          outcomes.push({ ok: true, result });
        } catch (error) {
          outcomes.push({ ok: false, error });
        }
      }
      const settle = (current: Revision<S> | null) =>
        batch.forEach((u, i) => {
          const o = outcomes[i] as (typeof outcomes)[number];
          if (o.ok) u.resolve({ result: o.result, current });
          else u.reject(o.error);
        });
      if (!changed || !state) {
        settle(base);
        return;
      }
      const revision = (base?.revision ?? 0) + 1;
      try {
        await this.log.insertOne({ _id: revisionId(key, revision), key, revision, state: state.state, at: new Date() });
      } catch (e) {
        if (isDuplicateKeyError(e) && attempt < this.maxAttempts) {
          // Another replica committed this revision; back off a little, with jitter, and decide again on its state.
          await sleep(Math.random() * Math.min(50, 2 * attempt));
          continue;
        }
        const error = isDuplicateKeyError(e) ? new RevisionConflictError(key) : e;
        for (const u of batch) u.reject(error);
        return;
      }
      const committed = { revision, state: state.state };
      // The log entry is the commit; a failed head write only delays the head (readers roll forward).
      await this.publish(key, committed).catch(() => undefined);
      settle(committed);
      return;
    }
  }

  /** Writes the head, then repairs it while a newer revision exists (a concurrent writer may have written first). */
  private async publish(key: string, rev: Revision<S>): Promise<void> {
    let latest = rev;
    for (let i = 0; i < this.keep; i++) {
      await this.writeHead(key, latest);
      await this.cache?.offer(key, latest.revision, JSON.stringify(latest.state));
      const newer = (await this.rollForward(key, latest)) as Revision<S>;
      if (newer.revision === latest.revision) break;
      latest = newer;
    }
    // One deleteOne by `_id` per revision (FerretDB pushes `_id` equality down to PostgreSQL, not `$in`), not
    // awaited: pruning is housekeeping, and a missed one only keeps an old entry.
    if (rev.revision > this.keep) void this.log.deleteOne({ _id: revisionId(key, rev.revision - this.keep) }).catch(() => undefined);
  }

  private async writeHead(key: string, rev: Revision<S>): Promise<void> {
    const doc = { ...rev.state, revision: rev.revision };
    if ((await this.heads.replaceOne({ _id: key }, doc)).matchedCount > 0) return;
    try {
      await this.heads.insertOne({ _id: key, ...doc });
    } catch (e) {
      if (!isDuplicateKeyError(e)) throw e;
      await this.heads.replaceOne({ _id: key }, doc); // another replica created it first
    }
  }
}
