/**
 * The replicas of one upstream service (EVENT_QUERY_URL, LBAAS_QUOTA_URL, DOMAIN_QUOTA_URL each name one or more):
 * which one the next request goes to. Pure: the caller gives the time, so the rules are tested without a clock.
 *
 * Rules (gateway/README.md "Replicas"): requests go round-robin over the replicas not cooling down; a replica that
 * failed to connect cools down for `cooldownMs` and is skipped meanwhile, unless every replica is cooling down (then
 * all of them take turns again, so a service that is back is found without waiting); a retry never goes to the
 * replica that just failed.
 */
export class Replicas {
  /** Until when (epoch milliseconds) each replica is skipped; 0 = not cooling down. */
  private readonly coolingUntil: number[];
  /** Where the round-robin looks first. */
  private next = 0;

  /**
   * @param urls the replicas' base URLs, at least one, in the order configured.
   * @param cooldownMs how long a replica that failed to connect is skipped, in milliseconds.
   */
  constructor(
    readonly urls: readonly string[],
    readonly cooldownMs: number,
  ) {
    if (urls.length === 0) throw new Error('an upstream needs at least one replica');
    this.coolingUntil = urls.map(() => 0);
  }

  /**
   * The index of the replica to send a request to at `now` (epoch milliseconds): the next one round-robin that is not
   * cooling down and is not `except`; when all of those are cooling down, the next one that is not `except`.
   * @param except a replica not to pick (the one a retry is for); -1 for none.
   * @returns the replica's index, or -1 when there is none but `except` (a retry with a single replica).
   */
  pick(now: number, except = -1): number {
    const n = this.urls.length;
    let fallback = -1;
    for (let k = 0; k < n; k++) {
      const i = (this.next + k) % n;
      if (i === except) continue;
      if ((this.coolingUntil[i] ?? 0) <= now) {
        this.next = (i + 1) % n;
        return i;
      }
      if (fallback < 0) fallback = i;
    }
    if (fallback >= 0) this.next = (fallback + 1) % n;
    return fallback;
  }

  /** Replica `i` failed to connect at `now`: it is skipped for `cooldownMs`. */
  failed(i: number, now: number): void {
    this.coolingUntil[i] = now + this.cooldownMs;
  }

  /** Replica `i` answered (or at least took the connection): it is no longer cooling down. */
  succeeded(i: number): void {
    this.coolingUntil[i] = 0;
  }

  /** Whether replica `i` is cooling down at `now`. */
  coolingDown(i: number, now: number): boolean {
    return (this.coolingUntil[i] ?? 0) > now;
  }
}

/** The network errors that mean the upstream was never reached: the replica failed to connect (and cools down). */
const CONNECT_FAILURES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'UPSTREAM_CONNECT_TIMEOUT']);

/** Whether `code` says the replica could not be connected to (a cool-down, and a retry of any request). */
export const failedToConnect = (code: string | undefined): boolean => CONNECT_FAILURES.has(code ?? '');

/**
 * Whether a failed upstream request may be sent again to another replica, once, when nothing came back:
 * - any request, whatever its method, when the replica could not be connected to (failedToConnect): no byte of it
 *   was sent, so a write cannot have been applied (the gateway holds its body, buffered, to send again);
 * - a GET or HEAD (idempotent, no body) also when the connection was reset or broken (ECONNRESET, EPIPE: a replica
 *   killed, a kept-alive connection closed under the request) before any response. A write is not: it may have
 *   been applied before the connection broke.
 * A request the upstream took too long to answer is not retried (it may have been served).
 */
export function retriable(failure: {
  method: string | undefined;
  code: string | undefined;
  responded: boolean;
  retried: boolean;
  timedOut: boolean;
}): boolean {
  if (failure.retried || failure.responded || failure.timedOut) return false;
  if (failedToConnect(failure.code)) return true;
  if (failure.method !== 'GET' && failure.method !== 'HEAD') return false;
  return failure.code === 'ECONNRESET' || failure.code === 'EPIPE';
}
