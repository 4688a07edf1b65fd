/**
 * `pnpm bench`: the stack as it deploys (four processes) on FerretDB 2.5 + DocumentDB (the bench cluster), loaded with the
 * samples, measured with autocannon on loopback for a bounded time per scenario. Prints a markdown table and writes
 * it to deploy/BENCHMARKS.md with the date and the machine's conditions.
 *
 * Environment: BENCH_SECONDS (per scenario, default 10), BENCH_CONNECTIONS (default 8). Suites: skeleton, events, ingest,
 * lbaas, domain, gateway, replicas (each file's header lists its own settings). Scenario names start with the operation's id in
 * docs/api (A1…A3 events.md, B1…B4 lbaas-quota.md, C1…C3 domain-quota.md).
 */

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { signIdentity } from '@stratum/identity';
import { freePort, ROOT } from '@stratum/store-runtime';
import { MongoClient } from 'mongodb';
import { loadEvents, loadRegistryFile } from '../src/load';
import { withSection } from '../src/markdown';
import { startStack } from '../src/processes';
import { ensureSecret, ensureTokensFile, SAMPLE_PROJECT_ID } from '../src/tokens';
import { rowsTable, runScenario, type ScenarioRow } from './autocannon';
import { domainQuotaBench } from './domain-quota';
import { eventsBench } from './events';
import { gatewayBench } from './gateway';
import { ingestBench } from './ingest';
import { lbaasBench } from './lbaas';
import { replicasBench } from './replicas';
import { startBenchStore } from './store';

interface Scenario {
  name: string;
  url: string;
  headers: Record<string, string>;
}

function run(s: Scenario, seconds: number, connections: number): Promise<ScenarioRow> {
  const { origin, pathname } = new URL(s.url);
  const request = () => ({ method: 'GET' as const, path: pathname, headers: s.headers });
  return runScenario(origin, { name: s.name, request }, { seconds, connections, timeoutSeconds: 10 });
}

/** The walking skeleton's suite: one read per group on the sample data. @returns its markdown section. */
async function skeletonBench(seconds: number, connections: number): Promise<string> {
  const store = await startBenchStore('bench', 'stratum_bench');
  const benchDir = store.dir;
  const database = store.database;
  const client = await MongoClient.connect(store.uri);
  const events = await loadEvents(client.db(database), readFileSync(join(ROOT, 'deploy/samples/notifications.jsonl'), 'utf8'));
  await loadRegistryFile(client.db(database), readFileSync(join(ROOT, 'deploy/samples/registry.yaml'), 'utf8'));
  const anEvent = await client.db(database).collection('events').findOne({ project_id: SAMPLE_PROJECT_ID });
  await client.close();

  const secret = ensureSecret(join(benchDir, 'identity.secret'));
  const tokensFile = join(benchDir, 'tokens.json');
  const { admin, member } = ensureTokensFile(tokensFile);
  const [g, e, l, d] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const stack = await startStack({
    mongoUri: store.uri,
    database,
    identitySecret: secret,
    tokensFile,
    ports: { gateway: g, eventQuery: e, lbaasQuota: l, domainQuota: d },
    env: { LOG_LEVEL: 'silent' },
    stdio: 'ignore',
  });
  const rows: ScenarioRow[] = [];
  try {
    // B3 target: a project with a stored record.
    await fetch(`${stack.gatewayUrl}/v2.0/lbaas/quotas/${SAMPLE_PROJECT_ID}`, {
      method: 'PUT',
      headers: { 'X-Auth-Token': admin, 'Content-Type': 'application/json' },
      body: JSON.stringify({ quota: { load_balancer: 10, pool: 20 } }),
    });
    const auth = { 'X-Auth-Token': member };
    const scenarios: (() => Scenario)[] = [
      () => ({
        name: 'B3 GET /v2.0/lbaas/quotas/{project_id} via gateway',
        url: `${stack.gatewayUrl}/v2.0/lbaas/quotas/${SAMPLE_PROJECT_ID}`,
        headers: auth,
      }),
      () => ({
        name: 'B3 same, direct to lbaas-quota (signed identity, no gateway)',
        url: `${stack.urls.lbaasQuota}/v2.0/lbaas/quotas/${SAMPLE_PROJECT_ID}`,
        // Signed per request, as the gateway does: a signature is bound to its request and good for seconds.
        get headers() {
          const url = `/v2.0/lbaas/quotas/${SAMPLE_PROJECT_ID}`;
          return signIdentity({ userId: 'bench', projectId: SAMPLE_PROJECT_ID, domainId: 'default', roles: ['member'] }, secret, {
            method: 'GET',
            url,
          });
        },
      }),
      () => ({ name: 'A1 GET /v2/events/{message_id} via gateway', url: `${stack.gatewayUrl}/v2/events/${anEvent?._id}`, headers: auth }),
      () => ({
        name: 'C1 GET /v3/domain_quotas/{domain_id} via gateway',
        url: `${stack.gatewayUrl}/v3/domain_quotas/47eaa0992cb6916d86dc283cf0480ff9`,
        headers: { 'X-Auth-Token': admin },
      }),
    ];
    for (const make of scenarios) {
      const s = make();
      rows.push(await run(s, seconds, connections));
    }
  } finally {
    await stack.stop();
    await store.stop();
  }

  const table = rowsTable(rows);
  return `- data: the ${events.stored + events.duplicates} sample notifications and the sample registry\n\n${table}`;
}

