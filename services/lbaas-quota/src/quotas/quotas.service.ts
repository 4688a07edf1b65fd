/**
 * Group B rules: default resolution (Octavia `_get_db_quotas`: a null limit takes the configured default), list,
 * show, update, reset, and enforcement (Octavia `check_quota_met` / `decrement_quota`, without their drift).
 *
 * Every change is a linearizable read-modify-write of the project's record (QuotasRepository.change), so concurrent
 * consumes never take `in_use` past a limit, on any number of replicas.
 */
import { createHash } from 'node:crypto';
import {
  LBAAS_DISPLAY_NAME,
  LBAAS_RESOURCES,
  type LbaasLimits,
  type LbaasResolved,
  type LbaasResource,
  QUOTA_UNLIMITED,
} from '@stratum/quota-items';
import { type Decision, type Revision, RevisionConflictError } from '@stratum/revisions';
import { idempotencyKeyReused, projectBusy, quotaMet, quotaMetMessage, quotaNotFound, resetOverQuota } from '../errors';
import {
  emptyQuotaState,
  type IdempotencyRecord,
  type ListWindow,
  type QuotaDoc,
  type QuotaState,
  type QuotasRepository,
} from './quotas.repository';
import type { EnforcementAction, IdempotencyKey, ResourceCounts } from './quotas.schema';

/** What an enforcement call answered: its usage after the change (200), or Octavia's over-quota refusal (403). */
export type EnforcementOutcome = { status: 200; usage: QuotaUsage } | { status: 403; message: string };

/** How long and how many idempotency keys each project remembers (whichever runs out first). */
export interface IdempotencyRetention {
  /** Keys per project; the oldest goes first. */
  maxKeys: number;
  /** Lifetime of a key, in ms. */
  ttlMs: number;
}

/**
 * Fingerprint of an enforcement request (action and normalized counts), so a key sent again with another request is
 * recognised (as the IETF idempotency-key draft and Stripe compare request payloads). Both spellings of a resource
 * give the same fingerprint, as they are the same request.
 */
export function fingerprintOf(action: EnforcementAction, counts: ResourceCounts): string {
  const canonical = JSON.stringify([action, LBAAS_RESOURCES.map((r) => counts[r] ?? null)]);
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 22);
}

/** A project's effective limits and in_use counts. */
export interface QuotaUsage {
  projectId: string;
  limits: LbaasResolved;
  inUse: Record<LbaasResource, number>;
}

export class QuotasService {
  constructor(
    private readonly repo: QuotasRepository,
    /** Deployment defaults, from configuration (same on every replica that shares the configuration). */
    readonly defaults: Readonly<LbaasResolved>,
    private readonly pageMax: number,
    private readonly retention: IdempotencyRetention = { maxKeys: 100, ttlMs: 86_400_000 },
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
      if (e instanceof RevisionConflictError) throw projectBusy();
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
   * One page of records in project_id order (`direction`), walking from `marker` (backwards when `reverse`); with
   * `projectId`, only records of that project (the marker still applies).
   * @returns the page in `direction` order, and whether matching records lie after it (`hasNext`) and before it
   *   (`hasPrevious`) in that order. An empty page has neither (as Octavia's pagination helper gives no links then).
   */
  async list(w: Omit<ListWindow, 'limit'> & { limit?: number }): Promise<{ docs: QuotaDoc[]; hasNext: boolean; hasPrevious: boolean }> {
    const limit = w.limit === undefined || w.limit <= 0 ? this.pageMax : Math.min(w.limit, this.pageMax);
    const rows = await this.repo.list({ ...w, limit: limit + 1 });
    const walked = rows.slice(0, limit);
    const more = rows.length > limit;
    const docs = w.reverse ? walked.reverse() : walked;
    const first = docs[0];
    const last = docs.at(-1);
    if (!first || !last) return { docs, hasNext: false, hasPrevious: false };
    // Behind the page (towards the marker) there can only be records when a marker was given: look, since a
    // filter or a marker that is no record may leave nothing there.
    const behind = (from: string, walk: 1 | -1) => (w.marker === undefined ? false : this.repo.existsBeyond(w.projectId, from, walk));
    return w.reverse
      ? { docs, hasNext: await behind(last._id, w.direction), hasPrevious: more }
      : { docs, hasNext: more, hasPrevious: await behind(first._id, -w.direction as 1 | -1) };
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
      return same ? { result: undefined } : { next: { ...state, limits: next }, result: undefined };
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
      if (!cur) throw quotaNotFound(projectId);
      const over = LBAAS_RESOURCES.filter((r) => this.defaults[r] !== QUOTA_UNLIMITED && cur.state.in_use[r] > this.defaults[r]);
      if (over.length > 0 && !force) {
        const what = over.map((r) => `${LBAAS_DISPLAY_NAME[r]} (${cur.state.in_use[r]} in use, default ${this.defaults[r]})`);
        throw resetOverQuota(projectId, what);
      }
      return { next: { ...cur.state, limits: emptyQuotaState().limits }, result: undefined };
    });
  }

