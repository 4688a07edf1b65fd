/**
 * B1 through the gateway (docs/api/lbaas-quota.md): both spellings, filters and fields, a member's own project only,
 * paging forwards and backwards with Octavia's links, markers with filters, and unknown filters refused.
 */
import type { TestStack } from '@stratum/testing';
import request from 'supertest';
import { project, quotaSteps, startQuotaStack } from './quotas-harness';

describe('group B: the load balancer quota list (B1) through the gateway', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startQuotaStack();
  });
  afterAll(() => stack.close());
  const { as, putQuota } = quotaSteps(() => stack);

  /** Every page met walking `rel` links from `url`, with the rels of its links. */
  async function pagesFrom(url: string, rel: 'next' | 'previous', who: keyof TestStack['personas'] = 'admin') {
    const pages: { ids: string[]; rels: string[] }[] = [];
    let next: string | undefined = url;
    for (let i = 0; next && i < 50; i++) {
      const res: request.Response = await request(stack.gateway).get(next).set(as(who));
      expect(res.status).toBe(200);
      const links: { href: string; rel: string }[] = res.body.quotas_links;
      pages.push({ ids: res.body.quotas.map((q: { project_id: string }) => q.project_id), rels: links.map((l) => l.rel).sort() });
      const link = links.find((l) => l.rel === rel);
      next = link ? new URL(link.href).pathname + new URL(link.href).search : undefined;
    }
    return pages;
  }

  it('B1 lists records with both spellings, in_use, tenant_id and raw null; filters by project_id; narrows by fields', async () => {
    const p = project();
    await putQuota(p, { load_balancer: 3 });
    const res = await request(stack.gateway).get(`/v2.0/lbaas/quotas?project_id=${p}`).set(as('admin'));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      quotas: [
        {
          project_id: p,
          tenant_id: p,
          load_balancer: 3,
          loadbalancer: 3,
          listener: null,
          member: null,
          pool: null,
          health_monitor: null,
          healthmonitor: null,
          l7policy: null,
          l7rule: null,
          in_use_load_balancer: 0,
          in_use_listener: 0,
          in_use_member: 0,
          in_use_pool: 0,
          in_use_health_monitor: 0,
          in_use_l7policy: 0,
          in_use_l7rule: 0,
        },
      ],
      quotas_links: [],
    });
    const narrowed = await request(stack.gateway)
      .get(`/v2.0/lbaas/quotas?project_id=${p}&fields=project_id&fields=loadbalancer`)
      .set(as('admin'));
    expect(narrowed.body.quotas).toEqual([{ project_id: p, loadbalancer: 3 }]);
  });

  it('B1 for a member lists only their own project', async () => {
    await putQuota(stack.projectA, { pool: 7 });
    await putQuota(stack.projectB, { pool: 8 });
    const res = await request(stack.gateway).get('/v2.0/lbaas/quotas').set(as('memberA'));
    expect(res.body.quotas.map((q: { project_id: string }) => q.project_id)).toEqual([stack.projectA]);
    const other = await request(stack.gateway).get(`/v2.0/lbaas/quotas?project_id=${stack.projectB}`).set(as('memberA'));
    expect(other.body).toEqual({ quotas: [], quotas_links: [] });
  });

  it('B1 pages with limit and a next link that works', async () => {
    const ids = [project(), project(), project()].sort();
    for (const id of ids) await putQuota(id, { member: 1 });
    const seen: string[] = [];
    let url: string | undefined = '/v2.0/lbaas/quotas?limit=2';
    for (let i = 0; url && i < 100; i++) {
      const res: request.Response = await request(stack.gateway).get(url).set(as('admin'));
      expect(res.status).toBe(200);
      seen.push(...res.body.quotas.map((q: { project_id: string }) => q.project_id));
      const next: { href: string } | undefined = res.body.quotas_links.find((l: { rel: string }) => l.rel === 'next');
      url = next ? new URL(next.href).pathname + new URL(next.href).search : undefined;
    }
    for (const id of ids) expect(seen).toContain(id);
    expect(new Set(seen).size).toBe(seen.length);
  });

  /** Follows `rel` links from `url`, collecting project ids page by page. */
  async function walk(url: string, rel: 'next' | 'previous'): Promise<string[][]> {
    const pages: string[][] = [];
    let next: string | undefined = url;
    for (let i = 0; next && i < 200; i++) {
      const res: request.Response = await request(stack.gateway).get(next).set(as('admin'));
      expect(res.status).toBe(200);
      pages.push(res.body.quotas.map((q: { project_id: string }) => q.project_id));
      const link: { href: string } | undefined = res.body.quotas_links.find((l: { rel: string }) => l.rel === rel);
      next = link ? new URL(link.href).pathname + new URL(link.href).search : undefined;
    }
    return pages;
  }

  it('B1 pages backwards: previous links and page_reverse walk the same records in the same order; sort desc reverses it', async () => {
    for (let i = 0; i < 5; i++) await putQuota(project(), { member: 2 });
    const forward = await walk('/v2.0/lbaas/quotas?limit=2', 'next');
    const all = forward.flat();
    expect(all.length).toBeGreaterThanOrEqual(5);
    expect([...all].sort()).toEqual(all);
    // From the last page, the previous links lead back to the first, each page in ascending order.
    const lastPage = forward.at(-1) as string[];
    const lastMarker = all[all.length - lastPage.length - 1] as string;
    const backward = await walk(`/v2.0/lbaas/quotas?limit=2&marker=${lastMarker}`, 'previous');
    expect(backward.reverse().flat()).toEqual(all);
    for (const page of backward) expect([...page].sort()).toEqual(page);
    // page_reverse with a marker gives the records just before it.
    const before = await request(stack.gateway).get(`/v2.0/lbaas/quotas?limit=2&marker=${all[3]}&page_reverse=True`).set(as('admin'));
    expect(before.body.quotas.map((q: { project_id: string }) => q.project_id)).toEqual([all[1], all[2]]);
    expect(before.body.quotas_links.map((l: { rel: string }) => l.rel).sort()).toEqual(['next', 'previous']);
    // Descending order, by either spelling of the sort parameters.
    expect((await walk('/v2.0/lbaas/quotas?limit=3&sort=project_id:desc', 'next')).flat()).toEqual([...all].reverse());
    expect((await walk('/v2.0/lbaas/quotas?limit=3&sort_key=project_id&sort_dir=desc', 'next')).flat()).toEqual([...all].reverse());
    // limit=0 (Octavia: no limit) is the largest page.
    const unlimited = await request(stack.gateway).get('/v2.0/lbaas/quotas?limit=0').set(as('admin'));
    expect(unlimited.body.quotas.map((q: { project_id: string }) => q.project_id)).toEqual(all);
  });

  it.each([
    ['sort=load_balancer:asc', "Supplied sort key 'load_balancer' is not valid."],
    ['sort=project_id:up', "Supplied sort direction 'up' is not valid."],
    ['limit=abc', "Supplied pagination limit 'abc' is not valid."],
    ['page_reverse=maybe', "Supplied page_reverse 'maybe' is not valid."],
    ['tenant_id=x', 'One or more arguments are either duplicate or invalid'],
    ['project_id=a&project_id=b', 'One or more arguments are either duplicate or invalid'],
  ])('B1 with %s is a 400: %s', async (query, message) => {
    const res = await request(stack.gateway).get(`/v2.0/lbaas/quotas?${query}`).set(as('admin'));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ faultcode: 'Client', faultstring: message, debuginfo: null });
  });

  it('B1 with project_id and a marker: both apply, each matching record is met once, no link past either end', async () => {
    const ids = [project(), project(), project()].sort();
    for (const id of ids) await putQuota(id, { member: 1 });
    const [before, p, after] = ids as [string, string, string];
    const page = async (query: string, who: keyof TestStack['personas'] = 'admin') =>
      (await pagesFrom(`/v2.0/lbaas/quotas?${query}`, 'next', who))[0];
    // Forwards and backwards, from before, at and after the record: it shows up once, and no link leads further.
    expect(await page(`project_id=${p}&limit=1`)).toEqual({ ids: [p], rels: [] });
    expect(await page(`project_id=${p}&limit=1&marker=${before}`)).toEqual({ ids: [p], rels: [] });
    expect(await page(`project_id=${p}&limit=1&marker=${p}`)).toEqual({ ids: [], rels: [] });
    expect(await page(`project_id=${p}&limit=1&marker=${after}`)).toEqual({ ids: [], rels: [] });
    expect(await page(`project_id=${p}&limit=1&marker=${after}&page_reverse=True`)).toEqual({ ids: [p], rels: [] });
    expect(await page(`project_id=${p}&limit=1&marker=${p}&page_reverse=True`)).toEqual({ ids: [], rels: [] });
    expect(await page(`project_id=${p}&limit=1&marker=${before}&page_reverse=True`)).toEqual({ ids: [], rels: [] });
    expect(await page(`project_id=${p}&limit=1&sort=project_id:desc&marker=${after}`)).toEqual({ ids: [p], rels: [] });
    expect(await page(`project_id=${p}&limit=1&sort=project_id:desc&marker=${p}`)).toEqual({ ids: [], rels: [] });
    // A member's list is filtered to their own project the same way.
    await putQuota(stack.projectA, { member: 2 });
    expect(await page(`limit=1&marker=${stack.projectA}`, 'memberA')).toEqual({ ids: [], rels: [] });
    expect(await page('limit=1', 'memberA')).toEqual({ ids: [stack.projectA], rels: [] });
  });

  it('B1 unfiltered with limit=1: forwards and backwards every record once; the first page has no previous link, the last no next', async () => {
    for (let i = 0; i < 3; i++) await putQuota(project(), { pool: 1 });
    const forward = await pagesFrom('/v2.0/lbaas/quotas?limit=1', 'next');
    const all = forward.flatMap((pg) => pg.ids);
    expect(new Set(all).size).toBe(all.length);
    expect(forward[0]?.rels).toEqual(all.length > 1 ? ['next'] : []);
    expect(forward.at(-1)?.rels).toEqual(all.length > 1 ? ['previous'] : []);
    const backward = await pagesFrom(`/v2.0/lbaas/quotas?limit=1&marker=${all.at(-1)}&page_reverse=True`, 'previous');
    expect(backward.flatMap((pg) => pg.ids).reverse()).toEqual(all.slice(0, -1));
    expect(backward.at(-1)?.rels).toEqual(['next']);
    // Past the last record: an empty page and no links (as Octavia's pagination helper).
    expect((await pagesFrom(`/v2.0/lbaas/quotas?limit=1&marker=${all.at(-1)}`, 'next'))[0]).toEqual({ ids: [], rels: [] });
  });

  it.each([
    'sort=constructor',
    'sort=__proto__:asc',
    'sort=project_id:constructor',
    'sort_key=toString',
    'sort_key=project_id&sort_dir=valueOf',
    'sort_dir=hasOwnProperty',
    'fields=constructor',
    'fields=__proto__',
    'constructor=1',
    '__proto__=1',
    'project_id=',
    'marker=',
  ])('B1 with %s is a 400', async (query) => {
    const res = await request(stack.gateway).get(`/v2.0/lbaas/quotas?${query}`).set(as('admin'));
    expect([res.status, res.body.faultcode]).toEqual([400, 'Client']);
  });

  it('B1 rejects an unknown filter and an unknown field with 400', async () => {
    expect((await request(stack.gateway).get('/v2.0/lbaas/quotas?colour=red').set(as('admin'))).status).toBe(400);
    expect((await request(stack.gateway).get('/v2.0/lbaas/quotas?fields=colour').set(as('admin'))).status).toBe(400);
  });
});
