/**
 * `pnpm bench gateway`: the gateway's overhead on B3 (GET /v2.0/lbaas/quotas/{project_id}; docs/api/lbaas-quota.md)
 * with cached tokens. The stack runs as it deploys (four processes) on FerretDB 2.5 + DocumentDB (the bench cluster),
 * with Redis for the services' caches and the gateway's token cache and rate limits. One project holds a quota record; the same show is
 * measured through the gateway and straight to lbaas-quota (identity signed as the gateway would), alternately
 * (gateway, direct, then direct, gateway, …) so that both see the same machine conditions.
 *
 * Targets: through the gateway ≤ 1.3× the direct latency (mean and p50) and ≥ 75 % of the direct throughput.
 *
 * Latencies are recorded per response at full resolution (autocannon's own histogram keeps whole milliseconds, too
 * coarse at 1–3 ms). CPU per request of the gateway and of lbaas-quota comes from /proc/<pid>/stat.
 *
 * Environment:
 * - BENCH_GATEWAY_TOKENS: `keystone` (default) starts a real Keystone (packages/testing/src/keystone.ts), gives the gateway
 *   KEYSTONE_URL and the admin's credentials, and benches with a project-scoped admin token, validated once and then
 *   served from the gateway's token cache; `static` benches with a member token of the tokens file (TOKENS_FILE).
 * - BENCH_GATEWAY_ROUNDS (default 2): measurements per path.
 * - BENCH_GATEWAY_WARMUP_SECONDS (default 5): unrecorded load per path first (JIT warm-up).
 * - BENCH_GATEWAY_CONNECTIONS (default: the run's BENCH_CONNECTIONS).
 * - BENCH_GATEWAY_LOG_LEVEL (default silent, as the other suites): LOG_LEVEL of the four processes; their output is
 *   discarded either way.
 * - BENCH_GATEWAY_RATE_LIMITS: `off` (default) or `<requests>/<seconds>` for every group, per project and per token.
 * - BENCH_GATEWAY_FIXED_RATE (default 1000; 0 = skip): after the rounds, one more measurement per path at this fixed
 *   offered rate (req/s), below what either path sustains: the latency the gateway adds when the machine is not
 *   saturated (informative; the targets are judged on the rounds).
 * - BENCH_REDIS_URL (default redis://127.0.0.1:6379/0).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type Identity, signIdentity } from '@stratum/identity';
import { freePort } from '@stratum/store-runtime';
import { KEYSTONE_MANAGE, type RunningKeystone, startKeystone } from '@stratum/testing';
import autocannon from 'autocannon';
import { startStack } from '../src/processes';
import { ensureSecret, ensureTokensFile, SAMPLE_PROJECT_ID } from '../src/tokens';
import { cpuTicks, machineTimes } from './cpu';
import { startBenchStore } from './store';

const LATENCY_RATIO_TARGET = 1.3;
const THROUGHPUT_TARGET = 0.75;
/**
 * BENCH_GATEWAY_RATE_LIMITS: `off` (default, the gateway's default configuration) or a limit set for every group per
 * project and per token, e.g. `100000000/60`: far above what two cores can send, so nothing is refused, but every
 * request is counted in Redis.
 */
const RATE_LIMIT = process.env.BENCH_GATEWAY_RATE_LIMITS ?? 'off';

type Path = 'gateway' | 'direct';

/** One measurement of one path. */
interface Measurement {
  path: Path;
  round: number;
  rps: number;
  /** Latency of 2xx responses, ms. */
  mean: number;
  p50: number;
  p975: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** CPU per answered request, µs, by process; undefined where /proc is not readable. */
  gatewayCpuUs?: number;
  serviceCpuUs?: number;
  /** How busy all the machine's cores were during the window, %. */
  machineBusy: number;
}

/** The q-quantile of sorted `xs` (nearest rank). */
const quantile = (xs: Float64Array, q: number) => xs[Math.min(xs.length - 1, Math.max(0, Math.ceil(q * xs.length) - 1))] ?? 0;

