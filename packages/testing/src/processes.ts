/**
 * Processes of a test's own: a FerretDB, a service.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort, ROOT, type RunningFerretDB, startFerretDB, waitHealthy } from '@stratum/store-runtime';
import { suffix } from './amqp';

/**
 * A FerretDB of a test's own on the shared test cluster, for tests that stop the store: stopping it harms no other
 * test, and `start` brings it back on the same port and PostgreSQL database.
 */
export interface OwnStore {
  /** The store's MongoDB URI (the same across stop and start). */
  uri: string;
  stop(): Promise<void>;
  /** Starts it again after `stop`. */
  start(): Promise<void>;
}

/**
 * Starts a FerretDB named after `name` (its state directory under var/test).
 * @throws when STRATUM_TEST_POSTGRESQL_URL is not set (run through jest's integration global setup).
 */
export async function startOwnStore(name: string): Promise<OwnStore> {
  const postgresqlUrl = process.env.STRATUM_TEST_POSTGRESQL_URL;
  if (!postgresqlUrl) throw new Error('STRATUM_TEST_POSTGRESQL_URL is not set (integration global setup)');
  const options = { postgresqlUrl, port: await freePort(), stateDir: join(ROOT, 'var', 'test', `${name}-${suffix()}`) };
  let running: RunningFerretDB | undefined = await startFerretDB(options);
  const uri = running.uri;
  return {
    uri,
    stop: async () => {
      await running?.stop();
      running = undefined;
    },
    start: async () => {
      running ??= await startFerretDB(options);
    },
  };
}

/**
 * Starts a service's real entry point (`services/<service>/src/server.ts`) as a process of its own on `port`, on the
 * test store's `database`, signing secret `secret`, quiet, without Redis or a bus (unless `env` says otherwise), and
 * waits until it answers its health check: for tests that kill it.
 */
export async function startServiceProcess(
  service: 'event-query' | 'lbaas-quota' | 'domain-quota',
  port: number,
  settings: { database: string; secret: string; env?: Record<string, string> },
): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, `services/${service}/src/server.ts`)], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      MONGODB_URI: process.env.STRATUM_TEST_MONGODB_URI,
      MONGODB_DATABASE: settings.database,
      STRATUM_IDENTITY_SECRET: settings.secret,
      LOG_LEVEL: 'silent',
      REDIS_URL: '',
      AMQP_URL: '',
      INGEST_AMQP_URL: '',
      ...settings.env,
    },
    stdio: 'ignore',
  });
  await waitHealthy(`http://127.0.0.1:${port}`, child, service);
  return child;
}
