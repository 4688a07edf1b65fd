/**
 * Group C routes: `GET|PATCH /v3/domain_quotas/{domain_id}` (C1, C2) and `GET /v3/domain_usage` (C3).
 */
import { identityOf } from '@stratum/http-kit';
import { Router } from 'express';
import { authorize } from './domain-quotas.policy';
import type { DomainQuotasService } from './domain-quotas.service';

export function domainQuotasRouter(service: DomainQuotasService): Router {
  const r = Router({ strict: false });

  r.get('/v3/domain_quotas/:domainId', async (req, res) => {
    const domainId = req.params.domainId as string;
    authorize(identityOf(res), 'domain_quota:get', { domainId });
    res.json({ domain: await service.getDepartment(domainId) });
  });

  r.patch('/v3/domain_quotas/:domainId', async (req, res) => {
    authorize(identityOf(res), 'domain_quota:update');
    res.json({ domain: await service.patch(req.params.domainId as string, req.body) });
  });

  r.get('/v3/domain_usage', async (_req, res) => {
    authorize(identityOf(res), 'domain_usage:get');
    // quota_fake is deprecated (SPEC.md Versioning): RFC 9745 Deprecation header.
    res.setHeader('Deprecation', '@1767225600');
    res.json({ domain: await service.getCloud() });
  });

  return r;
}
