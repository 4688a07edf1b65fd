/**
 * Group C routes (docs/api/domain-quota.md): `GET|PATCH /v3/domain_quotas/{domain_id}` (C1, C2), `GET /v3/domain_usage`
 * (C3), a department's
 * audit log, and its projects' allocations. Each route authorizes, validates (the schemas of domain-quotas.schema.ts)
 * and hands typed input to the service.
 */
import { methodNotAllowed, validate } from '@stratum/http-kit';
import { Router } from 'express';
import type { AuditLog } from '../audit/audit.log';
import { invalidQuotaPatch, invalidRequest, unknownMarker } from '../errors';
import { actorOf, allow, departmentOf } from '../http';
import type { Authorizer, DomainQuotaAction } from './domain-quotas.policy';
import { auditEntryView } from './domain-quotas.presenter';
import {
  AUDIT_PAGE_SIZE,
  AuditQuery,
  DOMAIN_QUOTAS_ROOT,
  DOMAIN_USAGE_ROOT,
  DomainParams,
  DomainPatchBody,
  DryRunQuery,
  ProjectParams,
  ProjectPatchBody,
} from './domain-quotas.schema';
import type { DomainQuotasService } from './domain-quotas.service';

const ONE = `${DOMAIN_QUOTAS_ROOT}/:domain_id`;
const PROJECT = `${ONE}/projects/:project_id`;

const showDepartment = validate({ params: DomainParams }, invalidRequest);
const editDepartment = validate({ params: DomainParams, query: DryRunQuery, body: DomainPatchBody }, invalidQuotaPatch);
const listAudit = validate({ params: DomainParams, query: AuditQuery }, invalidRequest);
const showProject = validate({ params: ProjectParams }, invalidRequest);
const editProject = validate({ params: ProjectParams, query: DryRunQuery, body: ProjectPatchBody }, invalidQuotaPatch);

/** The department quota routes; `policy` is the service's enforcer (its defaults unless POLICY_FILE overrides them). */
export function domainQuotasRouter(service: DomainQuotasService, audit: AuditLog, policy: Authorizer<DomainQuotaAction>): Router {
  const r = Router({ strict: false });
  const may = (action: DomainQuotaAction) => allow(policy, action, departmentOf);

  r.get(ONE, may('domain_quota:get'), showDepartment, async (_req, res) => {
    const { params } = showDepartment.input(res);
    const { view, etag } = await service.getDepartment(params.domain_id);
    res.setHeader('ETag', etag).json({ domain: view });
  });

  r.patch(ONE, may('domain_quota:update'), editDepartment, async (req, res) => {
    const { params, query, body } = editDepartment.input(res);
    const ifMatch = req.headers['if-match'];
    const { view, etag } = await service.patch(params.domain_id, body.domain, {
      actor: actorOf(res),
      dryRun: query.dry_run ?? false,
      ifMatch: typeof ifMatch === 'string' ? ifMatch : undefined,
    });
    res.setHeader('ETag', etag).json({ domain: view });
  });

  r.get(`${ONE}/audit`, may('domain_quota:audit'), listAudit, async (_req, res) => {
    const { params, query } = listAudit.input(res);
    const entries = await audit.list(params.domain_id, query.limit ?? AUDIT_PAGE_SIZE, query.marker);
    if (entries === null) throw unknownMarker(query.marker as string);
    res.json({ audit: entries.map(auditEntryView) });
  });

  r.get(PROJECT, may('domain_quota:get'), showProject, async (_req, res) => {
    const { params } = showProject.input(res);
    res.json({ project: await service.getProjectQuotas(params.project_id, params.domain_id) });
  });

  r.patch(PROJECT, may('domain_quota:update'), editProject, async (_req, res) => {
    const { params, query, body } = editProject.input(res);
    const project = await service.setProjectQuotas(params.project_id, params.domain_id, body.project, {
      actor: actorOf(res),
      dryRun: query.dry_run ?? false,
    });
    res.json({ project });
  });

  r.get(DOMAIN_USAGE_ROOT, allow(policy, 'domain_usage:get'), async (_req, res) => {
    // quota_fake is deprecated (docs/api/README.md Versioning): RFC 9745 Deprecation header.
    res.setHeader('Deprecation', '@1767225600').json({ domain: await service.getCloud() });
  });

  r.all(ONE, methodNotAllowed('GET, PATCH'));
  r.all(`${ONE}/audit`, methodNotAllowed('GET'));
  r.all(PROJECT, methodNotAllowed('GET, PATCH'));
  r.all(DOMAIN_USAGE_ROOT, methodNotAllowed('GET'));
  return r;
}
