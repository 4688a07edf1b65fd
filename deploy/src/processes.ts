/**
 * Runs the three services and the gateway as separate processes (as they deploy), each on its own port.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { stopChild, waitHealthy } from './child';
import { ROOT } from './store';

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
}

export interface RunningStack {
  gatewayUrl: string;
  urls: Record<keyof StackPorts, string>;
  /** Process ids (e.g. for CPU accounting in the benches). */
  pids: Record<keyof StackPorts, number>;
  stop(): Promise<void>;
}

/** Starts the services, then the gateway, and waits until each answers its health check. */
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
  const pieces: [keyof StackPorts, string, Record<string, string>][] = [
    ['eventQuery', 'services/event-query/src/server.ts', { PORT: String(opts.ports.eventQuery) }],
    ['lbaasQuota', 'services/lbaas-quota/src/server.ts', { PORT: String(opts.ports.lbaasQuota) }],
    ['domainQuota', 'services/domain-quota/src/server.ts', { PORT: String(opts.ports.domainQuota) }],
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
  const children: ChildProcess[] = [];
  const stop = async () => {
    await Promise.all(children.map(stopChild));
  };
  try {
    const started = pieces.map(([name, file, env]) => {
      const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, file)], {
        cwd: ROOT,
        env: { ...common, ...env },
        stdio: ['ignore', opts.stdio ?? 'inherit', 'inherit'],
      });
      children.push(child);
      return [name, child] as const;
    });
    for (const [name, child] of started) await waitHealthy(urls[name], child, name);
  } catch (err) {
    await stop();
    throw err;
  }
  const pids = Object.fromEntries(pieces.map(([name], i) => [name, children[i]?.pid ?? 0])) as Record<keyof StackPorts, number>;
  return { gatewayUrl: urls.gateway, urls, pids, stop };
}
