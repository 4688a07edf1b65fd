/**
 * Runs an express app as a process: listen, log the address, close cleanly on SIGTERM/SIGINT.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';

/** Anything that listens like an express app (an app, or the gateway's front). */
export interface Listenable {
  listen(port: number, host: string): Server;
}

import type { Logger } from 'pino';

/**
 * Listens on `host:port` (port 0 = ephemeral) and installs graceful shutdown that stops accepting connections,
 * then runs `close` (store and cache connections): on SIGTERM, SIGINT, or when the IPC channel of the launcher that
 * started the process closes.
 * @returns the bound port.
 */
export async function serve(app: Listenable, host: string, port: number, logger: Logger, close: () => Promise<void>): Promise<number> {
  const server = app.listen(port, host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  server.keepAliveTimeout = 65_000;
  const bound = (server.address() as AddressInfo).port;
  logger.info({ host, port: bound }, 'listening');
  const stop = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    server.close(() => {
      close().finally(() => process.exit(0));
    });
    server.closeAllConnections();
    setTimeout(() => process.exit(1), 10_000).unref();
  };
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
