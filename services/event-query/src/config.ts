/**
 * event-query settings, from the environment, parsed once.
 */
import { BaseServiceEnv, parseConfig } from '@stratum/http-kit';
import { z } from 'zod';

export const EventQueryEnv = BaseServiceEnv.extend({
  /** Listen port. */
  PORT: z.coerce.number().int().min(0).max(65535).default(8781),
  /** Rows returned when a list gives no limit (Panko `[api] default_api_return_limit`). */
  EVENTS_DEFAULT_LIMIT: z.coerce.number().int().min(1).default(100),
  /** Largest limit a client may ask for; above it the request is a 400. */
  EVENTS_MAX_LIMIT: z.coerce.number().int().min(1).default(1000),
  /**
   * Server-side time limit of one read (MongoDB `maxTimeMS`); past it the request is a 503. 0 = none.
   * Below the gateway's UPSTREAM_TIMEOUT_MS (30 s), so the client gets this service's answer, not a 504.
   */
  EVENTS_QUERY_TIMEOUT_MS: z.coerce.number().int().min(0).default(25_000),
});
export type EventQueryConfig = Readonly<z.infer<typeof EventQueryEnv>>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): EventQueryConfig {
  return parseConfig(EventQueryEnv, env);
}