/**
 * Runs autocannon for `seconds` against `origin` with a fresh `headers()` per request, records every 2xx latency and
 * the CPU the two processes used.
 */
function measure(
  o: { path: Path; round: number; origin: string; urlPath: string; headers: () => Record<string, string>; rate?: number },
  seconds: number,
  connections: number,
  pids: { gateway: number; service: number },
): Promise<Measurement> {
  const what = o.rate ? `at ${o.rate} req/s` : o.round ? `round ${o.round}` : 'warm-up';
  process.stderr.write(`bench: B3 ${o.path}, ${what} (${seconds}s, ${connections} connections)\n`);
  const latencies: number[] = [];
  const g0 = cpuTicks(pids.gateway);
  const s0 = cpuTicks(pids.service);
  const m0 = machineTimes();
  return new Promise((ok, fail) => {
    const request = () => ({ method: 'GET' as const, path: o.urlPath, headers: o.headers() });
    const instance = autocannon(
      {
        url: o.origin,
        duration: seconds,
        connections,
        pipelining: 1,
        timeout: 10,
        ...(o.rate ? { overallRate: o.rate } : {}),
        requests: [{ ...request(), setupRequest: (req) => ({ ...req, ...request() }) }],
      },
      (err, r) => {
        if (err) return fail(err);
        const g1 = cpuTicks(pids.gateway);
        const s1 = cpuTicks(pids.service);
        const m1 = machineTimes();
        const sorted = Float64Array.from(latencies).sort();
        const answered = r.requests.total;
        const perRequest = (a?: number, b?: number) =>
          a === undefined || b === undefined || answered === 0 ? undefined : ((b - a) * 10_000) / answered;
        ok({
          path: o.path,
          round: o.round,
          rps: answered / seconds,
          mean: sorted.length ? sorted.reduce((a, b) => a + b, 0) / sorted.length : 0,
          p50: quantile(sorted, 0.5),
          p975: quantile(sorted, 0.975),
          p99: quantile(sorted, 0.99),
          errors: r.errors + r.timeouts,
          non2xx: r.non2xx,
          gatewayCpuUs: o.path === 'gateway' ? perRequest(g0, g1) : undefined,
          serviceCpuUs: perRequest(s0, s1),
          machineBusy: (100 * (m1.busy - m0.busy)) / Math.max(1, m1.total - m0.total),
        });
      },
    );
    instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      if (status >= 200 && status < 300) latencies.push(ms);
    });
  });
}

/** The caller a Keystone token stands for (GET /v3/auth/tokens), as the gateway would forward it. */
async function tokenIdentity(ks: RunningKeystone, token: string): Promise<Identity> {
  const res = await fetch(`${ks.url}/auth/tokens`, { headers: { 'X-Auth-Token': token, 'X-Subject-Token': token } });
  if (!res.ok) throw new Error(`keystone did not validate its own admin token (HTTP ${res.status})`);
  const { token: t } = (await res.json()) as {
    token: { user: { id: string }; project?: { id: string; domain: { id: string } }; roles: { name: string }[] };
  };
  if (!t.project) throw new Error('the admin token is not project-scoped');
  return { userId: t.user.id, projectId: t.project.id, domainId: t.project.domain.id, roles: t.roles.map((r) => r.name.toLowerCase()) };
}

