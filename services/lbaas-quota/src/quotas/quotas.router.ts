/**
 * Group B routes, relative to a quota root: app.ts mounts them at each of the contract's LBAAS_QUOTA_ROOTS
 * (`/v2.0/lbaas/quotas`, `/v2/lbaas/quotas`, `/v2.0/quotas`, `/v2/quotas`; Octavia serves all four).
 */
import { forwardedBaseUrl, identityOf, methodNotAllowed, validate } from '@stratum/http-kit';
import { type Request, type RequestHandler, type Response, Router } from 'express';
import { invalidRequest, quotaMet } from '../errors';
import { DEFAULT_QUOTA_POLICY, type QuotaAction, type QuotaPolicy } from './quotas.policy';
import { presentListItem, presentQuota, presentUsage } from './quotas.presenter';
import type { QuotaDoc } from './quotas.repository';
import * as schema from './quotas.schema';
import type { QuotasService } from './quotas.service';

/** The URL of this list page with another marker (and page_reverse), as the client addressed it (through the gateway's prefix). */
function pageLink(req: Request, marker: string, reverse: boolean): string {
  const url = new URL(req.originalUrl, 'http://placeholder');
  url.searchParams.set('marker', marker);
  if (reverse) url.searchParams.set('page_reverse', 'True');
  else url.searchParams.delete('page_reverse');
  return `${forwardedBaseUrl(req)}${url.pathname}${url.search}`;
}

/**
 * `quotas_links` of a page (Octavia's `[{"href","rel"}]`): `next` when matching records follow the page, `previous`
 * when matching records precede it, none past either end. Unlike Octavia, the markers are project ids, so following a
 * link works, also with a `project_id` filter.
 */
function pageLinks(req: Request, page: { docs: QuotaDoc[]; hasNext: boolean; hasPrevious: boolean }) {
  const first = page.docs[0]?._id;
  const last = page.docs.at(-1)?._id;
  const links: { href: string; rel: 'next' | 'previous' }[] = [];
  if (page.hasNext && last !== undefined) links.push({ href: pageLink(req, last, false), rel: 'next' });
  if (page.hasPrevious && first !== undefined) links.push({ href: pageLink(req, first, true), rel: 'previous' });
  return links;
}

/** Marks a response that repeats an earlier call's outcome (Stripe's `Idempotent-Replayed`). */
const REPLAYED_HEADER = 'Idempotent-Replayed';

/** Each request part's validation, with the group's 400 (quotas.schema.ts states every rule). */
const project = validate({ params: schema.ProjectParams }, invalidRequest);
const listQuery = validate({ query: schema.ListQueryParams }, invalidRequest);
const showQuery = validate({ query: schema.ShowQueryParams }, invalidRequest);
const resetQuery = validate({ query: schema.ResetQueryParams }, invalidRequest);
const putBody = validate({ body: schema.QuotaPutBody }, invalidRequest);
const usageChangeBody = validate({ body: schema.UsageChangeBody }, invalidRequest);
const inUseBody = validate({ body: schema.InUseBody }, invalidRequest);

/**
 * The quota routes, relative to a quota root; `policy` is the service's enforcer (its defaults unless POLICY_FILE
 * overrides them). On a project's routes the path is checked first, then the policy, then the query or body (so a
 * refused caller learns nothing about the body's rules).
 */
export function quotasRouter(quotas: QuotasService, policy: QuotaPolicy = DEFAULT_QUOTA_POLICY): Router {
  const { authorize, can } = policy;
  const r = Router({ strict: false });
  const projectOf = (res: Response) => project.input(res).params.project_id;
  /** Refuses (403) unless the policy allows `action`, on the path's project when the route has one. */
  const allow =
    (action: QuotaAction, onProject = true): RequestHandler =>
    (_req, res, next) => {
      authorize(identityOf(res), action, onProject ? { projectId: projectOf(res) } : {});
      next();
    };

  r.get('/', listQuery, async (req, res) => {
    const identity = identityOf(res);
    const input = listQuery.input(res).query;
    let projectId = input.projectId;
    if (!can(identity, 'quota:get_all-global')) {
      authorize(identity, 'quota:get_all');
      // A non-admin sees only their own project; asking for another project yields an empty list (as Octavia).
      if (projectId !== undefined && projectId !== identity.projectId) {
        res.json({ quotas: [], quotas_links: [] });
        return;
      }
      projectId = identity.projectId ?? undefined;
    }
    const page = await quotas.list({
      projectId,
      marker: input.marker,
      limit: input.limit,
      direction: input.direction,
      reverse: input.pageReverse,
    });
    res.json({ quotas: page.docs.map((d) => presentListItem(d, input.fields)), quotas_links: pageLinks(req, page) });
  });

  // Octavia's `/{project_id}/default` and the `/defaults` the clients call (docs/upstream/lbaas-quota.md §1): both
  // are the defaults.
  const defaults: RequestHandler = (_req, res) => {
    res.json({ quota: presentQuota(quotas.defaults, showQuery.input(res).query) });
  };
  r.get('/defaults', allow('quota:get_defaults', false), showQuery, defaults);
  r.get('/:project_id/default', allow('quota:get_defaults', false), project, showQuery, defaults);

  r.get('/:project_id', project, allow('quota:get_one'), showQuery, async (_req, res) => {
    res.json({ quota: presentQuota(await quotas.show(projectOf(res)), showQuery.input(res).query) });
  });

  r.put('/:project_id', project, allow('quota:put'), putBody, async (_req, res) => {
    res.status(202).json({ quota: presentQuota(await quotas.update(projectOf(res), putBody.input(res).body)) });
  });

  r.delete('/:project_id', project, allow('quota:delete'), resetQuery, async (_req, res) => {
    await quotas.reset(projectOf(res), resetQuery.input(res).query);
    res.status(204).end();
  });

  // Enforcement (not in Octavia's API): a load balancer service consumes before it creates and releases after it
  // deletes; reconciliation sets absolute counts.
  r.get('/:project_id/usage', project, allow('quota:usage:get'), async (_req, res) => {
    res.json({ usage: presentUsage(await quotas.usage(projectOf(res))) });
  });

  r.post('/:project_id/usage', project, allow('quota:usage:post'), usageChangeBody, async (req, res) => {
    const { action, counts } = usageChangeBody.input(res).body;
    const { outcome, replayed } = await quotas.enforce(projectOf(res), action, counts, schema.parseIdempotencyKey(req.headers));
    const headers: Record<string, string> = replayed ? { [REPLAYED_HEADER]: 'true' } : {};
    if (outcome.status === 403) throw quotaMet(outcome.message, headers);
    res.set(headers).json({ usage: presentUsage(outcome.usage) });
  });

  r.put('/:project_id/usage', project, allow('quota:usage:put'), inUseBody, async (_req, res) => {
    res.json({ usage: presentUsage(await quotas.setInUse(projectOf(res), inUseBody.input(res).body)) });
  });

  // Octavia answers 405 to POST /quotas and PUT /{project_id}/default.
  r.all('/', methodNotAllowed('GET'));
  r.all(['/defaults', '/:project_id/default'], methodNotAllowed('GET'));
  r.all('/:project_id', methodNotAllowed('GET, PUT, DELETE'));
  r.all('/:project_id/usage', methodNotAllowed('GET, POST, PUT'));
  return r;
}
