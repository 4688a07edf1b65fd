/**
 * Group C routes: `GET|PATCH /v3/domain_quotas/{domain_id}` (C1, C2), `GET /v3/domain_usage` (C3), a department's
 * audit log, and its projects' allocations.
 */
import { AppError, identityOf, methodNotAllowed } from '@stratum/http-kit';
import { type Request, Router } from 'express';
import { type AuditLog, actorOf } from '../audit/audit.log';
import { DEFAULT_DOMAIN_POLICY, type DomainQuotaPolicy } from './domain-quotas.policy';
import { DOMAIN_QUOTAS_ROOT, DOMAIN_USAGE_ROOT, DryRunQuery } from './domain-quotas.schema';
import type { DomainQuotasService } from './domain-quotas.service';

/** `?dry_run=` (DryRunQuery). @throws AppError 400 for a value bool_from_string does not read. */
function dryRunOf(req: Request): boolean {
  const parsed = DryRunQuery.safeParse({ dry_run: req.query.dry_run });
  if (!parsed.success) throw new AppError(400, 'Invalid input: dry_run must be true or false');
  return parsed.data.dry_run ?? false;
}

/** The department quota routes; `policy` is the service's enforcer (its defaults unless POLICY_FILE overrides them). */
export function domainQuotasRouter(
  service: DomainQuotasService,
  audit: AuditLog,
  policy: DomainQuotaPolicy = DEFAULT_DOMAIN_POLICY,
): Router {
  const { authorize } = policy;
  const r = Router({ strict: false });
  const domainIdOf = (req: Request) => req.params.domainId as string;

  r.get(`${DOMAIN_QUOTAS_ROOT}/:domainId`, async (req, res) => {
    authorize(identityOf(res), 'domain_quota:get', { domainId: domainIdOf(req) });
    const { view, etag } = await service.getDepartment(domainIdOf(req));
    res.setHeader('ETag', etag);
    res.json({ domain: view });
  });

  r.patch(`${DOMAIN_QUOTAS_ROOT}/:domainId`, async (req, res) => {
    authorize(identityOf(res), 'domain_quota:update', { domainId: domainIdOf(req) });
    const ifMatch = req.headers['if-match'];
    const { view, etag } = await service.patch(domainIdOf(req), req.body, {
      actor: actorOf(res),
      dryRun: dryRunOf(req),
      ifMatch: typeof ifMatch === 'string' ? ifMatch : undefined,
    });
    res.setHeader('ETag', etag);
    res.json({ domain: view });
  });

  r.get(`${DOMAIN_QUOTAS_ROOT}/:domainId/audit`, async (req, res) => {
    authorize(identityOf(res), 'domain_quota:audit', { domainId: domainIdOf(req) });
    const raw = req.query.limit ?? '100';
    if (typeof raw !== 'string' || !/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 1000) {
      throw new AppError(400, 'Invalid input: limit must be an integer from 1 to 1000');
    }
    const marker = typeof req.query.marker === 'string' ? req.query.marker : undefined;
    const entries = await audit.list(domainIdOf(req), Number(raw), marker);
    res.json({ audit: entries.map(({ published, ...e }) => e) });
  });

  r.get(`${DOMAIN_QUOTAS_ROOT}/:domainId/projects/:projectId`, async (req, res) => {
    authorize(identityOf(res), 'domain_quota:get', { domainId: domainIdOf(req) });
    res.json({ project: await service.getProjectQuotas(req.params.projectId as string, domainIdOf(req)) });
  });

  r.patch(`${DOMAIN_QUOTAS_ROOT}/:domainId/projects/:projectId`, async (req, res) => {
    authorize(identityOf(res), 'domain_quota:update', { domainId: domainIdOf(req) });
    const project = await service.setProjectQuotas(req.params.projectId as string, domainIdOf(req), req.body, {
      actor: actorOf(res),
      dryRun: dryRunOf(req),
    });
    res.json({ project });
  });

  r.get(DOMAIN_USAGE_ROOT, async (_req, res) => {
    authorize(identityOf(res), 'domain_usage:get');
    // quota_fake is deprecated (SPEC.md Versioning): RFC 9745 Deprecation header.
    res.setHeader('Deprecation', '@1767225600');
    res.json({ domain: await service.getCloud() });
  });

  r.all(`${DOMAIN_QUOTAS_ROOT}/:domainId`, methodNotAllowed('GET, PATCH'));
  r.all(`${DOMAIN_QUOTAS_ROOT}/:domainId/audit`, methodNotAllowed('GET'));
  r.all(`${DOMAIN_QUOTAS_ROOT}/:domainId/projects/:projectId`, methodNotAllowed('GET, PATCH'));
  r.all(DOMAIN_USAGE_ROOT, methodNotAllowed('GET'));
  return r;
}
