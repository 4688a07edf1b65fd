/**
 * The store failing in the middle of a department or project edit: the PATCH answers 503 with Retry-After in
 * Keystone's shape, the sum check sees no corruption while the edit is pending (its reservation is accounted for),
 * and the reconciler settles it by itself (back when the child was not written, forward when it was), so the headroom
 * is what the tree holds. The failure is injected between the steps (the edit hooks), deterministically, as the
 * driver raises a dropped connection.
 */
import type { DomainQuotaDeps } from '@stratum/domain-quota';
import { waitFor } from '@stratum/testing';
import { MongoNetworkError } from 'mongodb';
import type request from 'supertest';
import { type EditHarness, startWithEditHooks } from './edit-harness';

describe('a store failure between the steps of an edit', () => {
  let h: EditHarness;
  let deps: DomainQuotaDeps;
  /** The step after which the next edit fails (0: none). */
  let failAfter: 0 | 1 | 2 = 0;

  beforeAll(async () => {
    h = await startWithEditHooks(
      {
        afterStep: async (step) => {
          if (step !== failAfter) return;
          failAfter = 0;
          throw new MongoNetworkError('connection to the store lost mid-edit');
        },
      },
      {
        regions: [{ name: 'R1', volume_types: [], products: [] }],
        departments: [
          { id: 'default', name: 'Cloud', quotas: { R1: { cores: 100, instances: 100 } } },
          { id: 'dept', name: 'Dept', quotas: { R1: { cores: 10, instances: 10 } } },
        ],
        projects: [{ id: 'proj', name: 'proj', domain_id: 'dept', quotas: { R1: { cores: 2 } } }],
      },
    );
    deps = h.deps;
  });
  afterAll(() => h.close());

  const patch = (path: string, body: unknown) => h.patch(path, body);
  const node = (owner: string) => h.node(owner);
  const project = async () => (await deps.tree.readProjectQuota('R1', 'proj'))?.state.quotas.cores;
  const settled = async () =>
    Object.keys((await node('default')).pending ?? {}).length + Object.keys((await node('dept')).pending ?? {}).length === 0;

  /** The 503 of a store failure, in Keystone's shape. */
  function expectStoreDown(res: request.Response) {
    expect(res.status).toBe(503);
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(res.body.error).toMatchObject({ code: 503, title: 'Service Unavailable' });
  }

  it('after the reservation: 503, then the reservation is returned and the department keeps its value', async () => {
    failAfter = 1;
    expectStoreDown(await patch('/v3/domain_quotas/dept', { domain: { region: 'R1', cores: 50 } }));
    // Left pending: the cloud holds the reservation, and the check accounts for it (no corruption to repair).
    expect((await node('default')).allocated.cores).toBe(50_000);
    expect((await deps.integrity.check()).discrepancies).toEqual([]);
    await waitFor('the reconciler settles the edit', settled, 20_000);
    expect((await node('dept')).quotas.cores).toBe(10_000);
    expect((await node('default')).allocated.cores).toBe(10_000);
  });

  it('after the child was written: 503, then the edit rolls forward (the decrease is released)', async () => {
    failAfter = 2;
    expectStoreDown(await patch('/v3/domain_quotas/dept', { domain: { region: 'R1', cores: 4, instances: 30 } }));
    expect((await node('dept')).quotas).toMatchObject({ cores: 4_000, instances: 30_000 });
    expect((await node('default')).allocated).toMatchObject({ cores: 10_000, instances: 30_000 });
    expect((await deps.integrity.check()).discrepancies).toEqual([]);
    await waitFor('the reconciler settles the edit', settled, 20_000);
    expect((await node('default')).allocated).toMatchObject({ cores: 4_000, instances: 30_000 });
  });

  it('a project edit under its department too', async () => {
    failAfter = 1;
    expectStoreDown(await patch('/v3/domain_quotas/dept/projects/proj', { project: { region: 'R1', cores: 3 } }));
    expect((await node('dept')).allocated.cores).toBe(3_000);
    await waitFor('the reconciler settles the edit', settled, 20_000);
    expect(await project()).toBe(2_000);
    expect((await node('dept')).allocated.cores).toBe(2_000);
    const report = await deps.integrity.check();
    expect(report.discrepancies).toEqual([]);
    // And the next edits go through.
    expect((await patch('/v3/domain_quotas/dept/projects/proj', { project: { region: 'R1', cores: 3 } })).status).toBe(200);
    expect((await patch('/v3/domain_quotas/dept', { domain: { region: 'R1', cores: 60 } })).status).toBe(200);
    expect((await node('default')).allocated.cores).toBe(60_000);
  });
});
