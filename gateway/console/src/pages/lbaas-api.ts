/**
 * The load balancer quotas page's calls to the API (docs/api/lbaas-quota.md, through the gateway with the signed-in
 * token): the defaults (B2), a page of the list (B1) as the route asks for it, one project (B3 and its B1 record),
 * and the writes (PUT, B4 DELETE). Errors are the API's (ApiError) or a shape it did not expect (ZodError).
 */
import type { Api } from '../api';
import { type Item, type Limits, listQuery, type PageLink, type Pending, pageLink, QuotaList, SingleQuota } from './lbaas-model';

/** Canonical root of Octavia's quota controller, served by the gateway. */
const ROOT = '/v2.0/lbaas/quotas';

/** The deployment defaults (B2). */
export async function readDefaults(api: Api): Promise<Limits> {
  return (await api.get(`${ROOT}/defaults`, SingleQuota)).quota;
}

/** The page of the list a route asks for (listQuery), with its page links. */
export async function readList(api: Api, route: URLSearchParams): Promise<{ items: Item[]; next?: PageLink; prev?: PageLink }> {
  const q = listQuery(route);
  const list = await api.get(`${ROOT}?${q}`, QuotaList);
  return { items: list.quotas, next: pageLink(list.quotas_links, 'next'), prev: pageLink(list.quotas_links, 'previous') };
}

/** One project's effective limits (B3) and its stored record (B1 by project_id: limits as stored, in_use); no record: undefined. */
export async function readProject(api: Api, projectId: string): Promise<{ limits: Limits; record?: Item }> {
  const [single, list] = await Promise.all([
    api.get(`${ROOT}/${encodeURIComponent(projectId)}`, SingleQuota),
    api.get(`${ROOT}?${new URLSearchParams({ project_id: projectId })}`, QuotaList),
  ]);
  return { limits: single.quota, record: list.quotas.find((i) => i.project_id === projectId) };
}

/** Sends a confirmed write: PUT of the changed limits, or DELETE (a reset; `force` past usage above a default). Returns what to announce. */
export async function write(api: Api, projectId: string, pending: Pending): Promise<string> {
  const path = `${ROOT}/${encodeURIComponent(projectId)}`;
  if (pending.kind === 'save') {
    await api.send('PUT', path, { quota: pending.changes });
    return `Saved the quotas of ${projectId}.`;
  }
  await api.send('DELETE', pending.force ? `${path}?force=true` : path);
  return `Reset the quotas of ${projectId} to the defaults.`;
}
