/** Process entry point: `tsx services/event-query/src/server.ts`. */
import { runService } from '@stratum/http-kit';
import { buildApp } from './app';
import { loadConfig } from './config';
import { createDeps } from './deps';

runService(() => loadConfig(), createDeps, buildApp);
