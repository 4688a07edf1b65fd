/**
 * Store down is a 503 everywhere: with the stack's FerretDB stopped, a read and a write route of each service
 * (the ingest POST among them) answer 503 with Retry-After in the group's shape, and the same requests succeed again
 * once the store is back, without restarting anything.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadRegistryFile } from '@stratum/deploy';
import { ROOT } from '@stratum/store-runtime';
import { ALL_TENANTS, type OwnStore, startOwnStore, startTestStack, type TestStack, tokenOf, uuid, waitFor } from '@stratum/testing';
import request from 'supertest';

jest.setTimeout(180_000);

type Group = 'event' | 'lbaas' | 'domain';
const FINANCE = '47eaa0992cb6916d86dc283cf0480ff9';

/** Whether `body` is a 503 in `group`'s shape. */
function shapeOf(group: Group, body: Record<string, unknown>): boolean {
  if (group === 'event') {
    const e = body.error_message as Record<string, unknown> | undefined;
    return e?.faultcode === 'Server' && typeof e.faultstring === 'string';
  }
  if (group === 'lbaas') return body.faultcode === 'Server' && typeof body.faultstring === 'string';
  const e = body.error as Record<string, unknown> | undefined;
  return e?.code === 503 && e.title === 'Service Unavailable' && typeof e.message === 'string';
}

describe('store down is a 503 on every route, and recovers by itself', () => {
  let stack: TestStack;
  let store: OwnStore;

  beforeAll(async () => {
    store = await startOwnStore('store-down');
    stack = await startTestStack({ mongodbUri: store.uri });
    await loadRegistryFile(stack.db, readFileSync(join(ROOT, 'deploy/samples/registry.yaml'), 'utf8'));
  });
  afterAll(async () => {
    await stack?.close();
    await store?.stop();
  });

  /** A read and a write of each service; each call makes a fresh request (new ids, so no cache can answer it). */
  const routes: [Group, string, () => request.Test, number][] = [
    ['event', 'GET /v2/events', () => request(stack.gateway).get(`/v2/events?${ALL_TENANTS}&limit=5`).set(tokenOf(stack, 'admin')), 200],
    [
      'event',
      'POST /v2/ingest/events',
      () =>
        request(stack.gateway)
          .post('/v2/ingest/events')
          .set(tokenOf(stack, 'admin'))
          .send([
            {
              message_id: uuid(),
              event_type: 'compute.instance.create.end',
              generated: '2026-11-21T12:20:00.040721',
              traits: [['project_id', 1, stack.projectA]],
              raw: {},
            },
          ]),
      200,
    ],
    [
      'lbaas',
      'GET /v2.0/lbaas/quotas/{p}',
      () => request(stack.gateway).get(`/v2.0/lbaas/quotas/${uuid()}`).set(tokenOf(stack, 'admin')),
      200,
    ],
    [
      'lbaas',
      'PUT /v2.0/lbaas/quotas/{p}',
      () =>
        request(stack.gateway)
          .put(`/v2.0/lbaas/quotas/${uuid()}`)
          .set(tokenOf(stack, 'admin'))
          .send({ quota: { pool: 3 } }),
      202,
    ],
    [
      'lbaas',
      'POST /v2.0/lbaas/quotas/{p}/usage',
      () =>
        request(stack.gateway)
          .post(`/v2.0/lbaas/quotas/${uuid()}/usage`)
          .set(tokenOf(stack, 'service'))
          .send({ consume: { pool: 1 } }),
      200,
    ],
    [
      'domain',
      'GET /v3/domain_quotas/{d}',
      () => request(stack.gateway).get(`/v3/domain_quotas/${FINANCE}`).set(tokenOf(stack, 'admin')),
      200,
    ],
    [
      'domain',
      'PATCH /v3/domain_quotas/{d}',
      () =>
        request(stack.gateway)
          .patch(`/v3/domain_quotas/${FINANCE}`)
          .set(tokenOf(stack, 'admin'))
          .send({ domain: { region: 'RegionOne', cores: 600 + Math.floor(Math.random() * 10) } }),
      200,
    ],
    ['domain', 'GET /v3/domain_usage', () => request(stack.gateway).get('/v3/domain_usage').set(tokenOf(stack, 'admin')), 200],
    ['event', 'GET /v2/event_types', () => request(stack.gateway).get('/v2/event_types').set(tokenOf(stack, 'admin')), 200],
    ['event', 'GET /v2/events/{id}', () => request(stack.gateway).get(`/v2/events/${uuid()}`).set(tokenOf(stack, 'admin')), 404],
    ['lbaas', 'GET /v2.0/lbaas/quotas', () => request(stack.gateway).get('/v2.0/lbaas/quotas').set(tokenOf(stack, 'admin')), 200],
    [
      'lbaas',
      'DELETE /v2.0/lbaas/quotas/{p} (none stored: 404)',
      () => request(stack.gateway).delete(`/v2.0/lbaas/quotas/${uuid()}`).set(tokenOf(stack, 'admin')),
      404,
    ],
    [
      'domain',
      'GET /v3/domain_quota_registry/domains',
      () => request(stack.gateway).get('/v3/domain_quota_registry/domains').set(tokenOf(stack, 'admin')),
      200,
    ],
    [
      'domain',
      'GET /v3/domain_quotas/{d}/audit',
      () => request(stack.gateway).get(`/v3/domain_quotas/${FINANCE}/audit`).set(tokenOf(stack, 'admin')),
      200,
    ],
  ];

  it('answers every route while up; 503 with Retry-After in the group’s shape while down; the same again once back', async () => {
    for (const [, name, send, ok] of routes) expect([name, (await send()).status]).toEqual([name, ok]);
    /** Every status other than the route's success and 503 seen from here on (a 500 is what this test is for). */
    const unexpected: string[] = [];
    const sendChecked = async (name: string, send: () => request.Test, ok: number) => {
      const res = await send();
      if (res.status !== ok && res.status !== 503) unexpected.push(`${name}: ${res.status} ${JSON.stringify(res.body)}`);
      return res;
    };

    await store.stop();
    for (const [group, name, send, ok] of routes) {
      // The driver notices within its server selection timeout (2 s); until then a request may still succeed.
      let res: request.Response | undefined;
      await waitFor(`${name} answers 503`, async () => {
        res = await sendChecked(name, send, ok);
        return res.status === 503;
      });
      const r = res as request.Response;
      expect([name, Number(r.headers['retry-after'])]).toEqual([name, expect.any(Number)]);
      expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect([name, shapeOf(group, r.body)]).toEqual([name, true]);
    }
    // Nothing but 503 while the store stays down.
    for (const [, name, send] of routes) expect([name, (await send()).status]).toEqual([name, 503]);

    await store.start();
    for (const [, name, send, ok] of routes) {
      await waitFor(`${name} answers ${ok} again`, async () => (await sendChecked(name, send, ok)).status === ok, 60_000);
    }
    expect(unexpected).toEqual([]);
  });
});
