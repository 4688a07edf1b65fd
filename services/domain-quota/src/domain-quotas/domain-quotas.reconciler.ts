/**
 * Settles the edits of the quota tree whose process died between their steps (domain-quotas.edits.ts), so a
 * reservation left on a parent by a kill -9 or a store failing mid-edit comes back by itself, as Nova's
 * `quota_usage_refresh` and Cinder's reservation expiry do for theirs.
 *
 * At start and then every `intervalMs`, one pass looks for edits reserved more than `leaseMs` ago (an edit takes
 * milliseconds; one still pending after the lease lost its process, or is so slow that fencing it off is harmless)
 * and settles at most `batch` of them with QuotaTreeEdits.resolve: forward when the child holds the new values, back
 * otherwise. Every step is a conditional write that first checks the edit is still pending, so replicas running the
 * same pass, and the edit itself if it was only slow, never settle one twice.
 */
import type { Logger } from 'pino';
import { type QuotaTreeEdits, type Resolution, staleEdits } from './domain-quotas.edits';
import type { QuotaTreeRepository } from './domain-quotas.repository';

export interface ReconcilerOptions {
  /** Time between passes, in milliseconds (0: only the pass at start). */
  intervalMs: number;
  /** Age of a reservation after which its edit is settled, in milliseconds. */
  leaseMs: number;
  /** Most edits settled per pass. */
  batch: number;
}

/** What one pass did. */
export interface ReconcileResult {
  forward: number;
  back: number;
  /** Edits whose settling failed (a store error); the next pass tries them again. */
  failed: number;
}

export class EditReconciler {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private closed = false;

  constructor(
    private readonly edits: QuotaTreeEdits,
    private readonly repo: QuotaTreeRepository,
    private readonly opts: ReconcilerOptions,
    private readonly log: Logger,
  ) {}

  /**
   * One pass: settles up to `batch` edits reserved at or before `now - leaseMs`. An edit that fails to settle is
   * logged and left for the next pass; the others are still settled.
   * @throws store errors of the query for nodes with such edits (the next pass tries again).
   */
  async pass(now = Date.now()): Promise<ReconcileResult> {
    const before = now - this.opts.leaseMs;
    const result: ReconcileResult = { forward: 0, back: 0, failed: 0 };
    let budget = this.opts.batch;
    for (const node of await this.repo.nodesWithPendingBefore(before, this.opts.batch)) {
      for (const [id, edit] of staleEdits(node.state, before)) {
        if (budget-- <= 0) return result;
        let how: Resolution;
        try {
          how = await this.edits.resolve(node.state.region, node.state.domain_id, id);
        } catch (err) {
          result.failed++;
          this.log.warn(
            { region: node.state.region, parent: node.state.domain_id, child: edit.child, edit: id, err: String(err) },
            'unfinished quota edit could not be settled; next pass will retry',
          );
          continue;
        }
        if (how === 'settled') continue;
        result[how]++;
        this.log.warn(
          {
            region: node.state.region,
            parent: node.state.domain_id,
            child: edit.child,
            edit: id,
            changes: edit.changes,
            reserved_at: new Date(edit.at).toISOString(),
          },
          how === 'forward'
            ? 'unfinished quota edit rolled forward (its reservation released)'
            : 'unfinished quota edit rolled back (its reservation returned)',
        );
      }
    }
    return result;
  }

  /** Runs a pass now, then every `intervalMs` (never two at once in this process). */
  start(): void {
    const tick = async () => {
      this.timer = undefined;
      try {
        await this.pass();
      } catch (err) {
        this.log.warn({ err: String(err) }, 'quota edit reconciler pass failed; next pass will retry');
      }
      if (!this.closed && this.opts.intervalMs > 0) {
        this.timer = setTimeout(() => {
          this.running = tick();
        }, this.opts.intervalMs);
        this.timer.unref();
      }
    };
    this.running = tick();
  }

  /** Stops the timer and waits for a running pass. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }
}