const SUITES: Record<string, { title: string; run: (seconds: number, connections: number) => Promise<string> }> = {
  skeleton: { title: 'Walking skeleton: one read per group', run: skeletonBench },
  events: { title: 'Event query at a million events', run: eventsBench },
  ingest: { title: 'Event ingestion through RabbitMQ', run: ingestBench },
  lbaas: { title: 'Load balancer quotas at 10,000 projects', run: (seconds) => lbaasBench(seconds) },
  domain: { title: 'Department quotas (group C)', run: (seconds) => domainQuotaBench(seconds) },
  gateway: { title: 'Gateway overhead (B3, cached tokens)', run: gatewayBench },
  replicas: { title: 'Replicas and failover', run: replicasBench },
};

/** `pnpm bench [suite ...]`: runs the named suites (default: all) and rewrites their sections of BENCHMARKS.md. */
async function main(): Promise<void> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 8);
  const names = process.argv.slice(2).length > 0 ? process.argv.slice(2) : Object.keys(SUITES);
  const path = join(ROOT, 'deploy', 'BENCHMARKS.md');
  for (const name of names) {
    const suite = SUITES[name];
    if (!suite) throw new Error(`unknown suite ${name}; suites: ${Object.keys(SUITES).join(', ')}`);
    const body = await suite.run(seconds, connections);
    const cpu = cpus();
    const conditions = [
      `- date: ${new Date().toISOString()}`,
      `- machine: ${cpu.length} cores (${cpu[0]?.model ?? 'unknown CPU'}), ${Math.round(totalmem() / 2 ** 30)} GiB memory; Node ${process.version}`,
      '- store: FerretDB 2.5.0 + DocumentDB 0.106 (extended RUM indexes, composite opclass; docs/stores.md) on PostgreSQL 15, the bench cluster (shared_buffers 512MB, max_wal_size 8GB); loopback HTTP; autocannon on the same machine as the stack (it competes for the 2 cores)',
    ].join('\n');
    console.log(`\n## ${suite.title}\n\n${conditions}\n${body}\n`);
    const doc = existsSync(path)
      ? readFileSync(path, 'utf8')
      : '# Benchmarks\n\nWritten by `pnpm bench` (deploy/bench/run.ts). Figures are from one run; rerun to compare.\n';
    writeFileSync(path, withSection(doc, suite.title, `${conditions}\n${body}`));
  }
}

main().catch((err) => {
  console.error(`bench: ${err instanceof Error ? err.stack : err}`);
  process.exit(1);
});
