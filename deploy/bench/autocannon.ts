/**
 * One benchmark scenario's result row and the markdown table of rows, shared by the bench suites.
 */
import autocannon from 'autocannon';

export interface ScenarioRow {
  name: string;
  connections: number;
  seconds: number;
  /** Mean requests per second, one decimal. */
  rps: number;
  /** Latency percentiles, ms. */
  p50: number;
  p99: number;
  /** Connection errors plus time-outs. */
  errors: number;
  non2xx: number;
  /** Responses per HTTP status code, e.g. `{"200": 1234}`. */
  statuses: Record<string, number>;
}

/** The row of one autocannon run. */
export function toRow(name: string, r: autocannon.Result, seconds: number, connections: number): ScenarioRow {
  return {
    name,
    connections,
    seconds,
    rps: Math.round(r.requests.average * 10) / 10,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
    statuses: Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([code, s]) => [code, s.count ?? 0])),
  };
}

/** Markdown table of rows; a scenario where no request finished in the window says so instead of showing zeros. */
export function rowsTable(rows: readonly ScenarioRow[]): string {
  return [
    '| scenario | connections | seconds | req/s | p50 ms | p99 ms | errors | non-2xx |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map((x) =>
      x.rps === 0
        ? `| ${x.name} | ${x.connections} | ${x.seconds} | 0 | > ${x.seconds * 1000} (no request finished in the window) | — | ${x.errors} | ${x.non2xx} |`
        : `| ${x.name} | ${x.connections} | ${x.seconds} | ${x.rps} | ${x.p50} | ${x.p99} | ${x.errors} | ${x.non2xx} |`,
    ),
  ].join('\n');
}

/** One request of a scenario; a fresh one is made for every request sent. */
export type BenchRequest = { method: 'GET' | 'POST' | 'PUT' | 'PATCH'; path: string; headers: Record<string, string>; body?: string };

/**
 * Runs `request()`s against `baseUrl` for `seconds` with `connections` in flight and reports progress on stderr.
 * @param timeoutSeconds autocannon's per-request timeout.
 */
export async function runScenario(
  baseUrl: string,
  s: { name: string; request: () => BenchRequest },
  o: { seconds: number; connections: number; timeoutSeconds: number },
): Promise<ScenarioRow> {
  process.stderr.write(`bench: ${s.name} (${o.seconds}s, ${o.connections} connections)\n`);
  const r = await autocannon({
    url: baseUrl,
    duration: o.seconds,
    connections: o.connections,
    pipelining: 1,
    timeout: o.timeoutSeconds,
    requests: [{ ...s.request(), setupRequest: (req) => ({ ...req, ...s.request() }) }],
  });
  return toRow(s.name, r, o.seconds, o.connections);
}
