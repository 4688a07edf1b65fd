/**
 * Readiness (`GET /ready`): whether a process can serve requests now, with the state of each thing it depends on.
 * Unlike `/healthcheck` (Panko's and Octavia's plain `OK`, for load balancers), it names every dependency, so an
 * operator sees which one is down. Public like `/healthcheck`: it names dependencies, never addresses or secrets.
 *
 * Body: `{"status": "ready" | "not_ready", "checks": {"<name>": {"status": "ok" | "down", "required": bool,
 * "checks"?: {...}}}}`; HTTP 200 when every required check is ok, else 503. An optional check that is down (a cache,
 * the notification bus) degrades the process without stopping it from serving.
 */
import type { RequestHandler } from 'express';

/** One dependency: `check` answers ok, or ok with the dependency's own checks (an upstream's `/ready`). */
export interface ReadinessCheck {
  required: boolean;
  check: () => Promise<boolean | { ok: boolean; checks?: unknown }>;
}

export interface ReadinessReport {
  status: 'ready' | 'not_ready';
  checks: Record<string, { status: 'ok' | 'down'; required: boolean; checks?: unknown }>;
}

/** Runs every check at once, each bounded by `timeoutMs` (a check that throws or takes longer is down). */
export async function runReadiness(checks: Record<string, ReadinessCheck>, timeoutMs = 2000): Promise<ReadinessReport> {
  const entries = await Promise.all(
    Object.entries(checks).map(async ([name, c]) => {
      let timer: NodeJS.Timeout | undefined;
      const outcome = await Promise.race([
        c.check().catch(() => false as const),
        new Promise<false>((ok) => {
          timer = setTimeout(() => ok(false), timeoutMs);
        }),
      ]);
      clearTimeout(timer);
      const ok = typeof outcome === 'boolean' ? outcome : outcome.ok;
      const nested = typeof outcome === 'object' && outcome.checks !== undefined ? { checks: outcome.checks } : {};
      return [name, { status: ok ? ('ok' as const) : ('down' as const), required: c.required, ...nested }] as const;
    }),
  );
  const ready = entries.every(([, e]) => e.status === 'ok' || !e.required);
  return { status: ready ? 'ready' : 'not_ready', checks: Object.fromEntries(entries) };
}

/** `GET /ready` handler: the report, 200 when ready, 503 when not. */
export function readinessHandler(checks: Record<string, ReadinessCheck>): RequestHandler {
  return async (_req, res) => {
    const report = await runReadiness(checks);
    res.status(report.status === 'ready' ? 200 : 503).json(report);
  };
}
