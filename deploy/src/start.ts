/**
 * `npm start`: the whole stack on the embedded default, with no configuration.
 *
 * FerretDB 2.5 on the embedded cluster (PostgreSQL 15 + DocumentDB, data in ./var/postgres; @stratum/store-runtime), the
 * sample notifications and registry loaded into an empty store only (a restart never changes data; loadSamples), the
 * registry's sums checked and repaired (each repair printed), the three services and the gateway as processes; prints the gateway URL,
 * an admin and a member token, and one request per group. Ctrl-C or SIGTERM stops them all, the cluster last.
 * Data of FerretDB 1.24 (SQLite files in ./var/ferretdb) is copied into the store first, once (deploy/src/migrate.ts).
 * Ports: STRATUM_PORT (gateway, default 8780), the services on the next three ports, the gateway's metrics on
 * STRATUM_METRICS_PORT (default gateway + 10), FerretDB on STRATUM_STORE_PORT (default 27117).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { reportLines } from '@stratum/domain-quota';
import { ensureStoreInstalled, ROOT, startStore } from '@stratum/store-runtime';
import { MongoClient } from 'mongodb';
import { loadSamples } from './load';
import { migrateFromFerretDB124 } from './migrate';
import { type RunningStack, startStack } from './processes';
import { ensureSecret, ensureTokensFile } from './tokens';

async function main(): Promise<void> {
  const varDir = join(ROOT, 'var');
  mkdirSync(varDir, { recursive: true });
  const gatewayPort = Number(process.env.STRATUM_PORT ?? 8780);
  const storePort = Number(process.env.STRATUM_STORE_PORT ?? 27117);
  const metricsPort = Number(process.env.STRATUM_METRICS_PORT ?? gatewayPort + 10);

  ensureStoreInstalled();
  const store = await startStore({ purpose: 'embedded', port: storePort });
  let stack: RunningStack | undefined;
  const stopAll = async () => {
    await stack?.stop();
    await store.stop();
  };
  const shutdown = () => {
    stopAll().finally(() => process.exit(0));
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);

  const database = 'stratum';
  const tokensFile = join(varDir, 'tokens.json');
  const { admin, member } = ensureTokensFile(tokensFile);
  try {
    await migrateFromFerretDB124(varDir, store.uri);
    const client = await MongoClient.connect(store.uri);
    try {
      const { events, registry, check } = await loadSamples(client.db(database), join(ROOT, 'deploy/samples'));
      console.log(
        `samples: ${events ? `${events.stored} events loaded (${events.rejected.length} rejected)` : 'events kept (the store has events)'}; ${registry ? `registry loaded ${JSON.stringify(registry)}` : 'registry kept (the store has one)'}`,
      );
      // Repairs are loud: each is a sum that was wrong in the store (also in the audit log).
      const lines = reportLines(check);
      const say = check.discrepancies.length > 0 || check.busy.length > 0 ? console.warn : console.log;
      for (const line of lines) say(`registry check: ${line}`);
    } finally {
      await client.close();
    }
    stack = await startStack({
      mongoUri: store.uri,
      database,
      identitySecret: ensureSecret(join(varDir, 'identity.secret')),
      tokensFile,
      ports: { gateway: gatewayPort, eventQuery: gatewayPort + 1, lbaasQuota: gatewayPort + 2, domainQuota: gatewayPort + 3 },
      env: { LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn', METRICS_PORT: String(metricsPort) },
    });
  } catch (err) {
    await stopAll();
    throw err;
  }

  const u = stack.gatewayUrl;
  console.log(`
Stratum is running (embedded default: FerretDB 2.5 + DocumentDB on PostgreSQL under ./var).

  gateway URL   ${u}
  console       ${u}/console/   (sign in with the admin token)
  admin token   ${admin}
  member token  ${member}   (project 2f66f0d537d740d79ad1e52238df492a)
  API reference ${u}/docs   (OpenAPI 3.1: ${u}/openapi.json)
  readiness     ${u}/ready
  metrics       http://127.0.0.1:${metricsPort}/metrics
  store         ${store.uri} (PostgreSQL data in ${store.postgres.dataDir})

Try:
  curl -s -H "X-Auth-Token: ${admin}" "${u}/v2/events?limit=2"
  curl -s -H "X-Auth-Token: ${admin}" ${u}/v2.0/lbaas/quotas/defaults
  curl -s -H "X-Auth-Token: ${admin}" ${u}/v3/domain_usage

Stop with Ctrl-C.`);
}

main().catch((err) => {
  console.error(`stratum: ${err instanceof Error ? err.message : err}`);
  process.exit(1);
});
