/**
 * Runs the three services and the gateway as separate processes (as they deploy), each on its own port, supervised:
 * one that exits unexpectedly is restarted with back-off (supervisor.ts); `stop` stops them without restarts.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, waitHealthy } from '@stratum/store-runtime';
import pino from 'pino';
import { DEFAULT_RESTART_POLICY, type RestartPolicy, Supervised, type SupervisorLogger } from './supervisor';

export interface StackPorts {
  gateway: number;
  eventQuery: number;
  lbaasQuota: number;
  domainQuota: number;
}

export interface StackOptions {
  mongoUri: string;
  database: string;
  identitySecret: string;
  tokensFile: string;
  ports: StackPorts;
  /** Extra environment for every process (e.g. LOG_LEVEL, quota defaults). */
  env?: Record<string, string>;
  /** Extra environment for the gateway only (e.g. Keystone, rate limits, metrics port), over `env`. */
  gatewayEnv?: Record<string, string>;
  /** Where child output goes: inherit (visible) or ignore. */
  stdio?: 'inherit' | 'ignore';
  /** Back-off of restarts after a crash (default: 0.5 s doubling to 30 s, reset after a minute up). */
  restart?: Partial<RestartPolicy>;
  /** Where exits and restarts are logged (default: a pino logger named `launcher` on stdout). */
  logger?: SupervisorLogger;
}

export interface RunningStack {
  gatewayUrl: string;
  urls: Record<keyof StackPorts, string>;
  /** Process ids (e.g. for CPU accounting in the benches); read when needed, as a restart changes them. */
  pids: Readonly<Record<keyof StackPorts, number>>;
  /** The supervised processes (their restart counts). */
  processes: Readonly<Record<keyof StackPorts, Supervised>>;
  /** Stops every process; none is restarted afterwards. */
  stop(): Promise<void>;
}

/**
 * Starts the services, then the gateway, and waits until each answers its health check; from then on each is
 * restarted when it exits unexpectedly.
 * @throws Error when one exits or does not become healthy during start-up (all are stopped then).
 */
export async function startStack(opts: StackOptions): Promise<RunningStack> {
  const url = (port: number) => `http://127.0.0.1:${port}`;
  const urls = {
    gateway: url(opts.ports.gateway),
    eventQuery: url(opts.ports.eventQuery),
    lbaasQuota: url(opts.ports.lbaasQuota),
    domainQuota: url(opts.ports.domainQuota),
  };
  const common = {
    ...process.env,
    MONGODB_URI: opts.mongoUri,
    MONGODB_DATABASE: opts.database,
    STRATUM_IDENTITY_SECRET: opts.identitySecret,
    ...opts.env,
  };
  const policyFile = (service: string) => (common as Record<string, string | undefined>)[`${service}_POLICY_FILE`] ?? '';
  const pieces: [keyof StackPorts, string, Record<string, string>][] = [
    // Each service's own policy file (its rule names differ from the others'): <SERVICE>_POLICY_FILE becomes its POLICY_FILE.
    ['eventQuery', 'services/event-query/src/server.ts', { PORT: String(opts.ports.eventQuery), POLICY_FILE: policyFile('EVENT_QUERY') }],
    ['lbaasQuota', 'services/lbaas-quota/src/server.ts', { PORT: String(opts.ports.lbaasQuota), POLICY_FILE: policyFile('LBAAS_QUOTA') }],
    [
      'domainQuota',
      'services/domain-quota/src/server.ts',
      { PORT: String(opts.ports.domainQuota), POLICY_FILE: policyFile('DOMAIN_QUOTA') },
    ],
    [
      'gateway',
      'gateway/src/server.ts',
      {
        PORT: String(opts.ports.gateway),
        TOKENS_FILE: opts.tokensFile,
        EVENT_QUERY_URL: urls.eventQuery,
        LBAAS_QUOTA_URL: urls.lbaasQuota,
        DOMAIN_QUOTA_URL: urls.domainQuota,
        ...opts.gatewayEnv,
      },
    ],
  ];
  const logger = opts.logger ?? pino({ name: 'launcher' });
  const policy = { ...DEFAULT_RESTART_POLICY, ...opts.restart };
  const processes = {} as Record<keyof StackPorts, Supervised>;
  const pids = {} as Record<keyof StackPorts, number>;
  const stop = async () => {
    await Promise.all(Object.values(processes).map((p) => p.stop()));
  };
  try {
    for (const [name, file, env] of pieces) {
      const spawnChild = () =>
        spawn(process.execPath, ['--import', 'tsx', join(ROOT, file)], {
          cwd: ROOT,
          env: { ...common, ...env },
          // The IPC channel is how a child learns its launcher is gone (even after kill -9): it closes, and the
          // child shuts down (http-kit's serve) rather than live on as an orphan holding its port.
          stdio: ['ignore', opts.stdio ?? 'inherit', 'inherit', 'ipc'],
        });
      processes[name] = new Supervised(name, spawnChild, logger, policy);
      Object.defineProperty(pids, name, { enumerable: true, get: () => processes[name].pid });
    }
    for (const [name] of pieces) await waitHealthy(urls[name], processes[name].child, name);
  } catch (err) {
    await stop();
    throw err;
  }
  for (const p of Object.values(processes)) p.arm();
  return { gatewayUrl: urls.gateway, urls, pids, processes, stop };
}
