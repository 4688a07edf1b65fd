/**
 * Store down is a 503 on every department quota route: with the stack's FerretDB stopped, each route (views, edits,
 * the audit log, project allocations, every registry endpoint and the sum check) answers 503 with Retry-After in
 * Keystone's shape, never another 5xx, and the same requests succeed again once the store is back.
 */
import { randomBytes } from 'node:crypto';
import { loadRegistryFile } from '@stratum/deploy';
import { type OwnStore, startOwnStore, startTestStack, type TestStack, tokenOf, waitFor } from '@stratum/testing';
import request from 'supertest';
import { stringify } from 'yaml';

jest.setTimeout(240_000);

const REG = '/v3/domain_quota_registry';
const fresh = () => `x${randomBytes(6).toString('hex')}`;

describe('department quotas with the store down', () => {
  let stack: TestStack;
  let store: OwnStore;

  beforeAll(async () => {
    store = await startOwnStore('dq-store-down');
    stack = await startTestStack({ mongodbUri: store.uri });
    await loadRegistryFile(
      stack.db,
      stringify({
        regions: [{ name: 'R1', volume_types: ['ssd'], products: [] }],
        departments: [
          { id: 'default', name: 'Cloud', quotas: { R1: { cores: 1000 } } },
          { id: 'dept', name: 'Dept', quotas: { R1: { cores: 10 } } },
        ],
        projects: [{ id: 'proj', name: 'proj', domain_id: 'dept', quotas: { R1: { cores: 1 } } }],
      }),
    );
  });
  afterAll(async () => {
    await stack?.close();
    await store?.stop();
  });

  const admin = () => tokenOf(stack, 'admin');
  const g = () => request(stack.gateway);
  let cores = 10;
  /** Every route with a request that succeeds while the store is up (fresh ids where a cache could answer). */
  const routes: [string, () => request.Test, number][] = [
    ['GET /v3/domain_quotas/{d}', () => g().get('/v3/domain_quotas/dept').set(admin()), 200],
    [
      'PATCH /v3/domain_quotas/{d}',
      () =>
        g()
          .patch('/v3/domain_quotas/dept')
          .set(admin())
          .send({ domain: { region: 'R1', cores: ++cores } }),
      200,
    ],
    ['GET /v3/domain_quotas/{d}/audit', () => g().get('/v3/domain_quotas/dept/audit?limit=5').set(admin()), 200],
    ['GET /v3/domain_quotas/{d}/projects/{p}', () => g().get('/v3/domain_quotas/dept/projects/proj').set(admin()), 200],
    [
      'PATCH /v3/domain_quotas/{d}/projects/{p}',
      () =>
        g()
          .patch('/v3/domain_quotas/dept/projects/proj')
          .set(admin())
          .send({ project: { region: 'R1', cores: 1 + (cores % 5) } }),
      200,
    ],
    ['GET /v3/domain_usage', () => g().get('/v3/domain_usage').set(admin()), 200],
    ['GET registry regions', () => g().get(`${REG}/regions`).set(admin()), 200],
    ['GET registry region', () => g().get(`${REG}/regions/R1`).set(admin()), 200],
    [
      'PUT registry region',
      () =>
        g()
          .put(`${REG}/regions/${fresh()}`)
          .set(admin())
          .send({ region: { volume_types: [], products: [] } }),
      201,
    ],
    ['DELETE registry region', () => g().delete(`${REG}/regions/${fresh()}`).set(admin()), 404],
    ['GET registry domains', () => g().get(`${REG}/domains`).set(admin()), 200],
    ['GET registry domain', () => g().get(`${REG}/domains/dept`).set(admin()), 200],
    [
      'PUT registry domain',
      () =>
        g()
          .put(`${REG}/domains/${fresh()}`)
          .set(admin())
          .send({ domain: { name: 'n' } }),
      201,
    ],
    ['DELETE registry domain', () => g().delete(`${REG}/domains/${fresh()}`).set(admin()), 404],
    ['GET registry projects', () => g().get(`${REG}/projects?domain_id=dept`).set(admin()), 200],
    ['GET registry project', () => g().get(`${REG}/projects/proj`).set(admin()), 200],
    [
      'PUT registry project',
      () =>
        g()
          .put(`${REG}/projects/${fresh()}`)
          .set(admin())
          .send({ project: { domain_id: 'dept', name: 'n' } }),
      201,
    ],
    ['DELETE registry project', () => g().delete(`${REG}/projects/${fresh()}`).set(admin()), 404],
    ['GET registry usage', () => g().get(`${REG}/usage`).set(admin()), 200],
    [
      'PUT registry usage',
      () =>
        g()
          .put(`${REG}/usage/R1`)
          .set(admin())
          .send({ usage: { values: { cores: 3 } } }),
      200,
    ],
    ['GET registry check', () => g().get(`${REG}/check`).set(admin()), 200],
    ['POST registry check', () => g().post(`${REG}/check`).set(admin()), 200],
  ];

  it('answers every route while up; 503 with Retry-After in Keystone’s shape while down; the same again once back', async () => {
    for (const [name, send, ok] of routes) expect([name, (await send()).status]).toEqual([name, ok]);
    /** Every status other than the route's success and 503 seen from here on. */
    const unexpected: string[] = [];
    const sendChecked = async (name: string, send: () => request.Test, ok: number) => {
      const res = await send();
      if (res.status !== ok && res.status !== 503) unexpected.push(`${name}: ${res.status} ${JSON.stringify(res.body)}`);
      return res;
    };

    await store.stop();
    for (const [name, send, ok] of routes) {
      // The driver notices within its server selection timeout, and caches answer reads for their lifetime.
      let res: request.Response | undefined;
      await waitFor(`${name} answers 503`, async () => {
        res = await sendChecked(name, send, ok);
        return res.status === 503;
      });
      const r = res as request.Response;
      expect([name, Number(r.headers['retry-after']) >= 1]).toEqual([name, true]);
      expect([name, r.body.error]).toEqual([
        name,
        expect.objectContaining({ code: 503, title: 'Service Unavailable', message: expect.any(String) }),
      ]);
    }
    expect(unexpected).toEqual([]);

    await store.start();
    for (const [name, send, ok] of routes) {
      await waitFor(`${name} answers ${ok} again`, async () => (await sendChecked(name, send, ok)).status === ok, 60_000);
    }
    expect(unexpected).toEqual([]);
    // Whatever the outage cut short, the sums are intact once the reconciler has run.
    await waitFor('the sums check clean', async () => (await g().get(`${REG}/check`).set(admin())).body.check?.ok === true, 60_000);
  });
});
