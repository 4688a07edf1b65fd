/**
 * Group B routes, mounted under `/v2.0/lbaas`, `/v2/lbaas`, `/v2.0` and `/v2` (Octavia serves all four).
 */
import { AppError, externalBaseUrl, identityOf } from '@stratum/http-kit';
import { isAdmin } from '@stratum/identity';
import { type Request, Router } from 'express';
import { authorize, can } from './quotas.policy';
import { presentListItem, presentQuota } from './quotas.presenter';
import { parseListQuery, parseQuotaPut, parseShowQuery } from './quotas.schema';
import type { QuotasService } from './quotas.service';

/** The URL of this list page with another marker, as the client addressed it (through the gateway's prefix). */
function pageLink(req: Request, marker: string): string {
  const url = new URL(req.originalUrl, 'http://placeholder');
  url.searchParams.set('marker', marker);
  const prefix = (req.headers['x-forwarded-prefix'] as string | undefined) ?? '';
  return `${externalBaseUrl(req, prefix)}${url.pathname}${url.search}`;
}

export function quotasRouter(quotas: QuotasService): Router {
  const r = Router({ strict: false });
  const q = (req: Request) => req.query as Record<string, unknown>;
  const pid = (req: Request) => req.params.projectId as string;

  r.get('/quotas', async (req, res) => {
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
    const page = await quotas.list({ projectId, marker: input.marker, limit: input.limit });
    const last = page.docs.at(-1);
    res.json({
      quotas: page.docs.map((d) => presentListItem(d, input.fields)),
      quotas_links: page.more && last ? [{ href: pageLink(req, last._id), rel: 'next' }] : [],
    });
  });

  // Octavia's `/{pid}/default` and the `/defaults` the clients call (reference/lbaas-quota.md §1): both are the defaults.
  r.get(['/quotas/defaults', '/quotas/:projectId/default'], async (req, res) => {
    authorize(identityOf(res), 'quota:get_defaults');
    res.json({ quota: presentQuota(quotas.defaults, parseShowQuery(q(req))) });
  });

  r.get('/quotas/:projectId', async (req, res) => {
    authorize(identityOf(res), 'quota:get_one', { projectId: pid(req) });
    const fields = parseShowQuery(q(req));
    res.json({ quota: presentQuota(await quotas.show(pid(req)), fields) });
  });

  r.put('/quotas/:projectId', async (req, res) => {
    authorize(identityOf(res), 'quota:put', { projectId: pid(req) });
    if (req.headers['content-type'] && !req.is('application/json')) {
      throw new AppError(415, `Unknown mimetype: ${req.headers['content-type']}`);
    }
    const limits = parseQuotaPut(req.body);
    res.status(202).json({ quota: presentQuota(await quotas.update(pid(req), limits)) });
  });

  r.delete('/quotas/:projectId', async (req, res) => {
    const identity = identityOf(res);
    authorize(identity, 'quota:delete', { projectId: pid(req) });
    const force = String(q(req).force ?? '').toLowerCase() === 'true';
    await quotas.reset(pid(req), force && isAdmin(identity));
    res.status(204).end();
  });

  return r;
}
