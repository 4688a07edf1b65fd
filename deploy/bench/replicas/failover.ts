import { statusList } from './enforcement';

// Part 4: failover

export interface Outcome {
  at: number;
  status: string;
}

/**
 * Per-load summary of outcomes around a kill at `killAt` and the replicas answering again at `backAt` (undefined: not
 * restarted): requests, failures by phase, and when each failure came (ms after the kill).
 */
export function failoverRow(
  label: string,
  outcomes: Outcome[],
  killAt: number,
  backAt: number | undefined,
  ok: (s: string) => boolean,
): string {
  const counts = new Map<string, number>();
  for (const o of outcomes) counts.set(o.status, (counts.get(o.status) ?? 0) + 1);
  const failed = outcomes.filter((o) => !ok(o.status));
  const before = failed.filter((o) => o.at < killAt).length;
  const down = failed.filter((o) => o.at >= killAt && (backAt === undefined || o.at < backAt));
  const after = backAt === undefined ? [] : failed.filter((o) => o.at >= backAt);
  const offsets = down.map((o) => o.at - killAt);
  const shown = offsets.length > 12 ? `${offsets.slice(0, 12).join(', ')}, … (${offsets.length})` : offsets.join(', ') || '—';
  const pct = ((100 * failed.length) / Math.max(1, outcomes.length)).toFixed(2);
  return `| ${label} | ${outcomes.length.toLocaleString('en')} | ${failed.length} (${pct} %) | ${statusList(counts)} | ${before} | ${down.length} | ${shown} | ${backAt === undefined ? '—' : after.length} |`;
}

/**
 * The gateway's upstream counters (requests per replica, retries, errors) from its metrics listener on `port`, by
 * `name{labels}`.
 */
export async function upstreamCounters(port: number): Promise<Map<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^(stratum_gateway_upstream_\w+\{[^}]*\}) (\S+)$/.exec(line);
    if (m) out.set(m[1] as string, Number(m[2]));
  }
  return out;
}
