/**
 * `pnpm bench lbaas`: load balancer quotas through the gateway (the stack as it deploys, four processes, on FerretDB
 * 2.5 + DocumentDB, the bench cluster), with 10,000 projects holding a quota record.
 *
 * Scenarios: B3 show (random projects, as that project's member; also straight to the service, to show the gateway's
 * share), B1 list paged by 1000 (the ten pages in turn, as
 * the admin, following the next links), PUT (random projects), and the enforcement call (consume 1 load balancer on
 * random projects whose limit is unlimited, as the service user). Also one hot project: 200 concurrent consumes
 * against a limit of 50, with the count of successes.
 *
 * Environment: BENCH_SECONDS (per scenario), BENCH_LBAAS_CONNECTIONS (default 32, the target setting),
 * BENCH_LBAAS_PROJECTS (default 10000).
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TokensFile } from '@stratum/gateway';
import { signIdentity } from '@stratum/identity';
import { freePort } from '@stratum/store-runtime';
import { MongoClient } from 'mongodb';
import { startStack } from '../src/processes';
import { ensureSecret } from '../src/tokens';
import { type BenchRequest, rowsTable, runScenario, type ScenarioRow } from './autocannon';
import { explainFind } from './explain';
import { startBenchStore } from './store';

const hex = (n: number) => randomBytes(n).toString('hex');
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)] as T;

/** Runs `fn` over `items` with `width` calls in flight. */
async function inParallel<T>(items: readonly T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await fn(items[next++] as T);
    }),
  );
}

