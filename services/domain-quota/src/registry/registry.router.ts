/**
 * The registry's admin endpoints, under `/v3/domain_quota_registry` (Keystone's envelope for bodies and errors):
 *
 * - `GET /regions`, `GET|PUT|DELETE /regions/{region}`  `{"region": {"volume_types": [...], "products": [...]}}`
 * - `GET /domains`, `GET|PUT|DELETE /domains/{domain_id}`  `{"domain": {"name": ...}}`
 * - `GET /projects[?domain_id=]`, `GET|PUT|DELETE /projects/{project_id}`  `{"project": {"domain_id": ..., "name": ...}}`
 * - `GET /usage`, `PUT /usage/{region}`  `{"usage": {"collected_at"?: ISO-8601, "values": {item: value}}}`
 * - `GET /usage?domain_id=`: a department's actual use, the sum of its projects' reports per region
 *   `{"usage": {<region>: {collected_at, values, projects_reported, projects}}}` (cloud admin, or that department's admin)
 * - `GET /projects/{project_id}/usage`, `PUT /projects/{project_id}/usage/{region}`: one project's reports
 * - `GET /check` verifies every sum of the quota tree; `POST /check` also repairs the wrong ones (audited)
 *   `{"check": {"nodes": n, "ok": bool, "discrepancies": [...], "busy": [...]}}`
 *
 * PUT answers 201 when it created the resource and 200 when it replaced it; DELETE answers 204.
 */
import { methodNotAllowed, validate } from '@stratum/http-kit';
import { type RequestHandler, type Response, Router } from 'express';
import type { CheckReport, TreeIntegrity } from '../domain-quotas/domain-quotas.integrity';
import type { Authorizer } from '../domain-quotas/domain-quotas.policy';
import { invalidRequest } from '../errors';
import { actorOf, allow } from '../http';
import type { ProjectUsageService } from './project-usage.service';
import type { RegistryAction } from './registry.policy';
import {
  DomainBody,
  DomainParams,
  ProjectBody,
  ProjectParams,
  ProjectsQuery,
  ProjectUsageParams,
  REGISTRY_PREFIX,
  RegionBody,
  UsageQuery,
  UsageReportBody,
} from './registry.schema';
import type { RegistryService } from './registry.service';

const created = (res: Response, isNew: boolean) => res.status(isNew ? 201 : 200);

/** The body of `/check`: `ok` when no sum is wrong after the run (every one found was repaired, none busy). */
const checkBody = (r: CheckReport) => ({
  check: { ...r, ok: r.busy.length === 0 && r.discrepancies.every((d) => d.repaired) },
});

// A region's name is checked by the service when the region is created (RegionName); the routes only read it.
const putRegion = validate({ body: RegionBody }, invalidRequest);
const oneDomain = validate({ params: DomainParams }, invalidRequest);
const putDomain = validate({ params: DomainParams, body: DomainBody }, invalidRequest);
const listProjects = validate({ query: ProjectsQuery }, invalidRequest);
const oneProject = validate({ params: ProjectParams }, invalidRequest);
const putProject = validate({ params: ProjectParams, body: ProjectBody }, invalidRequest);
const putUsage = validate({ body: UsageReportBody }, invalidRequest);
const getUsage = validate({ query: UsageQuery }, invalidRequest);
const putProjectUsage = validate({ params: ProjectUsageParams, body: UsageReportBody }, invalidRequest);

