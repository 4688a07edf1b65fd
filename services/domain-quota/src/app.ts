/**
 * The domain-quota express app (never listens; see server.ts).
 */
import { createServiceApp, renderKeystoneError } from '@stratum/http-kit';
import { type Express, Router } from 'express';
import type { DomainQuotaDeps } from './deps';
import { domainQuotasRouter } from './domain-quotas/domain-quotas.router';

export function buildApp(deps: DomainQuotaDeps): Express {
  const pub = Router();
  pub.get('/healthcheck', (_req, res) => {
    res.type('text/plain').send('OK');
  });
  return createServiceApp({
    logger: deps.logger,
    identitySecret: deps.config.STRATUM_IDENTITY_SECRET,
    render: renderKeystoneError,
    publicRouter: pub,
    routers: [domainQuotasRouter(deps.domainQuotas)],
  });
}
