/**
 * Retention (`[database] event_time_to_live`, Panko's expirer done right): deletes events generated more than
 * `ttlSeconds` ago in batches of `batchSize` (bounded memory, short operations; Panko's expirer deleted
 * everything in one call, docs/upstream/events.md §14 #12), then drops event-type summaries left without events.
 * A TTL index cannot do it: it needs a BSON date, and `generated` is a fixed-width string (microseconds; see
 * events.model.ts). So this runs as a command (`pnpm events expire`) or on a schedule in the service.
 */
import type { Logger } from 'pino';
import type { EventsRepository } from '../events/events.repository';

export interface ExpiryResult {
  /** Canonical timestamp; events generated before it were deleted. */
  cutoff: string;
  deleted: number;
  batches: number;
  summariesDropped: number;
}

/** `now - ttlSeconds` in canonical form (`YYYY-MM-DDThh:mm:ss.ffffff`, naive UTC). */
export function cutoffFor(ttlSeconds: number, now = new Date()): string {
  return `${new Date(now.getTime() - ttlSeconds * 1000).toISOString().slice(0, 23)}000`;
}

/**
 * Deletes expired events. A ttl of -1 (or 0) keeps everything, as Panko.
 * @throws the driver's error when the store fails; a rerun continues where this one stopped.
 */
export async function expireEvents(
  repo: EventsRepository,
  ttlSeconds: number,
  batchSize: number,
  logger?: Logger,
  now = new Date(),
): Promise<ExpiryResult> {
  const cutoff = cutoffFor(Math.max(ttlSeconds, 0), now);
  const result: ExpiryResult = { cutoff, deleted: 0, batches: 0, summariesDropped: 0 };
  if (ttlSeconds <= 0) return result;
  for (;;) {
    const ids = await repo.idsGeneratedBefore(cutoff, batchSize);
    if (ids.length === 0) break;
    result.deleted += await repo.deleteByIds(ids);
    result.batches++;
    logger?.debug({ deleted: result.deleted }, 'expirer batch');
    if (ids.length < batchSize) break;
  }
  result.summariesDropped = await repo.pruneSummaries();
  logger?.info(result, 'expired events');
  return result;
}
