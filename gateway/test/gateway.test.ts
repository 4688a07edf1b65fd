import { startTestStack, type TestStack } from '@stratum/testing';
import request from 'supertest';

describe('gateway: identity, routing and documents', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(() => stack.close());

  const KEYSTONE_401 = { error: { code: 401, title: 'Unauthorized', message: 'The request you have made requires authentication.' } };

  it.each([
    ['/v2/events', undefined],
    ['/v2.0/lbaas/quotas', 'not-a-real-token-at-all-0000000000'],
    ['/v3/domain_usage', ''],
  ])('answers 401 in Keystone shape for %s without a valid token', async (path, token) => {
    const req = request(stack.gateway).get(path);
    if (token !== undefined) req.set('X-Auth-Token', token);
    const res = await req;
    expect(res.status).toBe(401);
    expect(res.body).toEqual(KEYSTONE_401);
    expect(res.headers['www-authenticate']).toMatch(/^Keystone uri="/);
  });

  it('ignores client-sent identity headers: a member claiming admin is still refused a quota change', async () => {
    const res = await request(stack.gateway)
      .put(`/v2.0/lbaas/quotas/${stack.projectA}`)
      .set('X-Auth-Token', stack.personas.memberA.token)
      .set('X-Roles', 'admin')
      .set('X-Identity-Status', 'Confirmed')
      .set('X-Project-Id', stack.projectA)
      .send({ quota: { pool: 5 } });
    expect(res.status).toBe(403);
    expect(res.body.faultstring).toBe('Policy does not allow this request to be performed.');
  });

  it('echoes a valid X-Openstack-Request-Id and makes one otherwise', async () => {
    const id = 'req-0f8b7f8e-6a2d-4d8c-9a55-0c2b4f4c9e11';
    const given = await request(stack.gateway)
      .get('/v2.0/lbaas/quotas/defaults')
      .set('X-Auth-Token', stack.personas.admin.token)
      .set('X-Openstack-Request-Id', id);
    expect(given.headers['x-openstack-request-id']).toBe(id);
    const made = await request(stack.gateway)
      .get('/v2.0/lbaas/quotas/defaults')
      .set('X-Auth-Token', stack.personas.admin.token)
      .set('X-Openstack-Request-Id', 'bogus');
    expect(made.headers['x-openstack-request-id']).toMatch(/^req-[0-9a-f-]{36}$/);
  });

  it('serves Octavia-shaped versions at / with a v2 link, and each group document under its prefix', async () => {
    const root = await request(stack.gateway).get('/');
    expect(root.status).toBe(200);
    expect(root.body.versions.some((v: { links: { href: string }[] }) => v.links[0]?.href.endsWith('/v2'))).toBe(true);
    const event = await request(stack.gateway).get('/event/');
    expect(event.body.versions.values[0].links[0].href).toMatch(/\/event\/v2$/);
    const lb = await request(stack.gateway).get('/load-balancer');
    expect(lb.body.versions[0].links[0].href).toMatch(/\/load-balancer\/v2$/);
    const dq = await request(stack.gateway).get('/domain-quota/');
    expect(dq.body.versions.values[0].id).toBe('v3.0');
    expect((await request(stack.gateway).get('/healthcheck')).status).toBe(200);
  });

  it('routes the group prefixes to the same services as the root paths', async () => {
    const res = await request(stack.gateway).get('/load-balancer/v2/lbaas/quotas/defaults').set('X-Auth-Token', stack.personas.admin.token);
    expect(res.status).toBe(200);
    expect(res.body.quota).toHaveProperty('load_balancer');
  });

  it('answers Keystone look-ups on its own endpoints 403 to a valid token (so the official CLI uses ids as given), 401 without one', async () => {
    for (const path of ['/load-balancer/projects/abc', '/projects', '/event/users/u1', '/domains?name=x']) {
      const res = await request(stack.gateway).get(path).set('X-Auth-Token', stack.personas.memberA.token);
      expect([path, res.status, res.body.error?.title]).toEqual([path, 403, 'Forbidden']);
    }
    expect((await request(stack.gateway).get('/load-balancer/projects/abc')).status).toBe(401);
  });

  it('answers 404 for a path no group serves', async () => {
    const res = await request(stack.gateway).get('/v9/nothing').set('X-Auth-Token', stack.personas.admin.token);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe(404);
  });
});

describe('gateway: an upstream that is down', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ upstreamOverride: { LBAAS_QUOTA_URL: 'http://127.0.0.1:9' } });
  });
  afterAll(() => stack.close());

  it('gives 503 in the group error shape, without hanging', async () => {
    const res = await request(stack.gateway).get('/v2.0/lbaas/quotas/defaults').set('X-Auth-Token', stack.personas.admin.token);
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      faultcode: 'Server',
      faultstring: expect.stringContaining('load balancer quota service is unavailable'),
      debuginfo: null,
    });
  });
});
