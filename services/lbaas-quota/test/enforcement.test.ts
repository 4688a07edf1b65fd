import { randomBytes } from 'node:crypto';
import { startTestStack, type TestStack, tokenOf } from '@stratum/testing';
import request from 'supertest';

const DEFAULTS = { load_balancer: 5, listener: -1, member: -1, pool: 4, health_monitor: -1, l7policy: 2, l7rule: 3 };

describe('group B: enforcement (consume, release, reconcile) through the gateway', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({
      lbaasEnv: Object.fromEntries(Object.entries(DEFAULTS).map(([k, v]) => [`DEFAULT_${k.toUpperCase()}_QUOTA`, String(v)])),
    });
  });
  afterAll(() => stack.close());

  const as = (who: keyof TestStack['personas']) => tokenOf(stack, who);
  const project = () => randomBytes(16).toString('hex');
  const usagePath = (p: string) => `/v2.0/lbaas/quotas/${p}/usage`;
  const consume = (p: string, counts: Record<string, number>, who: keyof TestStack['personas'] = 'service') =>
    request(stack.gateway).post(usagePath(p)).set(as(who)).send({ consume: counts });
  const release = (p: string, counts: Record<string, number>) =>
    request(stack.gateway).post(usagePath(p)).set(as('service')).send({ release: counts });
  const inUse = async (p: string) => (await request(stack.gateway).get(usagePath(p)).set(as('admin')).expect(200)).body.usage;
  const putQuota = (p: string, quota: Record<string, number | null>) =>
    request(stack.gateway).put(`/v2.0/lbaas/quotas/${p}`).set(as('admin')).send({ quota }).expect(202);

  it('200 concurrent consumes of 1 against a limit of 50: exactly 50 succeed and in_use is 50', async () => {
    const p = project();
    await putQuota(p, { load_balancer: 50 });
    const results = await Promise.all(Array.from({ length: 200 }, () => consume(p, { load_balancer: 1 })));
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 403);
    expect(ok.length).toBe(50);
    expect(refused.length).toBe(150);
    expect(refused[0]?.body).toEqual({
      faultcode: 'Client',
      faultstring: 'Quota has been met for resources: Load Balancer',
      debuginfo: null,
    });
    expect((await inUse(p)).load_balancer).toEqual({ limit: 50, in_use: 50 });
  });

  it('concurrent consumes and releases on one project keep in_use exact', async () => {
    const p = project();
    await putQuota(p, { member: 1000 });
    await consume(p, { member: 100 }).expect(200);
    await Promise.all([
      ...Array.from({ length: 40 }, () => consume(p, { member: 2 }).expect(200)),
      ...Array.from({ length: 40 }, () => release(p, { member: 1 }).expect(200)),
    ]);
    expect((await inUse(p)).member).toEqual({ limit: 1000, in_use: 140 });
  });

  it('a consume naming several resources is all or nothing, and the 403 names every resource over its limit', async () => {
    const p = project();
    await consume(p, { pool: 3, l7policy: 1 }).expect(200);
    const res = await consume(p, { pool: 2, l7policy: 2, listener: 7, load_balancer: 1 });
    expect(res.status).toBe(403);
    expect(res.body.faultstring).toBe('Quota has been met for resources: Pool, L7 Policy');
    const usage = await inUse(p);
    expect([usage.pool.in_use, usage.l7policy.in_use, usage.listener.in_use, usage.load_balancer.in_use]).toEqual([3, 1, 0, 0]);
  });

  it.each([
    ['load_balancer', 'Load Balancer'],
    ['listener', 'Listener'],
    ['pool', 'Pool'],
    ['member', 'Member'],
    ['health_monitor', 'Health Monitor'],
    ['l7policy', 'L7 Policy'],
    ['l7rule', 'L7 Rule'],
  ])('over the limit of %s the 403 says "%s" (Octavia display names)', async (resource, name) => {
    const p = project();
    await putQuota(p, { [resource]: 0 });
    const res = await consume(p, { [resource]: 1 });
    expect(res.status).toBe(403);
    expect(res.body.faultstring).toBe(`Quota has been met for resources: ${name}`);
  });

  it('null limits take the configured default; -1 is unlimited; new spellings are accepted', async () => {
    const p = project();
    await consume(p, { l7rule: 3 }).expect(200); // default 3, no record yet
    expect((await consume(p, { l7rule: 1 })).status).toBe(403);
    await consume(p, { healthmonitor: 1_000_000, loadbalancer: 5 }).expect(200); // health_monitor default -1
    const usage = await inUse(p);
    expect(usage.health_monitor).toEqual({ limit: -1, in_use: 1_000_000 });
    expect(usage.load_balancer).toEqual({ limit: 5, in_use: 5 });
  });

  it('a limit lowered below in_use is accepted; later consumes are refused until releases bring it under', async () => {
    const p = project();
    await putQuota(p, { listener: 10 });
    await consume(p, { listener: 8 }).expect(200);
    await putQuota(p, { listener: 5 });
    expect((await consume(p, { listener: 1 })).status).toBe(403);
    await release(p, { listener: 4 }).expect(200);
    await consume(p, { listener: 1 }).expect(200);
    expect((await inUse(p)).listener).toEqual({ limit: 5, in_use: 5 });
  });

  it('release never takes in_use below 0, and releasing on a project without a record creates none', async () => {
    const p = project();
    await consume(p, { pool: 1 }).expect(200);
    const res = await release(p, { pool: 5 }).expect(200);
    expect(res.body.usage.pool).toEqual({ limit: 4, in_use: 0 });
    const fresh = project();
    await release(fresh, { pool: 1 }).expect(200);
    expect((await request(stack.gateway).get(`/v2.0/lbaas/quotas?project_id=${fresh}`).set(as('admin'))).body.quotas).toEqual([]);
  });

  it('reconciliation sets absolute counts (even above the limit); the list shows them as in_use_*', async () => {
    const p = project();
    const res = await request(stack.gateway)
      .put(usagePath(p))
      .set(as('service'))
      .send({ in_use: { pool: 9, l7_rule: 1 } });
    expect(res.status).toBe(400);
    const ok = await request(stack.gateway)
      .put(usagePath(p))
      .set(as('service'))
      .send({ in_use: { pool: 9, l7rule: 1 } });
    expect(ok.status).toBe(200);
    expect(ok.body.usage.pool).toEqual({ limit: 4, in_use: 9 });
    const list = await request(stack.gateway).get(`/v2.0/lbaas/quotas?project_id=${p}`).set(as('admin'));
    expect(list.body.quotas[0]).toMatchObject({ in_use_pool: 9, in_use_l7rule: 1, in_use_member: 0 });
    expect((await consume(p, { pool: 1 })).status).toBe(403);
  });

  it('DELETE is 409 while in_use is above a finite default, and force=true resets anyway', async () => {
    const p = project();
    await putQuota(p, { pool: 10 });
    await consume(p, { pool: 6 }).expect(200);
    const refused = await request(stack.gateway).delete(`/v2.0/lbaas/quotas/${p}`).set(as('admin'));
    expect(refused.status).toBe(409);
    expect(refused.body.faultstring).toMatch(/Pool \(6 in use, default 4\)/);
    expect((await request(stack.gateway).get(`/v2.0/lbaas/quotas/${p}`).set(as('admin'))).body.quota.pool).toBe(10);
    await request(stack.gateway).delete(`/v2.0/lbaas/quotas/${p}?force=true`).set(as('admin')).expect(204);
    expect(await inUse(p)).toMatchObject({ pool: { limit: 4, in_use: 6 } });
  });

  it('policy: members and department admins may not consume or reconcile; a member reads their own usage only', async () => {
    const p = stack.projectA;
    expect((await consume(p, { pool: 1 }, 'memberA')).status).toBe(403);
    expect((await consume(p, { pool: 1 }, 'deptAdmin')).status).toBe(403);
    expect(
      (
        await request(stack.gateway)
          .put(usagePath(p))
          .set(as('memberA'))
          .send({ in_use: { pool: 0 } })
      ).status,
    ).toBe(403);
    expect((await request(stack.gateway).get(usagePath(p)).set(as('readerA'))).status).toBe(200);
    const other = await request(stack.gateway).get(usagePath(stack.projectB)).set(as('memberA'));
    expect(other.status).toBe(403);
    expect(other.body.faultstring).toBe('Policy does not allow this request to be performed.');
    expect((await consume(p, { pool: 1 }, 'admin')).status).toBe(200);
  });

  it.each([
    [{}, /exactly one action/],
    [{ consume: { pool: 1 }, release: { pool: 1 } }, /exactly one action/],
    [{ reserve: { pool: 1 } }, /exactly one action/],
    [{ consume: { pool: -1 } }, /Value should be an integer from 0 to 2000000000/],
    [{ consume: { pool: 1.5 } }, /Value should be an integer/],
    [{ consume: { pool: '1' } }, /Value should be an integer/],
    [{ consume: { pool: 2000000001 } }, /Value should be an integer/],
    [{ consume: { vip: 1 } }, 'Unknown attribute for argument consume: vip'],
    [{ consume: {} }, /Name at least one resource/],
    [{ consume: [1] }, /Value should be an object/],
    [{ release: null }, /Value should be an object/],
  ])('enforcement body %j is a 400, nothing changed', async (body, message) => {
    const p = project();
    const res = await request(stack.gateway).post(usagePath(p)).set(as('service')).send(body);
    expect(res.status).toBe(400);
    expect(res.body.faultcode).toBe('Client');
    if (typeof message === 'string') expect(res.body.faultstring).toBe(message);
    else expect(res.body.faultstring).toMatch(message);
    expect((await request(stack.gateway).get(`/v2.0/lbaas/quotas?project_id=${p}`).set(as('admin'))).body.quotas).toEqual([]);
  });
});
