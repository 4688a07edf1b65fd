/** Process entry point: `tsx gateway/src/server.ts`. */
import { serve } from '@stratum/http-kit';
import pino from 'pino';
import { buildGateway } from './app';
import { loadConfig } from './config';
import { StaticTokens } from './tokens';

try {
  const config = loadConfig();
  const logger = pino({ name: 'gateway', level: config.LOG_LEVEL });
  const tokens = StaticTokens.fromFile(config.TOKENS_FILE);
  serve(buildGateway({ config, logger, tokens }), config.HOST, config.PORT, logger, async () => {}).catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
}
