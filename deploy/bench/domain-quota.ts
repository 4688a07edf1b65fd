/**
 * `pnpm bench domain`: department quotas (group C) through the gateway (the stack as it deploys, four processes, on
 * FerretDB 2.5 + DocumentDB, the bench cluster), with 200 departments × 3 regions × every item of each region (the targets in deploy/BENCHMARKS.md).
 *
 * The registry is generated here and stored with the loader the stack uses (loadRegistryFile): 3 regions with 3
 * volume types each (secure_container installed in two), the cloud (`default`) with a large finite quota for every
 * item, 200 departments with finite quotas for every item of every region, and one project per department holding
 * part of its department's quota.
 *
 * Scenarios, as the cloud admin: C1 GET of the departments in turn (via the gateway, and straight to the service
 * with the signed identity the gateway would send, to show the gateway's share); C2 PATCH of 1–3 items of the
 * departments and regions in turn (via the gateway, and direct). Each PATCH moves its items between two values that
 * always fit the cloud and the department's project, so every PATCH changes something and answers 200. Afterwards
 * the cloud's `usage` (the sum of its departments' quotas) is checked against the departments' quotas.
 *
 * Environment: BENCH_SECONDS (per scenario), BENCH_DOMAIN_CONNECTIONS (default: BENCH_CONNECTIONS when set, else 16,
 * the issue's setting), BENCH_DOMAIN_DEPARTMENTS (default 200), BENCH_REDIS_URL (the view cache; default the local
 * Redis, empty = in-process).
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TokensFile } from '@stratum/gateway';
import { type Identity, signIdentity } from '@stratum/identity';
import { type ItemSpec, regionItems, SECURE_CONTAINER_PRODUCT } from '@stratum/quota-items';
import { freePort } from '@stratum/store-runtime';
import { MongoClient } from 'mongodb';
import { loadRegistryFile } from '../src/load';
import { startStack } from '../src/processes';
import { ensureSecret } from '../src/tokens';
import { type BenchRequest, rowsTable, runScenario, type ScenarioRow } from './autocannon';
import { startBenchStore } from './store';

const hex = (n: number) => randomBytes(n).toString('hex');

/** The issue's targets at 16 connections. */
const TARGET_GET_RPS = 1000;
const TARGET_PATCH_RPS = 300;

/** The generated cloud: 3 regions, the sample's volume types, secure containers in two of them. */
const REGIONS = [
  { name: 'RegionOne', volume_types: ['ssd', 'sata', 'ceph_hdd'], products: [SECURE_CONTAINER_PRODUCT] },
  { name: 'RegionTwo', volume_types: ['ssd', 'sata', 'ceph_hdd'], products: [SECURE_CONTAINER_PRODUCT] },
  { name: 'RegionThree', volume_types: ['ssd', 'sata', 'ceph_hdd'], products: [] },
];

type Role = 'cloud' | 'low' | 'high' | 'project';

/**
 * Quota values by role. Department edits alternate between `low` and `high`: every department at `high` stays under
 * the cloud's quota, and `low` stays above the department's project, so every edit fits.
 */
function quotaValue(spec: ItemSpec, role: Role): number {
  // Fractional values on the items that allow them, so the exact milli-unit sums are exercised too.
  const frac = spec.scale > 0;
  switch (role) {
    case 'cloud':
      return 1_000_000;
    case 'low':
      return frac ? 1024.5 : 1000;
    case 'high':
      return frac ? 2048.25 : 2000;
    case 'project':
      return frac ? 100.5 : 100;
  }
}

/** Every item of `region` at `role`'s value, as the registry file and C2 spell them. */
const allItems = (items: Map<string, ItemSpec>, role: Role) =>
  Object.fromEntries([...items].map(([name, spec]) => [name, quotaValue(spec, role)]));

/** The registry bootstrap document (the format of deploy/samples/registry.yaml). */
function generateRegistry(departments: readonly string[], catalog: Map<string, Map<string, ItemSpec>>) {
  const perRegion = (role: Role) => Object.fromEntries([...catalog].map(([region, items]) => [region, allItems(items, role)]));
  return {
    regions: REGIONS,
    departments: [
      { id: 'default', name: 'Default', quotas: perRegion('cloud') },
      ...departments.map((id, i) => ({ id, name: `Department ${i + 1}`, quotas: perRegion('low') })),
    ],
    projects: departments.map((domainId, i) => ({
      id: hex(16),
      name: `project-${i + 1}`,
      domain_id: domainId,
      quotas: perRegion('project'),
    })),
  };
}

