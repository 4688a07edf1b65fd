/**
 * The registry's admin endpoints, under `/v3/domain_quota_registry` (Keystone's envelope for bodies and errors):
 *
 * - `GET /regions`, `GET|PUT|DELETE /regions/{region}`  `{"region": {"volume_types": [...], "products": [...]}}`
 * - `GET /domains`, `GET|PUT|DELETE /domains/{domain_id}`  `{"domain": {"name": ...}}`
 * - `GET /projects[?domain_id=]`, `GET|PUT|DELETE /projects/{project_id}`  `{"project": {"domain_id": ..., "name": ...}}`
 * - `GET /usage`, `PUT /usage/{region}`  `{"usage": {"collected_at"?: ISO-8601, "values": {item: value}}}`
 * - `GET /check` verifies every sum of the quota tree; `POST /check` also repairs the wrong ones (audited)
 *   `{"check": {"nodes": n, "ok": bool, "discrepancies": [...], "busy": [...]}}`
 *
 * PUT answers 201 when it created the resource and 200 when it replaced it; DELETE answers 204.
 */
import { AppError, identityOf, methodNotAllowed, parseBody } from '@stratum/http-kit';
import { type Request, type Response, Router } from 'express';
import { actorOf } from '../audit/audit.log';
import type { CheckReport, TreeIntegrity } from '../domain-quotas/domain-quotas.integrity';
import { DEFAULT_DOMAIN_POLICY, type DomainQuotaPolicy } from '../domain-quotas/domain-quotas.policy';
import { DomainBody, KeystoneId, ProjectBody, REGISTRY_PREFIX, RegionBody, UsageBody } from './registry.schema';
import type { RegistryService } from './registry.service';

/** A path id checked like a body id. @throws AppError 400. */
function idOf(req: Request, name: string): string {
  const v = req.params[name] as string;
  const ok = KeystoneId.safeParse(v);
  if (!ok.success) throw new AppError(400, `Invalid input: ${name} ${ok.error.issues[0]?.message}`);
  return v;
}

const created = (res: Response, isNew: boolean) => res.status(isNew ? 201 : 200);

/** The body of `/check`: `ok` when no sum is wrong after the run (every one found was repaired, none busy). */
const checkBody = (r: CheckReport) => ({
  check: { ...r, ok: r.busy.length === 0 && r.discrepancies.every((d) => d.repaired) },
});

/** The registry routes; `policy` is the service's enforcer (its defaults unless POLICY_FILE overrides them). */
export function registryRouter(
  service: RegistryService,
  integrity: TreeIntegrity,
  policy: DomainQuotaPolicy = DEFAULT_DOMAIN_POLICY,
): Router {
  const { authorize } = policy;
  const r = Router({ strict: false });
  const p = REGISTRY_PREFIX;
  const read = (res: Response) => authorize(identityOf(res), 'registry:get');
  const write = (res: Response) => authorize(identityOf(res), 'registry:update');

  r.get(`${p}/regions`, async (_req, res) => {
    read(res);
    res.json({ regions: await service.listRegions() });
  });
  r.get(`${p}/regions/:region`, async (req, res) => {
    read(res);
    res.json({ region: await service.getRegion(req.params.region as string) });
  });
  r.put(`${p}/regions/:region`, async (req, res) => {
    write(res);
    const body = parseBody(RegionBody, req.body);
    const out = await service.putRegion(req.params.region as string, body.region);
    created(res, out.created).json({ region: out.region });
  });
  r.delete(`${p}/regions/:region`, async (req, res) => {
    write(res);
    await service.deleteRegion(req.params.region as string);
    res.status(204).end();
  });

  r.get(`${p}/domains`, async (_req, res) => {
    read(res);
    res.json({ domains: await service.listDepartments() });
  });
  r.get(`${p}/domains/:domainId`, async (req, res) => {
    read(res);
    res.json({ domain: await service.getDepartment(idOf(req, 'domainId')) });
  });
  r.put(`${p}/domains/:domainId`, async (req, res) => {
    write(res);
    const id = idOf(req, 'domainId');
    const body = parseBody(DomainBody, req.body);
    const out = await service.putDepartment(id, body.domain.name);
    created(res, out.created).json({ domain: out.domain });
  });
  r.delete(`${p}/domains/:domainId`, async (req, res) => {
    write(res);
    await service.deleteDepartment(idOf(req, 'domainId'), actorOf(res));
    res.status(204).end();
  });

  r.get(`${p}/projects`, async (req, res) => {
    read(res);
    const domainId = req.query.domain_id;
    if (domainId !== undefined && typeof domainId !== 'string') throw new AppError(400, 'Invalid input: domain_id must be given once');
    res.json({ projects: await service.listProjects(domainId) });
  });
  r.get(`${p}/projects/:projectId`, async (req, res) => {
    read(res);
    res.json({ project: await service.getProject(idOf(req, 'projectId')) });
  });
  r.put(`${p}/projects/:projectId`, async (req, res) => {
    write(res);
    const id = idOf(req, 'projectId');
    const body = parseBody(ProjectBody, req.body);
    const out = await service.putProject(id, body.project);
    created(res, out.created).json({ project: out.project });
  });
  r.delete(`${p}/projects/:projectId`, async (req, res) => {
    write(res);
    await service.deleteProject(idOf(req, 'projectId'), actorOf(res));
    res.status(204).end();
  });

  r.get(`${p}/usage`, async (_req, res) => {
    read(res);
    res.json({ usage: await service.getUsage() });
  });
  r.put(`${p}/usage/:region`, async (req, res) => {
    authorize(identityOf(res), 'registry:usage:update');
    const body = parseBody(UsageBody, req.body);
    res.json({ usage: await service.putUsage(req.params.region as string, body.usage) });
  });

  r.get(`${p}/check`, async (_req, res) => {
    read(res);
    res.json(checkBody(await integrity.check()));
  });
  r.post(`${p}/check`, async (_req, res) => {
    write(res);
    res.json(checkBody(await integrity.check({ repair: true, actor: actorOf(res) })));
  });

  r.all(`${p}/check`, methodNotAllowed('GET, POST'));
  r.all(`${p}/regions`, methodNotAllowed('GET'));
  r.all(`${p}/regions/:region`, methodNotAllowed('GET, PUT, DELETE'));
  r.all(`${p}/domains`, methodNotAllowed('GET'));
  r.all(`${p}/domains/:domainId`, methodNotAllowed('GET, PUT, DELETE'));
  r.all(`${p}/projects`, methodNotAllowed('GET'));
  r.all(`${p}/projects/:projectId`, methodNotAllowed('GET, PUT, DELETE'));
  r.all(`${p}/usage`, methodNotAllowed('GET'));
  r.all(`${p}/usage/:region`, methodNotAllowed('PUT'));
  return r;
}