export async function lbaasBench(seconds: number): Promise<string> {
  const connections = Number(process.env.BENCH_LBAAS_CONNECTIONS ?? 32);
  const projectCount = Number(process.env.BENCH_LBAAS_PROJECTS ?? 10_000);
  const store = await startBenchStore('bench-lbaas', 'stratum_bench_lbaas');
  const dir = store.dir;

  const projects = Array.from({ length: projectCount }, () => hex(16));
  const admin = hex(32);
  const service = hex(32);
  const tokens: TokensFile = {
    tokens: {
      [admin]: { user_id: 'bench-admin', project_id: 'admin-project', domain_id: 'default', roles: ['admin', 'member', 'reader'] },
      [service]: { user_id: 'octavia', project_id: 'service', domain_id: 'default', roles: ['service'] },
    },
  };
  const memberOf = new Map<string, string>();
  for (const p of projects.slice(0, 1000)) {
    const t = hex(32);
    memberOf.set(p, t);
    tokens.tokens[t] = { user_id: `user-${p.slice(0, 8)}`, project_id: p, domain_id: 'default', roles: ['member', 'reader'] };
  }
  const tokensFile = join(dir, 'tokens.json');
  writeFileSync(tokensFile, JSON.stringify(tokens), { mode: 0o600 });
  const secret = ensureSecret(join(dir, 'identity.secret'));
  const ports = { gateway: await freePort(), eventQuery: await freePort(), lbaasQuota: await freePort(), domainQuota: await freePort() };
  const stack = await startStack({
    mongoUri: store.uri,
    database: store.database,
    identitySecret: secret,
    tokensFile,
    ports,
    env: { LOG_LEVEL: 'silent', DEFAULT_LOAD_BALANCER_QUOTA: '-1', REDIS_URL: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/0' },
    stdio: 'ignore',
  });
  const json = (token: string) => ({ 'X-Auth-Token': token, 'Content-Type': 'application/json' });
  const rows: ScenarioRow[] = [];
  let seeding = '';
  let memory: string[] = [];
  let plans: string[][] = [];
  let hot = '';
  try {
    const put = (p: string) =>
      fetch(`${stack.gatewayUrl}/v2.0/lbaas/quotas/${p}`, {
        method: 'PUT',
        headers: json(admin),
        body: JSON.stringify({ quota: { listener: 100, pool: 50, member: 500 } }),
      });
    const t0 = Date.now();
    await inParallel(projects, 32, async (p) => {
      const res = await put(p);
      if (res.status !== 202) throw new Error(`seeding PUT answered ${res.status}`);
    });
    const seedSeconds = (Date.now() - t0) / 1000;
    seeding = `${projectCount.toLocaleString('en')} PUTs (32 in flight) in ${seedSeconds.toFixed(1)} s = ${Math.round(projectCount / seedSeconds)} req/s`;

    // The list pages, by following the next links once.
    const pages: string[] = [];
    let url: string | undefined = '/v2.0/lbaas/quotas?limit=1000';
    while (url) {
      pages.push(url);
      const body = (await (await fetch(`${stack.gatewayUrl}${url}`, { headers: json(admin) })).json()) as {
        quotas_links: { href: string; rel: string }[];
      };
      const next = body.quotas_links.find((l) => l.rel === 'next');
      url = next ? new URL(next.href).pathname + new URL(next.href).search : undefined;
    }

    let page = 0;
    const members = [...memberOf.keys()];
    const scenarios: { name: string; connections: number; request: () => BenchRequest; direct?: boolean }[] = [
      {
        name: 'B3 GET /v2.0/lbaas/quotas/{project_id} (random projects, as their member)',
        connections,
        request: () => {
          const p = pick(members);
          return { method: 'GET', path: `/v2.0/lbaas/quotas/${p}`, headers: { 'X-Auth-Token': memberOf.get(p) as string } };
        },
      },
      {
        name: "B3 same, direct to lbaas-quota (signed identity, no gateway: the gateway's share)",
        connections,
        request: () => {
          const p = pick(members);
          const signed = signIdentity({ userId: 'bench', projectId: p, domainId: 'default', roles: ['member'] }, secret, {
            method: 'GET',
            url: `/v2.0/lbaas/quotas/${p}`,
          });
          return { method: 'GET', path: `/v2.0/lbaas/quotas/${p}`, headers: signed };
        },
        direct: true,
      },
      {
        name: `B1 GET /v2.0/lbaas/quotas?limit=1000 (the ${pages.length} pages of ${projectCount.toLocaleString('en')} in turn, as admin)`,
        connections: 4,
        request: () => ({ method: 'GET', path: pages[page++ % pages.length] as string, headers: { 'X-Auth-Token': admin } }),
      },
      {
        name: 'PUT /v2.0/lbaas/quotas/{project_id} (random projects)',
        connections,
        request: () => ({
          method: 'PUT',
          path: `/v2.0/lbaas/quotas/${pick(projects)}`,
          headers: json(admin),
          body: JSON.stringify({ quota: { pool: Math.floor(Math.random() * 100) } }),
        }),
      },
      {
        name: 'POST /v2.0/lbaas/quotas/{project_id}/usage consume 1 (random projects, as the service user)',
        connections,
        request: () => ({
          method: 'POST',
          path: `/v2.0/lbaas/quotas/${pick(projects)}/usage`,
          headers: json(service),
          body: JSON.stringify({ consume: { load_balancer: 1 } }),
        }),
      },
    ];
    const watch = store.watchMemory({ 'lbaas-quota': stack.pids.lbaasQuota, gateway: stack.pids.gateway });
    for (const s of scenarios) {
      const base = s.direct ? stack.urls.lbaasQuota : stack.gatewayUrl;
      rows.push(await runScenario(base, s, { seconds, connections: s.connections, timeoutSeconds: 30 }));
    }
    memory = watch.stop();

    // The plans of the list's page query (as QuotasRepository.list sends it) and of a record's lookup by id.
    const client = await MongoClient.connect(store.uri);
    try {
      const db = client.db(store.database);
      const sorted = [...projects].sort();
      plans = [
        ['B1 page after a marker', await explainFind(db, 'lbaas_quotas', { _id: { $gt: sorted[4999] } }, { _id: 1 }, 1001)],
        ['B3 / PUT / consume: the record by id', await explainFind(db, 'lbaas_quotas', { _id: sorted[0] }, {}, 1)],
      ];
    } finally {
      await client.close();
    }

    // One hot project: 200 concurrent consumes of 1 against a limit of 50.
    const hotProject = hex(16);
    await fetch(`${stack.gatewayUrl}/v2.0/lbaas/quotas/${hotProject}`, {
      method: 'PUT',
      headers: json(admin),
      body: JSON.stringify({ quota: { load_balancer: 50 } }),
    });
    const h0 = Date.now();
    const statuses = await Promise.all(
      Array.from({ length: 200 }, () =>
        fetch(`${stack.gatewayUrl}/v2.0/lbaas/quotas/${hotProject}/usage`, {
          method: 'POST',
          headers: json(service),
          body: JSON.stringify({ consume: { load_balancer: 1 } }),
        }).then((r) => r.status),
      ),
    );
    const hotMs = Date.now() - h0;
    const usage = (await (await fetch(`${stack.gatewayUrl}/v2.0/lbaas/quotas/${hotProject}/usage`, { headers: json(admin) })).json()) as {
      usage: { load_balancer: { in_use: number } };
    };
    hot = `one hot project, 200 concurrent consumes of 1 against a limit of 50: ${statuses.filter((s) => s === 200).length} × 200, ${statuses.filter((s) => s === 403).length} × 403, in_use ${usage.usage.load_balancer.in_use}, all answered in ${hotMs} ms`;
  } finally {
    await stack.stop();
    await store.stop();
  }
  return [
    `- data: ${seeding}`,
    `- ${hot}`,
    `- memory during the scenarios (first → middle → last sample, 1 s apart): ${memory.join('; ')}`,
    '',
    rowsTable(rows),
    '',
    'Query plans (FerretDB `explain`; a change is one `replaceOne({_id, revision})`, the same primary-key lookup):',
    '',
    ...plans.map(([name, plan]) => `- ${name}: ${plan}`),
  ].join('\n');
}
