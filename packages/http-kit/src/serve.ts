/**
 * Runs an express app as a process: listen, log the address, drain and close cleanly on SIGTERM/SIGINT.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';

/** Anything that listens like an express app (an app, or the gateway's front). */
export interface Listenable {
  listen(port: number, host: string): Server;
}

import type { Logger } from 'pino';

/**
 * How long a service keeps an idle keep-alive connection, in milliseconds: longer than its clients (the gateway's
 * upstream agent, a load balancer's 60 s) keep theirs, so a client never reuses a connection the service is closing
 * (node's default, 5 s, races a reused socket into a reset).
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/**
 * Listens on `host:port` (port 0 = ephemeral) and installs graceful shutdown (drainOnStop: requests in flight are
 * answered, then `close` runs: store and cache connections) on SIGTERM, SIGINT, or when the IPC channel of the
 * launcher that started the process closes.
 * @returns the bound port.
 */
export async function serve(app: Listenable, host: string, port: number, logger: Logger, close: () => Promise<void>): Promise<number> {
  const server = app.listen(port, host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  const bound = (server.address() as AddressInfo).port;
  logger.info({ host, port: bound }, 'listening');
  const stop = drainOnStop(server, logger, close);
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  // Started by a launcher with an IPC channel (deploy/src/processes.ts): the channel closes when the launcher exits,
  // however it died, and the process stops with it instead of living on as an orphan.
  if (process.channel) {
    process.channel.unref();
    process.once('disconnect', () => stop('launcher exited'));
  }
  return bound;
}

/** How long in-flight requests may take to finish after SIGTERM before the process exits anyway (ms). */
const DRAIN_TIMEOUT_MS = 10_000;

/**
 * Graceful stop of `server`: stop accepting connections, let every request in flight finish (its response tells the
 * client `Connection: close`), close keep-alive connections as they fall idle, then run `close` and exit 0. After
 * DRAIN_TIMEOUT_MS the remaining connections are cut and the process exits 1. Kubernetes sends SIGTERM and waits
 * `terminationGracePeriodSeconds` (30 s by default), so a request being served when a pod is stopped is answered.
 * @returns the stop function (idempotent), given the reason to log.
 */
function drainOnStop(server: Server, logger: Logger, close: () => Promise<void>): (reason: string) => void {
  const inFlight = new Set<ServerResponse>();
  let stopping = false;
  server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
    if (stopping && !res.headersSent) res.setHeader('Connection', 'close');
    inFlight.add(res);
    res.once('close', () => {
      inFlight.delete(res);
      if (stopping) server.closeIdleConnections();
    });
  });
  return (reason: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal: reason, in_flight: inFlight.size }, 'shutting down');
    for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
    server.close(() => {
      close().finally(() => process.exit(0));
    });
    server.closeIdleConnections();
    setTimeout(() => {
      logger.warn({ in_flight: inFlight.size }, 'requests still in flight at the drain timeout; closing their connections');
      server.closeAllConnections();
      process.exit(1);
    }, DRAIN_TIMEOUT_MS).unref();
  };
}

/**
 * A service process's `main`: parse the configuration, build the composition root, serve the app. Any start-up
 * failure (bad configuration, unreachable store) is printed and exits non-zero.
 */
export function runService<C extends { HOST: string; PORT: number }, D extends { logger: Logger; close(): Promise<void> }>(
  loadConfig: () => C,
  createDeps: (config: C) => Promise<D>,
  buildApp: (deps: D) => Express,
): void {
  (async () => {
    const config = loadConfig();
    const deps = await createDeps(config);
    await serve(buildApp(deps), config.HOST, config.PORT, deps.logger, deps.close);
  })().catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
