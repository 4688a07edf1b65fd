/**
 * The lbaas-quota express app (never listens; see server.ts).
 */
import { createServiceApp, renderOctaviaError } from '@stratum/http-kit';
import { type Express, Router } from 'express';
import { LBAAS_QUOTA_ROOTS } from './contract';
import type { LbaasQuotaDeps } from './deps';
import { quotasRouter } from './quotas/quotas.router';

export function buildApp(deps: LbaasQuotaDeps): Express {
  const router = Router();
  router.use([...LBAAS_QUOTA_ROOTS], quotasRouter(deps.quotas, deps.policy));
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