/** The registry routes; `policy` is the service's enforcer (its defaults unless POLICY_FILE overrides them). */
export function registryRouter(
  service: RegistryService,
  projectUsage: ProjectUsageService,
  integrity: TreeIntegrity,
  policy: Authorizer<RegistryAction>,
): Router {
  const r = Router({ strict: false });
  const p = REGISTRY_PREFIX;
  const read = allow(policy, 'registry:get');
  const write = allow(policy, 'registry:update');

  r.get(`${p}/regions`, read, async (_req, res) => {
    res.json({ regions: await service.listRegions() });
  });
  r.get(`${p}/regions/:region`, read, async (req, res) => {
    res.json({ region: await service.getRegion(req.params.region as string) });
  });
  r.put(`${p}/regions/:region`, write, putRegion, async (req, res) => {
    const out = await service.putRegion(req.params.region as string, putRegion.input(res).body.region);
    created(res, out.created).json({ region: out.region });
  });
  r.delete(`${p}/regions/:region`, write, async (req, res) => {
    await service.deleteRegion(req.params.region as string);
    res.status(204).end();
  });

  r.get(`${p}/domains`, read, async (_req, res) => {
    res.json({ domains: await service.listDepartments() });
  });
  r.get(`${p}/domains/:domain_id`, read, oneDomain, async (_req, res) => {
    res.json({ domain: await service.getDepartment(oneDomain.input(res).params.domain_id) });
  });
  r.put(`${p}/domains/:domain_id`, write, putDomain, async (_req, res) => {
    const { params, body } = putDomain.input(res);
    const out = await service.putDepartment(params.domain_id, body.domain.name);
    created(res, out.created).json({ domain: out.domain });
  });
  r.delete(`${p}/domains/:domain_id`, write, oneDomain, async (_req, res) => {
    await service.deleteDepartment(oneDomain.input(res).params.domain_id, actorOf(res));
    res.status(204).end();
  });

  r.get(`${p}/projects`, read, listProjects, async (_req, res) => {
    res.json({ projects: await service.listProjects(listProjects.input(res).query.domain_id) });
  });
  r.get(`${p}/projects/:project_id`, read, oneProject, async (_req, res) => {
    res.json({ project: await service.getProject(oneProject.input(res).params.project_id) });
  });
  r.put(`${p}/projects/:project_id`, write, putProject, async (_req, res) => {
    const { params, body } = putProject.input(res);
    const out = await service.putProject(params.project_id, body.project);
    created(res, out.created).json({ project: out.project });
  });
  r.delete(`${p}/projects/:project_id`, write, oneProject, async (_req, res) => {
    await service.deleteProject(oneProject.input(res).params.project_id, actorOf(res));
    res.status(204).end();
  });

  r.get(`${p}/projects/:project_id/usage`, read, oneProject, async (_req, res) => {
    res.json({ usage: await projectUsage.ofProject(oneProject.input(res).params.project_id) });
  });
  r.put(`${p}/projects/:project_id/usage/:region`, allow(policy, 'registry:usage:update'), putProjectUsage, async (_req, res) => {
    const { params, body } = putProjectUsage.input(res);
    const out = await projectUsage.put(params.project_id, params.region, body.usage);
    created(res, out.created).json({ usage: out.usage });
  });

  // Without `domain_id` the cloud's region reports (cloud admin); with it that department's summed use, under C1's
  // rule (its admin may read it). Authorized before the query is validated: a `domain_id` given twice is no department.
  const readDomainUsage = allow(policy, 'registry:domain_usage:get', (req) => ({
    domainId: typeof req.query.domain_id === 'string' ? req.query.domain_id : undefined,
  }));
  const mayReadUsage: RequestHandler = (req, res, next) => (req.query.domain_id === undefined ? read : readDomainUsage)(req, res, next);
  r.get(`${p}/usage`, mayReadUsage, getUsage, async (_req, res) => {
    const { domain_id } = getUsage.input(res).query;
    res.json({ usage: domain_id === undefined ? await service.getUsage() : await projectUsage.ofDepartment(domain_id) });
  });
  r.put(`${p}/usage/:region`, allow(policy, 'registry:usage:update'), putUsage, async (req, res) => {
    res.json({ usage: await service.putUsage(req.params.region as string, putUsage.input(res).body.usage) });
  });

  r.get(`${p}/check`, read, async (_req, res) => {
    res.json(checkBody(await integrity.check()));
  });
  r.post(`${p}/check`, write, async (_req, res) => {
    res.json(checkBody(await integrity.check({ repair: true, actor: actorOf(res) })));
  });

  r.all(`${p}/check`, methodNotAllowed('GET, POST'));
  r.all(`${p}/regions`, methodNotAllowed('GET'));
  r.all(`${p}/regions/:region`, methodNotAllowed('GET, PUT, DELETE'));
  r.all(`${p}/domains`, methodNotAllowed('GET'));
  r.all(`${p}/domains/:domain_id`, methodNotAllowed('GET, PUT, DELETE'));
  r.all(`${p}/projects`, methodNotAllowed('GET'));
  r.all(`${p}/projects/:project_id`, methodNotAllowed('GET, PUT, DELETE'));
  r.all(`${p}/projects/:project_id/usage`, methodNotAllowed('GET'));
  r.all(`${p}/projects/:project_id/usage/:region`, methodNotAllowed('PUT'));
  r.all(`${p}/usage`, methodNotAllowed('GET'));
  r.all(`${p}/usage/:region`, methodNotAllowed('PUT'));
  return r;
}
