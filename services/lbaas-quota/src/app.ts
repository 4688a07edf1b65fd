/**
 * The lbaas-quota express app (never listens; see server.ts).
 */
import { createServiceApp, renderOctaviaError } from '@stratum/http-kit';
import { type Express, Router } from 'express';
import type { LbaasQuotaDeps } from './deps';
import { quotasRouter } from './quotas/quotas.router';

/** Octavia mounts the same controller at these prefixes (reference/lbaas-quota.md §1). */
export const LBAAS_PREFIXES = ['/v2.0/lbaas', '/v2/lbaas', '/v2.0', '/v2'];

export function buildApp(deps: LbaasQuotaDeps): Express {
  const router = Router();
  router.use(LBAAS_PREFIXES, quotasRouter(deps.quotas, deps.policy));
  return createServiceApp({
    logger: deps.logger,
    identitySecret: deps.config.STRATUM_IDENTITY_SECRET,
    identityMaxAgeSeconds: deps.config.IDENTITY_MAX_AGE_SECONDS,
    render: renderOctaviaError,
    store: deps.store,
    readiness: deps.readiness,
    routers: [router],
  });
}