  /**
   * A consume or a release. Consume is all or nothing against the effective limits (as Octavia's check_quota_met,
   * with the increment and the check in one step): allowed when `in_use + count <= limit` or the limit is -1, else a
   * 403 `Quota has been met for resources: <Name>[, <Name>…]` naming every resource over its limit. Release is
   * Octavia's decrement_quota, clamped: in_use never drops below 0; a project without a record is left without one.
   *
   * Answered once per idempotency key: with `key`, the outcome (200 and its usage, or the
   * 403) is remembered in the project's record by the same conditional write as the change, and a later call with the
   * same key and the same request gets that outcome again without changing anything, on any replica. Keys are kept
   * per project, the last `retention.maxKeys` of them for at most `retention.ttlMs`; an older key counts as new.
   * A keyed release for a project without a record creates the record, to remember the key.
   * @returns the outcome, and whether it is a replay of an earlier call's.
   * A key taken from the client's request id is bound to the request too, so only the same call under that id replays.
   * @throws AppError 422 when an `Idempotency-Key` was used for another request (another action or other counts) on this project;
   *   503 when the project stays contended.
   */
  async enforce(
    projectId: string,
    action: EnforcementAction,
    counts: ResourceCounts,
    idempotency?: IdempotencyKey,
  ): Promise<{ outcome: EnforcementOutcome; replayed: boolean }> {
    const fingerprint = idempotency === undefined ? '' : fingerprintOf(action, counts);
    const key = idempotency === undefined ? undefined : idempotency.fromRequestId ? `${idempotency.key} ${fingerprint}` : idempotency.key;
    const { result, current } = await this.change<{ outcome?: EnforcementOutcome; replayed: boolean }>(projectId, (cur) => {
      const now = Date.now();
      if (key !== undefined) {
        const prior = this.recall(cur?.state, key, now);
        if (prior) {
          if (prior.fingerprint !== fingerprint) {
            throw idempotencyKeyReused(key, projectId);
          }
          return { result: { outcome: this.outcomeOf(projectId, prior), replayed: true } };
        }
      } else if (!cur && action === 'release') return { result: { replayed: false } };
      const state = cur?.state ?? emptyQuotaState();
      const step = action === 'consume' ? this.consumed(state, counts) : { inUse: this.released(state, counts) };
      if ('refusal' in step && key === undefined) throw quotaMet(step.refusal);
      const next: QuotaState = { ...state, in_use: 'refusal' in step ? state.in_use : step.inUse };
      const outcome: EnforcementOutcome =
        'refusal' in step ? { status: 403, message: step.refusal } : { status: 200, usage: this.usageOf(projectId, next) };
      if (key !== undefined)
        next.idempotency_keys = this.remember(state.idempotency_keys, { key, fingerprint, at: now, ...this.recordOf(outcome) }, now);
      return { next, result: { outcome, replayed: false } };
    });
    return {
      outcome: result.outcome ?? { status: 200, usage: this.usageOf(projectId, current?.state ?? emptyQuotaState()) },
      replayed: result.replayed,
    };
  }

  /** The in_use after consuming `counts`, or the refusal naming every resource that would go over its limit. */
  private consumed(state: QuotaState, counts: ResourceCounts): { inUse: Record<LbaasResource, number> } | { refusal: string } {
    const limits = this.resolve(state.limits);
    const inUse = { ...state.in_use };
    const over: LbaasResource[] = [];
    for (const r of LBAAS_RESOURCES) {
      const n = counts[r];
      if (n === undefined) continue;
      if (limits[r] !== QUOTA_UNLIMITED && inUse[r] + n > limits[r]) over.push(r);
      inUse[r] += n;
    }
    return over.length > 0 ? { refusal: quotaMetMessage(over.map((r) => LBAAS_DISPLAY_NAME[r])) } : { inUse };
  }

  /** The in_use after releasing `counts`, clamped at 0. */
  private released(state: QuotaState, counts: ResourceCounts): Record<LbaasResource, number> {
    const inUse = { ...state.in_use };
    for (const r of LBAAS_RESOURCES) if (counts[r] !== undefined) inUse[r] = Math.max(0, inUse[r] - (counts[r] as number));
    return inUse;
  }

  /** The remembered call of `key`, unless it expired. */
  private recall(state: QuotaState | undefined, key: string, now: number): IdempotencyRecord | undefined {
    return state?.idempotency_keys?.find((k) => k.key === key && now - k.at < this.retention.ttlMs);
  }

  /** `kept` without expired keys, plus `entry`, at most `retention.maxKeys` (the oldest dropped first). */
  private remember(kept: IdempotencyRecord[] | undefined, entry: IdempotencyRecord, now: number): IdempotencyRecord[] {
    const live = (kept ?? []).filter((k) => now - k.at < this.retention.ttlMs);
    live.push(entry);
    return live.slice(-this.retention.maxKeys);
  }

  private recordOf(outcome: EnforcementOutcome): Pick<IdempotencyRecord, 'status' | 'limits' | 'in_use' | 'message'> {
    if (outcome.status === 403) return { status: 403, message: outcome.message };
    return {
      status: 200,
      limits: LBAAS_RESOURCES.map((r) => outcome.usage.limits[r]),
      in_use: LBAAS_RESOURCES.map((r) => outcome.usage.inUse[r]),
    };
  }

  private outcomeOf(projectId: string, k: IdempotencyRecord): EnforcementOutcome {
    if (k.status === 403) return { status: 403, message: k.message ?? '' };
    const limits = {} as LbaasResolved;
    const inUse = {} as Record<LbaasResource, number>;
    LBAAS_RESOURCES.forEach((r, i) => {
      limits[r] = k.limits?.[i] ?? this.defaults[r];
      inUse[r] = k.in_use?.[i] ?? 0;
    });
    return { status: 200, usage: { projectId, limits, inUse } };
  }

  /** Reconciliation: sets absolute in_use counts (may exceed a limit: they report what exists). */
  async setInUse(projectId: string, counts: ResourceCounts): Promise<QuotaUsage> {
    const { current } = await this.change<void>(projectId, (cur) => {
      const state = cur?.state ?? emptyQuotaState();
      return { next: { ...state, in_use: { ...state.in_use, ...counts } }, result: undefined };
    });
    return this.usageOf(projectId, current?.state ?? emptyQuotaState());
  }
}
