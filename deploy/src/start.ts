/**
 * `npm start`: the whole stack on the embedded default, with no configuration.
 *
 * FerretDB on SQLite under ./var/ferretdb, the sample notifications and registry loaded, the three services and the
 * gateway as processes; prints the gateway URL, an admin and a member token, and one request per group.
 * Ports: STRATUM_PORT (gateway, default 8780), the services on the next three ports, the gateway's metrics on
 * STRATUM_METRICS_PORT (default gateway + 10), FerretDB on STRATUM_STORE_PORT (default 27117).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { ensureFerretDB, ROOT, startFerretDB } from './ferretdb';
import { loadEvents, loadRegistryFile } from './load';
import { startStack } from './processes';
import { ensureSecret, ensureTokensFile } from './tokens';

async function main(): Promise<void> {
  const varDir = join(ROOT, 'var');
  mkdirSync(varDir, { recursive: true });
  const gatewayPort = Number(process.env.STRATUM_PORT ?? 8780);
  const storePort = Number(process.env.STRATUM_STORE_PORT ?? 27117);
  const metricsPort = Number(process.env.STRATUM_METRICS_PORT ?? gatewayPort + 10);

  ensureFerretDB();
  const store = await startFerretDB({ backend: { handler: 'sqlite', dir: join(varDir, 'ferretdb') }, port: storePort, stateDir: varDir });
  const database = 'stratum';

  const client = await MongoClient.connect(store.uri);
  try {
    const events = await loadEvents(client.db(database), readFileSync(join(ROOT, 'deploy/samples/notifications.jsonl'), 'utf8'));
    const registry = await loadRegistryFile(client.db(database), readFileSync(join(ROOT, 'deploy/samples/registry.yaml'), 'utf8'));
    console.log(
      `samples: ${events.stored} new events (${events.duplicates} already stored, ${events.rejected.length} rejected); registry ${JSON.stringify(registry)}`,
    );
  } finally {
    await client.close();
  }

  const tokensFile = join(varDir, 'tokens.json');
  const { admin, member } = ensureTokensFile(tokensFile);
  const stack = await startStack({
    mongoUri: store.uri,
    database,
    identitySecret: ensureSecret(join(varDir, 'identity.secret')),
    tokensFile,
    ports: { gateway: gatewayPort, eventQuery: gatewayPort + 1, lbaasQuota: gatewayPort + 2, domainQuota: gatewayPort + 3 },
    env: { LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn', METRICS_PORT: String(metricsPort) },
  });

  const u = stack.gatewayUrl;
  console.log(`
Stratum is running (embedded default: FerretDB on SQLite under ./var).

  gateway URL   ${u}
  admin token   ${admin}
  member token  ${member}   (project 2f66f0d537d740d79ad1e52238df492a)
  API reference ${u}/docs   (OpenAPI 3.1: ${u}/openapi.json)
  readiness     ${u}/ready
  metrics       http://127.0.0.1:${metricsPort}/metrics

Try:
  curl -s -H "X-Auth-Token: ${admin}" "${u}/v2/events?limit=2"
  curl -s -H "X-Auth-Token: ${admin}" ${u}/v2.0/lbaas/quotas/defaults
  curl -s -H "X-Auth-Token: ${admin}" ${u}/v3/domain_usage

Stop with Ctrl-C.`);

  const shutdown = async () => {
    await stack.stop();
    await store.stop();
    process.exit(0);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

main().catch((err) => {
  console.error(`stratum: ${err instanceof Error ? err.message : err}`);
  process.exit(1);
});