type RegionView = { usage: Record<string, number>; quotas: Record<string, number>; limits: Record<string, number> };

/**
 * Runs the group C suite on a fresh store and stops everything it started.
 * @param connections in flight per scenario; default BENCH_DOMAIN_CONNECTIONS, else BENCH_CONNECTIONS, else 16.
 * @returns the suite's markdown section body.
 */
export async function domainQuotaBench(
  seconds: number,
  connections = Number(process.env.BENCH_DOMAIN_CONNECTIONS ?? process.env.BENCH_CONNECTIONS ?? 16),
): Promise<string> {
  const departmentCount = Number(process.env.BENCH_DOMAIN_DEPARTMENTS ?? 200);
  // The cloud's 1,000,000 per item holds 400 departments at `high` (2,048.25) with room to spare.
  if (!Number.isInteger(departmentCount) || departmentCount < 1 || departmentCount > 400)
    throw new Error('BENCH_DOMAIN_DEPARTMENTS must be an integer from 1 to 400');
  // The view cache (Redis) keys nodes by database and `<region>/<domain>`; a fresh name per run keeps an earlier
  // run's cached heads, which carry higher revisions than this run's, from answering for this run's nodes.
  const store = await startBenchStore('bench-domain', `stratum_bench_domain_${hex(4)}`);
  const dir = store.dir;
  const database = store.database;

  const catalog = new Map(REGIONS.map((r) => [r.name, regionItems({ volumeTypes: r.volume_types, products: r.products })]));
  const departments = Array.from({ length: departmentCount }, () => hex(16));
  const registry = generateRegistry(departments, catalog);
  const itemCount = [...catalog.values()].reduce((n, items) => n + items.size, 0);
  let loading = '';
  let stack: Awaited<ReturnType<typeof startStack>> | undefined;
  try {
    const t0 = Date.now();
    const client = await MongoClient.connect(store.uri);
    try {
      // JSON is YAML, so the generated document goes through the loader's own parser and checks.
      const counts = await loadRegistryFile(client.db(database), JSON.stringify(registry));
      loading = `${JSON.stringify(counts)} in ${((Date.now() - t0) / 1000).toFixed(1)} s`;
    } finally {
      await client.close();
    }

    const admin = hex(32);
    const tokens: TokensFile = {
      tokens: {
        [admin]: { user_id: 'bench-admin', project_id: 'admin-project', domain_id: 'default', roles: ['admin', 'member', 'reader'] },
      },
    };
    const tokensFile = join(dir, 'tokens.json');
    writeFileSync(tokensFile, JSON.stringify(tokens), { mode: 0o600 });
    const secret = ensureSecret(join(dir, 'identity.secret'));
    const ports = { gateway: await freePort(), eventQuery: await freePort(), lbaasQuota: await freePort(), domainQuota: await freePort() };
    stack = await startStack({
      mongoUri: store.uri,
      database,
      identitySecret: secret,
      tokensFile,
      ports,
      env: { LOG_LEVEL: 'silent', REDIS_URL: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/0' },
      stdio: 'ignore',
    });
    const { gatewayUrl } = stack;
    const directUrl = stack.urls.domainQuota;

    // The cloud admin, as a token for the gateway and as the headers the gateway would sign for it.
    const cloudAdmin: Identity = {
      userId: 'bench-admin',
      projectId: 'admin-project',
      domainId: 'default',
      roles: ['admin', 'member', 'reader'],
    };
    const viaGateway = (_method: string, _path: string, _body?: string) => ({ 'X-Auth-Token': admin });
    // Signed per request: a signature is bound to its method, path and body, and good for seconds.
    const direct = (method: string, url: string, body?: string) => signIdentity(cloudAdmin, secret, { method, url, body });
    const json = (h: Record<string, string>) => ({ ...h, 'Content-Type': 'application/json' });

    let gets = 0;
    type Headers = typeof direct;
    const getRequest = (headers: Headers) => (): BenchRequest => {
      const path = `/v3/domain_quotas/${departments[gets++ % departments.length]}`;
      return { method: 'GET', path, headers: headers('GET', path) };
    };

    // C2: the (department, region) pairs in turn. A pair always edits the same 1–3 items and alternates them between
    // `high` (even rounds over the pairs) and `low` (odd rounds), starting from the loaded `low`.
    const regions = [...catalog.keys()];
    const pairs = departments.flatMap((d) => regions.map((region) => ({ d, region })));
    const patchBody = (i: number) => {
      const p = i % pairs.length;
      const { d, region } = pairs[p] as (typeof pairs)[number];
      const items = [...(catalog.get(region) as Map<string, ItemSpec>)];
      const role = Math.floor(i / pairs.length) % 2 === 0 ? 'high' : 'low';
      const edit: Record<string, string | number> = { region };
      for (let k = 0; k < 1 + (p % 3); k++) {
        const [name, spec] = items[(p * 5 + k) % items.length] as [string, ItemSpec];
        edit[name] = quotaValue(spec, role);
      }
      return { domainId: d, region, edit };
    };
    let patches = 0;
    const patchRequest = (headers: Headers) => {
      // runScenario builds autocannon's template from one extra call that is never sent; it must not use up a turn,
      // or that pair's next PATCH would set the values it already has.
      let template = true;
      return (): BenchRequest => {
        const { domainId, edit } = patchBody(template ? patches : patches++);
        template = false;
        const path = `/v3/domain_quotas/${domainId}`;
        const body = JSON.stringify({ domain: edit });
        return { method: 'PATCH', path, headers: json(headers('PATCH', path, body)), body };
      };
    };

    // One of each before measuring: every scenario's requests answer 200 and a PATCH shows its values.
    for (const [base, headers] of [
      [gatewayUrl, viaGateway],
      [directUrl, direct],
    ] as const) {
      const g = getRequest(headers)();
      const got = await fetch(`${base}${g.path}`, { headers: g.headers });
      const view = ((await got.json()) as { domain?: Record<string, RegionView> }).domain ?? {};
      const size = Object.values(view).reduce((n, r) => n + Object.keys(r.quotas).length, 0);
      if (got.status !== 200 || size !== itemCount)
        throw new Error(`check: GET ${base}${g.path} answered ${got.status} with ${size} items`);
      const { domainId, region, edit } = patchBody(patches++);
      const body = JSON.stringify({ domain: edit });
      const res = await fetch(`${base}/v3/domain_quotas/${domainId}`, {
        method: 'PATCH',
        headers: json(headers('PATCH', `/v3/domain_quotas/${domainId}`, body)),
        body,
      });
      const after = ((await res.json()) as { domain?: Record<string, RegionView> }).domain?.[region]?.quotas ?? {};
      const shown = Object.entries(edit).every(([k, v]) => k === 'region' || after[k] === v);
      if (res.status !== 200 || !shown) throw new Error(`check: PATCH ${base} ${JSON.stringify(edit)} answered ${res.status}`);
    }

    const rows: ScenarioRow[] = [];
    const scenarios: { label: string; name: string; base: string; request: () => BenchRequest }[] = [
      {
        label: 'C1 via gateway',
        name: `C1 GET /v3/domain_quotas/{domain_id} via gateway (${departmentCount} departments in turn, as cloud admin)`,
        base: gatewayUrl,
        request: getRequest(viaGateway),
      },
      {
        label: 'C1 direct',
        name: "C1 same, direct to domain-quota (signed identity, no gateway: the gateway's share)",
        base: directUrl,
        request: getRequest(direct),
      },
      {
        label: 'C2 via gateway',
        name: 'C2 PATCH /v3/domain_quotas/{domain_id} via gateway (1–3 items, departments × regions in turn)',
        base: gatewayUrl,
        request: patchRequest(viaGateway),
      },
      {
        label: 'C2 direct',
        name: 'C2 same, direct to domain-quota (signed identity, no gateway)',
        base: directUrl,
        request: patchRequest(direct),
      },
    ];
    const statuses: string[] = [];
    const watch = store.watchMemory({ 'domain-quota': stack.pids.domainQuota, gateway: stack.pids.gateway });
    for (const s of scenarios) {
      const row = await runScenario(s.base, s, { seconds, connections, timeoutSeconds: 30 });
      statuses.push(`${s.label} ${JSON.stringify(row.statuses)}`);
      process.stderr.write(
        `bench:   ${row.rps} req/s; status codes ${JSON.stringify(row.statuses)}; errors ${row.errors}; non-2xx ${row.non2xx}\n`,
      );
      rows.push(row);
    }

    const memory = watch.stop();
    const consistency = await checkCloudSums(gatewayUrl, admin, departments);
    const [c1, , c2] = rows as [ScenarioRow, ScenarioRow, ScenarioRow];
    const verdict = (row: ScenarioRow, target: number) =>
      `${row.rps} req/s, ${row.non2xx} non-2xx, ${row.errors} errors: ${row.rps >= target && row.non2xx + row.errors === 0 ? 'met' : 'missed'}`;
    return [
      `- data: ${departmentCount} departments and the cloud × ${regions.length} regions × every item (${[...catalog].map(([r, items]) => `${r} ${items.size}`).join(', ')}; ${itemCount} quota values per department), one project per department; loadRegistryFile: ${loading}`,
      `- requests: as the cloud admin; PATCHes move 1–3 items of one region between two values that always fit (every one a change; the status codes below); view cache in ${process.env.BENCH_REDIS_URL === '' ? 'process' : 'Redis'}`,
      `- targets, at ${connections} connections${connections === 16 ? '' : ' (the targets are set at 16)'}: C1 via gateway ≥ ${TARGET_GET_RPS.toLocaleString('en')} req/s: ${verdict(c1, TARGET_GET_RPS)}; C2 via gateway ≥ ${TARGET_PATCH_RPS} req/s: ${verdict(c2, TARGET_PATCH_RPS)}`,
      `- status codes: ${statuses.join('; ')}`,
      `- after the PATCHes: ${consistency}`,
      `- memory during the scenarios (first → middle → last sample, 1 s apart): ${memory.join('; ')}`,
      '',
      rowsTable(rows),
    ].join('\n');
  } finally {
    await stack?.stop();
    await store.stop();
  }
}

/**
 * Whether the cloud's `usage` (the sum of its departments' quotas, reservations of edits in flight included) equals
 * the sum of the departments' quotas, per region and item. Edits the bench abandoned at the end of a scenario still
 * finish in the service, so this polls for a few seconds until the two agree.
 * @returns a sentence for the report.
 */
async function checkCloudSums(gatewayUrl: string, token: string, departments: readonly string[]): Promise<string> {
  const view = async (d: string) => {
    const res = await fetch(`${gatewayUrl}/v3/domain_quotas/${d}`, { headers: { 'X-Auth-Token': token } });
    if (res.status !== 200) throw new Error(`check: GET ${d} answered ${res.status}`);
    return ((await res.json()) as { domain: Record<string, RegionView> }).domain;
  };
  let mismatches: string[] = [];
  for (let attempt = 0; attempt < 5; attempt++) {
    await sleep(1000);
    // Sums in milli-units, as the service keeps them, so fractional values add exactly.
    const sums = new Map<string, number>();
    for (const d of departments) {
      for (const [region, v] of Object.entries(await view(d))) {
        for (const [item, q] of Object.entries(v.quotas))
          sums.set(`${region} ${item}`, (sums.get(`${region} ${item}`) ?? 0) + Math.round(q * 1000));
      }
    }
    mismatches = [];
    for (const [region, v] of Object.entries(await view('default'))) {
      for (const [item, used] of Object.entries(v.usage)) {
        const sum = sums.get(`${region} ${item}`) ?? 0;
        if (Math.round(used * 1000) !== sum) mismatches.push(`${region} ${item}: cloud ${used}, departments ${sum / 1000}`);
      }
    }
    if (mismatches.length === 0)
      return `the cloud's usage equals the sum of the ${departments.length} departments' quotas for every region and item`;
  }
  return `the cloud's usage differs from the sum of the departments' quotas for ${mismatches.length} items (${mismatches.slice(0, 3).join('; ')})`;
}
