/**
 * Group B routes, relative to a quota root: app.ts mounts them at each of the contract's LBAAS_QUOTA_ROOTS
 * (`/v2.0/lbaas/quotas`, `/v2/lbaas/quotas`, `/v2.0/quotas`, `/v2/quotas`; Octavia serves all four).
 */
import { AppError, forwardedBaseUrl, identityOf, methodNotAllowed } from '@stratum/http-kit';
import { type Request, Router } from 'express';
import { DEFAULT_QUOTA_POLICY, type QuotaPolicy } from './quotas.policy';
import { presentListItem, presentQuota, presentUsage } from './quotas.presenter';
import type { QuotaDoc } from './quotas.repository';
import { parseCounts, parseIdempotencyKey, parseListQuery, parseProjectId, parseQuotaPut, parseShowQuery } from './quotas.schema';
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

/** @throws AppError 415 `Unknown mimetype: <type>` (Octavia's) for a body that is not JSON. */
function requireJson(req: Request): void {
  if (req.headers['content-type'] && !req.is('application/json')) {
    throw new AppError(415, `Unknown mimetype: ${req.headers['content-type']}`);
  }
}

/** The quota routes; `policy` is the service's enforcer (its defaults unless POLICY_FILE overrides them). */
export function quotasRouter(quotas: QuotasService, policy: QuotaPolicy = DEFAULT_QUOTA_POLICY): Router {
  const { authorize, can } = policy;
  const r = Router({ strict: false });
  const q = (req: Request) => req.query as Record<string, unknown>;
  const pid = (req: Request) => parseProjectId(req.params.projectId as string | undefined);

  r.get('/', async (req, res) => {
    const identity = identityOf(res);
    const input = parseListQuery(q(req));
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

  // Octavia's `/{pid}/default` and the `/defaults` the clients call (reference/lbaas-quota.md §1): both are the defaults.
  r.get(['/defaults', '/:projectId/default'], async (req, res) => {
    authorize(identityOf(res), 'quota:get_defaults');
    if (req.params.projectId !== undefined) pid(req);
    res.json({ quota: presentQuota(quotas.defaults, parseShowQuery(q(req))) });
  });

  r.get('/:projectId', async (req, res) => {
    authorize(identityOf(res), 'quota:get_one', { projectId: pid(req) });
    const fields = parseShowQuery(q(req));
    res.json({ quota: presentQuota(await quotas.show(pid(req)), fields) });
  });

  r.put('/:projectId', async (req, res) => {
    authorize(identityOf(res), 'quota:put', { projectId: pid(req) });
    requireJson(req);
    const limits = parseQuotaPut(req.body);
    res.status(202).json({ quota: presentQuota(await quotas.update(pid(req), limits)) });
  });

  r.delete('/:projectId', async (req, res) => {
    authorize(identityOf(res), 'quota:delete', { projectId: pid(req) });
    await quotas.reset(pid(req), String(q(req).force ?? '').toLowerCase() === 'true');
    res.status(204).end();
  });

  // Enforcement (not in Octavia's API): a load balancer service consumes before it creates and releases after it
  // deletes; reconciliation sets absolute counts.
  r.get('/:projectId/usage', async (req, res) => {
    authorize(identityOf(res), 'quota:usage:get', { projectId: pid(req) });
    res.json({ usage: presentUsage(await quotas.usage(pid(req))) });
  });

  r.post('/:projectId/usage', async (req, res) => {
    authorize(identityOf(res), 'quota:usage:post', { projectId: pid(req) });
    requireJson(req);
    const action = req.body && typeof req.body === 'object' ? Object.keys(req.body) : [];
    if (action.length !== 1 || (action[0] !== 'consume' && action[0] !== 'release')) {
      throw new AppError(400, 'The body must hold exactly one action: "consume" or "release".');
    }
    const idempotency = parseIdempotencyKey(req.headers);
    const { outcome, replayed } = await quotas.enforce(pid(req), action[0], parseCounts(req.body, action[0]), idempotency);
    const headers: Record<string, string> = replayed ? { [REPLAYED_HEADER]: 'true' } : {};
    if (outcome.status === 403) throw new AppError(403, outcome.message, undefined, headers);
    res.set(headers).json({ usage: presentUsage(outcome.usage) });
  });

  r.put('/:projectId/usage', async (req, res) => {
    authorize(identityOf(res), 'quota:usage:put', { projectId: pid(req) });
    requireJson(req);
    res.json({ usage: presentUsage(await quotas.setInUse(pid(req), parseCounts(req.body, 'in_use'))) });
  });

  // Octavia answers 405 to POST /quotas and PUT /{pid}/default.
  r.all('/', methodNotAllowed('GET'));
  r.all(['/defaults', '/:projectId/default'], methodNotAllowed('GET'));
  r.all('/:projectId', methodNotAllowed('GET, PUT, DELETE'));
  r.all('/:projectId/usage', methodNotAllowed('GET, POST, PUT'));
  return r;
}