/** Sends `n` GETs, `width` at a time, and throws unless every one answers 200. */
async function warm(url: string, headers: () => Record<string, string>, n: number, what: string): Promise<void> {
  let sent = 0;
  const worker = async () => {
    while (sent < n) {
      sent++;
      const res = await fetch(url, { headers: headers() });
      const body = await res.text();
      if (res.status !== 200) throw new Error(`warm-up ${what}: HTTP ${res.status} ${body.slice(0, 300)}`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

const fmt = (x: number | undefined, digits = 2) => (x === undefined ? '—' : x.toFixed(digits));
const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const avgOf = (ms: Measurement[], f: (m: Measurement) => number | undefined) => {
  const xs = ms.map(f).filter((x): x is number => x !== undefined);
  return xs.length ? avg(xs) : undefined;
};

export async function gatewayBench(seconds: number, defaultConnections: number): Promise<string> {
  const mode = process.env.BENCH_GATEWAY_TOKENS ?? 'keystone';
  if (mode !== 'keystone' && mode !== 'static') throw new Error(`BENCH_GATEWAY_TOKENS must be keystone or static, not ${mode}`);
  if (mode === 'keystone' && !existsSync(KEYSTONE_MANAGE)) {
    throw new Error(
      `BENCH_GATEWAY_TOKENS=keystone needs Keystone (${KEYSTONE_MANAGE}; deploy/scripts/install-openstack-clients.sh); BENCH_GATEWAY_TOKENS=static runs without it`,
    );
  }
  const rounds = Number(process.env.BENCH_GATEWAY_ROUNDS ?? 2);
  const connections = Number(process.env.BENCH_GATEWAY_CONNECTIONS ?? defaultConnections);
  const logLevel = process.env.BENCH_GATEWAY_LOG_LEVEL ?? 'silent';
  const warmupSeconds = Number(process.env.BENCH_GATEWAY_WARMUP_SECONDS ?? 5);
  const fixedRate = Number(process.env.BENCH_GATEWAY_FIXED_RATE ?? 1000);
  const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/0';

  const store = await startBenchStore('bench-gateway', 'stratum_bench_gateway');
  const secret = ensureSecret(join(store.dir, 'identity.secret'));
  const tokensFile = join(store.dir, 'tokens.json');
  const staticTokens = ensureTokensFile(tokensFile);
  let ks: RunningKeystone | undefined;
  let stack: Awaited<ReturnType<typeof startStack>> | undefined;
  const runs: Measurement[] = [];
  const fixed: Measurement[] = [];
  let setup = '';
  try {
    // Who the bench requests are, and the identity the gateway forwards for them (signed for the direct path).
    let token: string;
    let adminToken: string;
    let identity: Identity;
    const keystoneEnv: Record<string, string> = {};
    if (mode === 'keystone') {
      ks = await startKeystone();
      token = await ks.adminToken();
      adminToken = token;
      identity = await tokenIdentity(ks, token);
      Object.assign(keystoneEnv, {
        // The gateway takes exactly one of TOKENS_FILE and KEYSTONE_URL; startStack passes the file, this unsets it.
        TOKENS_FILE: '',
        ...ks.serviceEnv(),
      });
    } else {
      token = staticTokens.member;
      adminToken = staticTokens.admin;
      const e = staticTokens.file.tokens[token];
      if (!e) throw new Error('the tokens file lost its member token');
      identity = { userId: e.user_id, projectId: e.project_id ?? SAMPLE_PROJECT_ID, domainId: e.domain_id ?? null, roles: e.roles };
    }
    const project = identity.projectId ?? SAMPLE_PROJECT_ID;

    const ports = { gateway: await freePort(), eventQuery: await freePort(), lbaasQuota: await freePort(), domainQuota: await freePort() };
    stack = await startStack({
      mongoUri: store.uri,
      database: store.database,
      identitySecret: secret,
      tokensFile,
      ports,
      env: { LOG_LEVEL: logLevel, REDIS_URL: redisUrl },
      gatewayEnv: {
        ...keystoneEnv,
        REDIS_URL: redisUrl,
        RATE_LIMIT_PER_PROJECT: RATE_LIMIT === 'off' ? '0' : RATE_LIMIT,
        RATE_LIMIT_PER_TOKEN: RATE_LIMIT === 'off' ? '0' : RATE_LIMIT,
        METRICS_PORT: String(await freePort()),
      },
      stdio: 'ignore',
    });

    const urlPath = `/v2.0/lbaas/quotas/${project}`;
    const put = await fetch(`${stack.gatewayUrl}${urlPath}`, {
      method: 'PUT',
      headers: { 'X-Auth-Token': adminToken, 'Content-Type': 'application/json' },
      body: JSON.stringify({ quota: { load_balancer: 10, listener: 100, pool: 50, member: 500 } }),
    });
    if (put.status !== 202) throw new Error(`PUT ${urlPath} answered ${put.status}: ${(await put.text()).slice(0, 300)}`);

    const viaGateway = { 'X-Auth-Token': token };
    // A signature is bound to its request (always this GET here) and good for 10 s: re-signed every second.
    let signed = { at: 0, headers: {} as Record<string, string> };
    const direct = () => {
      if (Date.now() - signed.at > 1_000)
        signed = { at: Date.now(), headers: signIdentity(identity, secret, { method: 'GET', url: urlPath }) };
      return signed.headers;
    };
    // Warm-up: checks both paths answer 200; the gateway validates the token once (Keystone) and caches it, the service
    // caches the record.
    await warm(`${stack.gatewayUrl}${urlPath}`, () => viaGateway, 200, 'through the gateway');
    await warm(`${stack.urls.lbaasQuota}${urlPath}`, direct, 200, 'direct to lbaas-quota');

    const pids = { gateway: stack.pids.gateway, service: stack.pids.lbaasQuota };
    const paths: Record<Path, { origin: string; headers: () => Record<string, string> }> = {
      gateway: { origin: stack.gatewayUrl, headers: () => viaGateway },
      direct: { origin: stack.urls.lbaasQuota, headers: direct },
    };
    // Then load, unrecorded, until V8 has optimised the hot paths: the first seconds of a fresh process cost about
    // twice the CPU per request of the later ones.
    for (const path of ['gateway', 'direct'] as const)
      await measure({ path, round: 0, urlPath, ...paths[path] }, warmupSeconds, connections, pids);
    for (let round = 1; round <= rounds; round++) {
      // gateway, direct | direct, gateway | …: a drift in machine conditions falls on both paths alike.
      const order: Path[] = round % 2 === 1 ? ['gateway', 'direct'] : ['direct', 'gateway'];
      for (const path of order) runs.push(await measure({ path, round, urlPath, ...paths[path] }, seconds, connections, pids));
    }
    if (fixedRate > 0) {
      for (const path of ['gateway', 'direct'] as const) {
        fixed.push(await measure({ path, round: 1, urlPath, rate: fixedRate, ...paths[path] }, seconds, connections, pids));
      }
    }
    setup = [
      `- tokens: ${mode === 'keystone' ? 'Keystone (a project-scoped admin token; validated once, then from the gateway token cache in Redis)' : 'static tokens file (a project member)'}; ${RATE_LIMIT === 'off' ? 'no rate limits (the default)' : `rate limits per project and per token counted in Redis at ${RATE_LIMIT} (nothing refused)`}`,
      `- request: GET ${urlPath.replace(project, '{project_id}')} (one project with a stored record, served from the service's cache), ${connections} connections, ${rounds} rounds of ${seconds} s per path, alternating; LOG_LEVEL=${logLevel}`,
      '- direct: the same request sent straight to lbaas-quota with the identity headers the gateway would sign',
    ].join('\n');
  } finally {
    await stack?.stop();
    await ks?.stop();
    await store.stop();
  }

  const row = (label: string, m: Partial<Measurement> & Pick<Measurement, 'rps' | 'mean' | 'p50' | 'p975' | 'p99'>) =>
    `| ${label} | ${Math.round(m.rps)} | ${fmt(m.mean)} | ${fmt(m.p50)} | ${fmt(m.p975)} | ${fmt(m.p99)} | ${fmt(m.gatewayCpuUs, 0)} | ${fmt(m.serviceCpuUs, 0)} | ${m.machineBusy === undefined ? '—' : Math.round(m.machineBusy)} | ${m.errors ?? '—'} | ${m.non2xx ?? '—'} |`;
  const header = [
    '| run | req/s | mean ms | p50 ms | p97.5 ms | p99 ms | gateway CPU µs/req | service CPU µs/req | machine busy % | errors | non-2xx |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  const summary = (path: Path) => {
    const ms = runs.filter((m) => m.path === path);
    return {
      rps: avg(ms.map((m) => m.rps)),
      mean: avg(ms.map((m) => m.mean)),
      p50: avg(ms.map((m) => m.p50)),
      p975: avg(ms.map((m) => m.p975)),
      p99: avg(ms.map((m) => m.p99)),
      gatewayCpuUs: avgOf(ms, (m) => m.gatewayCpuUs),
      serviceCpuUs: avgOf(ms, (m) => m.serviceCpuUs),
      machineBusy: avg(ms.map((m) => m.machineBusy)),
      errors: ms.reduce((a, m) => a + m.errors, 0),
      non2xx: ms.reduce((a, m) => a + m.non2xx, 0),
    };
  };
  const g = summary('gateway');
  const d = summary('direct');
  const meanRatio = g.mean / d.mean;
  const p50Ratio = g.p50 / d.p50;
  const share = g.rps / d.rps;
  const verdict = (ok: boolean) => (ok ? '**PASS**' : '**MISS**');
  const targets = [
    '| target | measured | |',
    '|---|---|---|',
    `| latency through the gateway ≤ ${LATENCY_RATIO_TARGET}× direct, mean | ${meanRatio.toFixed(2)}× (${fmt(g.mean)} / ${fmt(d.mean)} ms) | ${verdict(meanRatio <= LATENCY_RATIO_TARGET)} |`,
    `| latency through the gateway ≤ ${LATENCY_RATIO_TARGET}× direct, p50 | ${p50Ratio.toFixed(2)}× (${fmt(g.p50)} / ${fmt(d.p50)} ms) | ${verdict(p50Ratio <= LATENCY_RATIO_TARGET)} |`,
    `| throughput through the gateway ≥ ${THROUGHPUT_TARGET * 100} % of direct | ${(share * 100).toFixed(1)} % (${Math.round(g.rps)} / ${Math.round(d.rps)} req/s) | ${verdict(share >= THROUGHPUT_TARGET)} |`,
  ];
  const fg = fixed.find((m) => m.path === 'gateway');
  const fd = fixed.find((m) => m.path === 'direct');
  const fixedSection =
    fg && fd
      ? [
          '',
          `At a fixed ${fixedRate} req/s offered (below what either path sustains; informative, not judged):`,
          '',
          ...header,
          row('B3 via gateway', fg),
          row('B3 direct to lbaas-quota', fd),
          '',
          `Latency through the gateway at ${fixedRate} req/s: mean ${(fg.mean / fd.mean).toFixed(2)}× direct (+${fmt(fg.mean - fd.mean)} ms), p50 ${(fg.p50 / fd.p50).toFixed(2)}× (+${fmt(fg.p50 - fd.p50)} ms).`,
        ]
      : [];
  return [
    setup,
    '',
    ...header,
    ...runs.map((m) => row(`B3 ${m.path === 'gateway' ? 'via gateway' : 'direct to lbaas-quota'}, round ${m.round}`, m)),
    row('**B3 via gateway, mean of rounds**', g),
    row('**B3 direct, mean of rounds**', d),
    '',
    ...targets,
    '',
    'Each connection sends its next request as soon as the last one is answered, so throughput = connections ÷ mean',
    "latency (Little's law): the mean-latency ratio is the inverse of the throughput share, and ≥ 75 % of the throughput",
    'is about the same target as ≤ 1.33× the mean latency. Both measure the CPU the gateway costs per request on a',
    'machine whose 2 cores also run the service, Redis and autocannon.',
    ...fixedSection,
  ].join('\n');
}
