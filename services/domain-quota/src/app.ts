/**
 * The domain-quota express app (never listens; see server.ts).
 */
import { createServiceApp, renderKeystoneError } from '@stratum/http-kit';
import type { Express } from 'express';
import type { DomainQuotaDeps } from './deps';
import { domainQuotasRouter } from './domain-quotas/domain-quotas.router';
import { registryRouter } from './registry/registry.router';

export function buildApp(deps: DomainQuotaDeps): Express {
  return createServiceApp({
    logger: deps.logger,
    identitySecret: deps.config.STRATUM_IDENTITY_SECRET,
    identityMaxAgeSeconds: deps.config.IDENTITY_MAX_AGE_SECONDS,
    render: renderKeystoneError,
    store: deps.store,
    readiness: deps.readiness,
    routers: [
      domainQuotasRouter(deps.domainQuotas, deps.audit, deps.policy),
      registryRouter(deps.registryService, deps.projectUsage, deps.integrity, deps.policy),
    ],
  });
}
