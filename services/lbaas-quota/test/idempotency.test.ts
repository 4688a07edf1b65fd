/**
 * Idempotency keys on consume/release: a retry gets the first outcome and counts once, on any replica, also when the
 * duplicates race; a key reused for another request is refused with 422.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signIdentity } from '@stratum/identity';
import { startTestStack, type TestStack, tokenOf } from '@stratum/testing';
import request from 'supertest';
import { buildApp, createDeps, type LbaasQuotaDeps, loadConfig } from '../src';

describe('group B: idempotent consume and release', () => {
  let stack: TestStack;
  /** A second lbaas-quota on the same database, with its own in-process cache: another replica. */
  let replica: { deps: LbaasQuotaDeps; server: Server; url: string };
  let secret = '';

  beforeAll(async () => {
    stack = await startTestStack();
    secret = stack.gatewayDeps.config.STRATUM_IDENTITY_SECRET;
    const deps = await createDeps(
      loadConfig({
        MONGODB_URI: process.env.STRATUM_TEST_MONGODB_URI,
        MONGODB_DATABASE: stack.db.databaseName,
        STRATUM_IDENTITY_SECRET: secret,
        LOG_LEVEL: 'silent',
        REDIS_URL: '',
      }),
    );
    const server = buildApp(deps).listen(0, '127.0.0.1');
    await new Promise((ok) => server.once('listening', ok));
    replica = { deps, server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  });
  afterAll(async () => {
    replica.server.closeAllConnections();
    await new Promise((ok) => replica.server.close(ok));
    await replica.deps.close();
    await stack.close();
  });

  const as = (who: keyof TestStack['personas']) => tokenOf(stack, who);
  const project = () => randomBytes(16).toString('hex');
  const usagePath = (p: string) => `/v2.0/lbaas/quotas/${p}/usage`;
  /** An enforcement call through the gateway, with the given headers. */
  const post = (p: string, body: unknown, headers: Record<string, string> = {}) =>
    request(stack.gateway)
      .post(usagePath(p))
      .set(as('service'))
      .set(headers)
      .send(body as object);
  const inUse = async (p: string) => (await request(stack.gateway).get(usagePath(p)).set(as('admin')).expect(200)).body.usage;

  /** An enforcement call straight to one replica (0: the stack's service, 1: the second one), signed as the gateway. */
  async function direct(
    i: 0 | 1,
    p: string,
    body: unknown,
    key: string,
  ): Promise<{ status: number; body: unknown; replayed: string | null }> {
    const url = usagePath(p);
    const text = JSON.stringify(body);
    const identity = { userId: 'octavia', projectId: 'service', domainId: 'default', roles: ['service'] };
    const base = i === 0 ? stack.serviceUrls.lbaasQuota : replica.url;
    const res = await fetch(base + url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'Idempotency-Key': key,
        ...signIdentity(identity, secret, { method: 'POST', url, body: text }),
      },
      body: text,
    });
    return { status: res.status, body: await res.json(), replayed: res.headers.get('idempotent-replayed') };
  }

  it('a retry with the same Idempotency-Key gets the first answer and counts once', async () => {
    const p = project();
    const key = randomUUID();
    const first = await post(p, { consume: { member: 3 } }, { 'Idempotency-Key': key });
    expect(first.status).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    await post(p, { consume: { member: 1 } }).expect(200); // another call in between changes in_use
    const retry = await post(p, { consume: { member: 3 } }, { 'Idempotency-Key': key });
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    // As a structured-field string (the IETF draft's form) it is the same key.
    expect((await post(p, { consume: { member: 3 } }, { 'Idempotency-Key': `"${key}"` })).body).toEqual(first.body);
    expect((await inUse(p)).member.in_use).toBe(4);

    const releaseKey = randomUUID();
    const released = await post(p, { release: { member: 2 } }, { 'Idempotency-Key': releaseKey }).expect(200);
    expect((await post(p, { release: { member: 2 } }, { 'Idempotency-Key': releaseKey }).expect(200)).body).toEqual(released.body);
    expect((await inUse(p)).member.in_use).toBe(2);
  });

  it("the client's X-Openstack-Request-Id is the key when there is no Idempotency-Key; the gateway's own ids are not", async () => {
    const p = project();
    const rid = `req-${randomUUID()}`;
    const first = await post(p, { consume: { pool: 1 } }, { 'X-Openstack-Request-Id': rid }).expect(200);
    expect(first.headers['x-openstack-request-id']).toBe(rid);
    const retry = await post(p, { consume: { pool: 1 } }, { 'X-Openstack-Request-Id': rid }).expect(200);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    // One global request id along a workflow: another call under the same id is a new call, not a 422.
    const other = await post(p, { consume: { pool: 2 } }, { 'X-Openstack-Request-Id': rid }).expect(200);
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    // Without an id of the client's, every call is a new one.
    await post(p, { consume: { pool: 1 } }).expect(200);
    await post(p, { consume: { pool: 1 } }).expect(200);
    // A request id that is not req-<uuid> is not kept by the gateway, so it is no key either.
    await post(p, { consume: { pool: 1 } }, { 'X-Openstack-Request-Id': 'req-not-a-uuid' }).expect(200);
    await post(p, { consume: { pool: 1 } }, { 'X-Openstack-Request-Id': 'req-not-a-uuid' }).expect(200);
    expect((await inUse(p)).pool.in_use).toBe(7);
  });

  it('a refusal is an outcome too: the retry gets the same 403 even after the limit was raised', async () => {
    const p = project();
    await request(stack.gateway)
      .put(`/v2.0/lbaas/quotas/${p}`)
      .set(as('admin'))
      .send({ quota: { listener: 1 } })
      .expect(202);
    const key = randomUUID();
    const refused = await post(p, { consume: { listener: 2 } }, { 'Idempotency-Key': key });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ faultcode: 'Client', faultstring: 'Quota has been met for resources: Listener', debuginfo: null });
    await request(stack.gateway)
      .put(`/v2.0/lbaas/quotas/${p}`)
      .set(as('admin'))
      .send({ quota: { listener: 5 } })
      .expect(202);
    const retry = await post(p, { consume: { listener: 2 } }, { 'Idempotency-Key': key });
    expect([retry.status, retry.body, retry.headers['idempotent-replayed']]).toEqual([403, refused.body, 'true']);
    await post(p, { consume: { listener: 2 } }, { 'Idempotency-Key': randomUUID() }).expect(200);
    expect((await inUse(p)).listener).toEqual({ limit: 5, in_use: 2 });
  });

  it('a key used again for another request is a 422 in Octavia shape, and changes nothing', async () => {
    const p = project();
    const key = randomUUID();
    await post(p, { consume: { l7rule: 2 } }, { 'Idempotency-Key': key }).expect(200);
    for (const other of [{ consume: { l7rule: 3 } }, { consume: { l7rule: 2, pool: 1 } }, { release: { l7rule: 2 } }]) {
      const res = await post(p, other, { 'Idempotency-Key': key });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        faultcode: 'Client',
        faultstring: `Idempotency key '${key}' was already used for a different request on the usage of project ${p}. Use a new key for a new request.`,
        debuginfo: null,
      });
    }
    await post(p, { consume: { l7rule: 2 } }, { 'Idempotency-Key': key }).expect(200);
    expect((await inUse(p)).l7rule.in_use).toBe(2);
    expect((await inUse(p)).pool.in_use).toBe(0);
    // The other spelling of a resource is the same request.
    const lbKey = randomUUID();
    const first = await post(p, { consume: { load_balancer: 1 } }, { 'Idempotency-Key': lbKey }).expect(200);
    expect((await post(p, { consume: { loadbalancer: 1 } }, { 'Idempotency-Key': lbKey }).expect(200)).body).toEqual(first.body);
    expect((await inUse(p)).load_balancer.in_use).toBe(1);
  });

  it.each([
    ['empty', ''],
    ['too long', 'k'.repeat(256)],
    ['not ASCII', 'clé'],
    ['a control character', 'a\tb'],
  ])('an Idempotency-Key that is %s is a 400', async (_what, key) => {
    const p = project();
    const res = await post(p, { consume: { member: 1 } }, { 'Idempotency-Key': key });
    expect(res.status).toBe(400);
    expect(res.body.faultstring).toBe('Invalid Idempotency-Key header. Value should be 1 to 255 printable ASCII characters');
    expect((await inUse(p)).member.in_use).toBe(0);
  });

  it('a consume answered by one replica and retried on another counts once and gets the same answer', async () => {
    const p = project();
    const key = randomUUID();
    const first = await direct(0, p, { consume: { health_monitor: 4 } }, key);
    expect(first.status).toBe(200);
    const retry = await direct(1, p, { consume: { health_monitor: 4 } }, key);
    expect(retry).toEqual({ ...first, replayed: 'true' });
    const back = await direct(0, p, { consume: { health_monitor: 4 } }, key);
    expect(back).toEqual({ ...first, replayed: 'true' });
    expect((await inUse(p)).health_monitor.in_use).toBe(4);
    expect(await direct(1, p, { release: { health_monitor: 4 } }, key)).toMatchObject({ status: 422 });
  });

  it('40 concurrent duplicates over two replicas count once, and all get the same answer', async () => {
    const p = project();
    const keys = [randomUUID(), randomUUID()];
    const calls = Array.from({ length: 40 }, (_, i) =>
      direct((i % 2) as 0 | 1, p, { consume: { l7policy: 1 } }, keys[i % 4 < 2 ? 0 : 1] as string),
    );
    const answers = await Promise.all(calls);
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect((await inUse(p)).l7policy.in_use).toBe(2);
    for (const key of keys) {
      const bodies = answers.filter((_, i) => keys[i % 4 < 2 ? 0 : 1] === key).map((a) => JSON.stringify(a.body));
      expect(new Set(bodies).size).toBe(1);
    }
    // The two keys' answers are the usage after the first (in_use 1) and after the second (in_use 2).
    const seen = new Set(answers.map((a) => (a.body as { usage: { l7policy: { in_use: number } } }).usage.l7policy.in_use));
    expect(seen).toEqual(new Set([1, 2]));
  });
});
