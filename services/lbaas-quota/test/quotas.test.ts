import { randomBytes } from 'node:crypto';
import { startTestStack, type TestStack, tokenOf } from '@stratum/testing';
import request from 'supertest';

/** Octavia's functional tests randomise the defaults each run and pin one to unlimited so -1 is always exercised. */
const rnd = () => String(Math.floor(Math.random() * 9000));
const DEFAULTS = { load_balancer: rnd(), listener: rnd(), member: rnd(), pool: '-1', health_monitor: rnd(), l7policy: rnd(), l7rule: '3' };

describe('group B: load balancer quotas through the gateway', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({
      lbaasEnv: Object.fromEntries(Object.entries(DEFAULTS).map(([k, v]) => [`DEFAULT_${k.toUpperCase()}_QUOTA`, v])),
    });
  });
  afterAll(() => stack.close());

  const as = (who: keyof TestStack['personas']) => tokenOf(stack, who);
  const project = () => randomBytes(16).toString('hex');
  /** Arranges a quota record as the admin (PUT must answer 202). */
  const putQuota = (projectId: string, quota: Record<string, number | null>) =>
    request(stack.gateway).put(`/v2.0/lbaas/quotas/${projectId}`).set(as('admin')).send({ quota }).expect(202);
  const defaults = Object.fromEntries(Object.entries(DEFAULTS).map(([k, v]) => [k, Number(v)]));

  it('B2 returns the configured defaults under `quota`, readable by a project reader', async () => {
    const res = await request(stack.gateway).get('/v2.0/lbaas/quotas/defaults').set(as('readerA'));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ quota: defaults });
  });

  it('B3 shows the defaults for a project without a record (never 404)', async () => {
    const res = await request(stack.gateway).get(`/v2.0/lbaas/quotas/${project()}`).set(as('admin'));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ quota: defaults });
  });

  it('PUT answers 202 with the resolved quota; B3 then shows it, nulls resolved to defaults', async () => {
    const p = project();
    const put = await request(stack.gateway)
      .put(`/v2.0/lbaas/quotas/${p}`)
      .set(as('admin'))
      .send({ quota: { loadbalancer: 10, health_monitor: 4, healthmonitor: 8, listener: null, l7rule: -1 } });
    expect(put.status).toBe(202);
    const expected = { ...defaults, load_balancer: 10, health_monitor: 4, l7rule: -1 };
    expect(put.body).toEqual({ quota: expected });
    const show = await request(stack.gateway).get(`/v2/lbaas/quotas/${p}`).set(as('admin'));
    expect(show.body).toEqual({ quota: expected });
    const narrowed = await request(stack.gateway).get(`/v2.0/lbaas/quotas/${p}?fields=load_balancer&fields=pool`).set(as('admin'));
    expect(narrowed.body).toEqual({ quota: { load_balancer: 10, pool: -1 } });
  });

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

  it('every Octavia prefix serves the same records, and a department admin is not a cloud admin here', async () => {
    const p = project();
    await putQuota(p, { l7policy: 9 });
    for (const prefix of ['/v2.0/lbaas', '/v2/lbaas', '/v2.0', '/v2', '/load-balancer/v2.0/lbaas']) {
      const res = await request(stack.gateway).get(`${prefix}/quotas/${p}`).set(as('admin'));
      expect([prefix, res.status, res.body.quota?.l7policy]).toEqual([prefix, 200, 9]);
    }
    expect((await request(stack.gateway).get(`/v2.0/lbaas/quotas/${p}`).set(as('deptAdmin'))).status).toBe(403);
    expect(
      (
        await request(stack.gateway)
          .put(`/v2.0/lbaas/quotas/${p}`)
          .set(as('deptAdmin'))
          .send({ quota: { pool: 1 } })
      ).status,
    ).toBe(403);
  });

  it('B4 resets to the defaults with 204 and no body; a project without a record is 404', async () => {
    const p = project();
    await putQuota(p, { listener: 1 });
    const del = await request(stack.gateway).delete(`/v2.0/lbaas/quotas/${p}`).set(as('admin'));
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect((await request(stack.gateway).get(`/v2.0/lbaas/quotas/${p}`).set(as('admin'))).body).toEqual({ quota: defaults });
    const missing = project();
    const res = await request(stack.gateway).delete(`/v2.0/lbaas/quotas/${missing}`).set(as('admin'));
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ faultcode: 'Client', faultstring: `Quotas ${missing} not found.`, debuginfo: null });
  });

  it('policy: a member reads their own quota, not another project; may not PUT or DELETE', async () => {
    expect((await request(stack.gateway).get(`/v2.0/lbaas/quotas/${stack.projectA}`).set(as('memberA'))).status).toBe(200);
    const other = await request(stack.gateway).get(`/v2.0/lbaas/quotas/${stack.projectB}`).set(as('memberA'));
    expect(other.status).toBe(403);
    expect(other.body.faultstring).toBe('Policy does not allow this request to be performed.');
    expect(
      (
        await request(stack.gateway)
          .put(`/v2.0/lbaas/quotas/${stack.projectA}`)
          .set(as('memberA'))
          .send({ quota: { pool: 1 } })
      ).status,
    ).toBe(403);
    expect((await request(stack.gateway).delete(`/v2.0/lbaas/quotas/${stack.projectA}`).set(as('memberA'))).status).toBe(403);
  });

  it.each([
    [{ quota: { pool: -2 } }, "Invalid input for field/attribute pool. Value: '-2'. Value should be greater or equal to -1"],
    [
      { quota: { pool: 2000000001 } },
      "Invalid input for field/attribute pool. Value: '2000000001'. Value should be lower or equal to 2000000000",
    ],
    [{ quota: { pool: '5' } }, /Value should be an integer/],
    [{ quota: { pool: 5.9 } }, /Value should be an integer/],
    [{ quota: { pool: true } }, /Value should be an integer/],
    [{ quota: { pool: [1] } }, /Value should be an integer/],
    [{ quota: { pool: {} } }, /Value should be an integer/],
    [{ quota: { project_id: 'x' } }, 'Unknown attribute for argument quotas.quota: project_id'],
    [{}, 'Missing argument: "quota"'],
    [{ quota: 5 }, /Value should be an object/],
    [{ quotas: { pool: 1 } }, /Unknown attribute for argument quotas: quotas/],
  ])('PUT %j is a 400 (Octavia gives 500 for several), nothing written', async (body, message) => {
    const p = project();
    const res = await request(stack.gateway).put(`/v2.0/lbaas/quotas/${p}`).set(as('admin')).send(body);
    expect(res.status).toBe(400);
    expect(res.body.faultcode).toBe('Client');
    if (typeof message === 'string') expect(res.body.faultstring).toBe(message);
    else expect(res.body.faultstring).toMatch(message);
    expect((await request(stack.gateway).get(`/v2.0/lbaas/quotas?project_id=${p}`).set(as('admin'))).body.quotas).toEqual([]);
  });

  it('PUT with malformed JSON is a 400 and with a non-JSON content type a 415', async () => {
    const bad = await request(stack.gateway)
      .put(`/v2.0/lbaas/quotas/${project()}`)
      .set(as('admin'))
      .set('Content-Type', 'application/json')
      .send('{"quota":');
    expect(bad.status).toBe(400);
    expect(bad.body.faultstring).toBe('Request is not in valid JSON format');
    const text = await request(stack.gateway)
      .put(`/v2.0/lbaas/quotas/${project()}`)
      .set(as('admin'))
      .set('Content-Type', 'text/plain')
      .send('pool=1');
    expect(text.status).toBe(415);
  });

  it('answers 405 with Allow to the methods Octavia does not route', async () => {
    const post = await request(stack.gateway).post('/v2.0/lbaas/quotas').set(as('admin')).send({ quota: {} });
    expect([post.status, post.headers.allow]).toEqual([405, 'GET']);
    const put = await request(stack.gateway).put(`/v2.0/lbaas/quotas/${project()}/default`).set(as('admin')).send({ quota: {} });
    expect([put.status, put.headers.allow, put.body.faultcode]).toEqual([405, 'GET', 'Client']);
  });

  it('a project id longer than 255 characters is a 400 on every route', async () => {
    const long = 'a'.repeat(256);
    for (const res of [
      await request(stack.gateway).get(`/v2.0/lbaas/quotas/${long}`).set(as('admin')),
      await request(stack.gateway)
        .put(`/v2.0/lbaas/quotas/${long}`)
        .set(as('admin'))
        .send({ quota: { pool: 1 } }),
      await request(stack.gateway)
        .post(`/v2.0/lbaas/quotas/${long}/usage`)
        .set(as('admin'))
        .send({ consume: { pool: 1 } }),
    ]) {
      expect([res.status, res.body.faultstring]).toEqual([
        400,
        'Invalid input for field/attribute project_id. Value should be 1 to 255 characters',
      ]);
    }
  });

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

  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'])(
    'a resource named %s is a 400 in PUT and in enforcement bodies, and writes nothing',
    async (name) => {
      const p = project();
      const send = (method: 'put' | 'post' | 'put_usage', body: string) =>
        (method === 'put_usage'
          ? request(stack.gateway).put(`/v2.0/lbaas/quotas/${p}/usage`)
          : request(stack.gateway)[method](`/v2.0/lbaas/quotas/${p}${method === 'post' ? '/usage' : ''}`)
        )
          .set(as('admin'))
          .set('Content-Type', 'application/json')
          .send(body);
      for (const [method, wrapper, argument] of [
        ['put', 'quota', 'quotas.quota'],
        ['post', 'consume', 'consume'],
        ['post', 'release', 'release'],
        ['put_usage', 'in_use', 'in_use'],
      ] as const) {
        const res = await send(method, `{"${wrapper}":{"${name}":1}}`);
        expect([method, wrapper, res.status, res.body]).toEqual([
          method,
          wrapper,
          400,
          { faultcode: 'Client', faultstring: `Unknown attribute for argument ${argument}: ${name}`, debuginfo: null },
        ]);
      }
      expect((await request(stack.gateway).get(`/v2.0/lbaas/quotas?project_id=${p}`).set(as('admin'))).body.quotas).toEqual([]);
    },
  );

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

  it.each(['fields=constructor', 'fields=toString', 'constructor=1'])('B3 with %s is a 400', async (query) => {
    const res = await request(stack.gateway).get(`/v2.0/lbaas/quotas/${project()}?${query}`).set(as('admin'));
    expect([res.status, res.body.faultcode]).toEqual([400, 'Client']);
  });

  /** Every route with a project id in its path, as [method, path after the prefix, body]. */
  const idRoutes = (id: string): ['get' | 'put' | 'delete' | 'post', string, object | undefined][] => [
    ['get', `/quotas/${id}`, undefined],
    ['put', `/quotas/${id}`, { quota: { pool: 1 } }],
    ['delete', `/quotas/${id}`, undefined],
    ['get', `/quotas/${id}/default`, undefined],
    ['get', `/quotas/${id}/usage`, undefined],
    ['post', `/quotas/${id}/usage`, { consume: { pool: 1 } }],
    ['put', `/quotas/${id}/usage`, { in_use: { pool: 1 } }],
  ];
  const call = (method: 'get' | 'put' | 'delete' | 'post', path: string, body?: object) => {
    const r = request(stack.gateway)[method](`/v2.0/lbaas${path}`);
    return body ? r.set(as('admin')).send(body) : r.set(as('admin'));
  };

  it.each([
    ['NUL', 'a%00b'],
    ['a control character', 'a%1Fb'],
    ['DEL', 'a%7Fb'],
    ['a C1 control', 'a%C2%85b'],
    ['a bidi override', 'a%E2%80%AEb'],
    ['a bidi isolate', 'a%E2%81%A6b'],
  ])('a project id with %s is a 400 on every route, and in the list filter and marker', async (_what, id) => {
    for (const [method, path, body] of idRoutes(id)) {
      const res = await call(method, path, body);
      expect([method, path, res.status, res.body.faultcode]).toEqual([method, path, 400, 'Client']);
    }
    for (const query of [`project_id=${id}`, `marker=${id}`]) {
      const res = await request(stack.gateway).get(`/v2.0/lbaas/quotas?${query}`).set(as('admin'));
      expect([query, res.status, res.body.faultcode]).toEqual([query, 400, 'Client']);
    }
  });

  it('malformed percent-encoding in a project id is a 400 on every route, never a 500', async () => {
    for (const id of ['%ZZ', '%', 'a%E2%80', '%C0%AF']) {
      for (const [method, path, body] of idRoutes(id)) {
        const res = await call(method, path, body);
        expect([method, path, res.status, res.body.faultcode]).toEqual([method, path, 400, 'Client']);
      }
    }
  });

  it('B1 rejects an unknown filter and an unknown field with 400', async () => {
    expect((await request(stack.gateway).get('/v2.0/lbaas/quotas?colour=red').set(as('admin'))).status).toBe(400);
    expect((await request(stack.gateway).get('/v2.0/lbaas/quotas?fields=colour').set(as('admin'))).status).toBe(400);
  });
});
