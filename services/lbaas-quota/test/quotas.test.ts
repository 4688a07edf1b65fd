/**
 * Group B through the gateway (docs/api/lbaas-quota.md): defaults (B2), one project (B3), set (PUT), reset (B4), policy,
 * the Octavia prefixes, and refusals of malformed input. The list (B1) is quotas-list.test.ts.
 */
import type { TestStack } from '@stratum/testing';
import request from 'supertest';
import { defaults, project, quotaSteps, startQuotaStack } from './quotas-harness';

describe('group B: load balancer quotas through the gateway', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startQuotaStack();
  });
  afterAll(() => stack.close());
  const { as, putQuota } = quotaSteps(() => stack);

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
});
