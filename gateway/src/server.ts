/** Process entry point: `tsx gateway/src/server.ts`. */
import type { AddressInfo } from 'node:net';
import { serve } from '@stratum/http-kit';
import pino from 'pino';
import { buildGateway } from './app';
import { loadConfig } from './config';
import { createGatewayDeps } from './deps';
import { metricsServer } from './metrics/metrics';

(async () => {
  const config = loadConfig();
  const logger = pino({ name: 'gateway', level: config.LOG_LEVEL });
  const deps = await createGatewayDeps(config, logger, { processMetrics: true });
  const metrics = config.METRICS_PORT === null ? undefined : metricsServer(deps.metrics);
  metrics?.listen(config.METRICS_PORT ?? 0, config.METRICS_HOST, () => {
    logger.info({ host: config.METRICS_HOST, port: (metrics.address() as AddressInfo).port }, 'metrics listening');
  });
  metrics?.on('error', (err) => {
    console.error(`metrics listener: ${err.message}`);
    process.exit(1);
  });
  await serve(buildGateway(deps), config.HOST, config.PORT, logger, async () => {
    metrics?.close();
    await deps.close();
  });
})().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
