/**
 * An edit whose process was only slow, not dead: two PATCHes of one department stall after their reservation (as a
 * process or a store stalled under load past the lease does), the reconciler fences both off and rolls them back,
 * the second fence pruning the first, settled one. When the stalled edits go on, neither may apply on the strength of
 * its old reservation: each starts again on fresh values, so the cloud's `allocated` stays what the tree holds.
 */
import type { DomainQuotaDeps } from '@stratum/domain-quota';
import { waitFor } from '@stratum/testing';
import { type EditHarness, startWithEditHooks } from './edit-harness';

describe('an edit stalled past its lease', () => {
  let h: EditHarness;
  let deps: DomainQuotaDeps;
  /** Edits still to stall after their reservation, and what lets them go on. */
  let toStall = 0;
  let stalled = 0;
  let release: () => void = () => undefined;
  const gate = new Promise<void>((r) => {
    release = r;
  });

  beforeAll(async () => {
    h = await startWithEditHooks(
      {
        afterStep: async (step) => {
          if (step !== 1 || toStall === 0) return;
          toStall--;
          stalled++;
          await gate;
        },
      },
      {
        regions: [{ name: 'R1', volume_types: [], products: [] }],
        departments: [
          { id: 'default', name: 'Cloud', quotas: { R1: { cores: 100, instances: 100 } } },
          { id: 'dept', name: 'Dept', quotas: { R1: { cores: 10, instances: 10 } } },
        ],
      },
    );
    deps = h.deps;
  });
  afterAll(() => h.close());

  const patch = (path: string, body: unknown) => h.patch(path, body);
  const node = (owner: string) => h.node(owner);

  it('two stalled edits of one department, rolled back by the reconciler, start again instead of applying', async () => {
    toStall = 2;
    const first = patch('/v3/domain_quotas/dept', { domain: { region: 'R1', cores: 4, instances: 3 } }).then((r) => r);
    const second = patch('/v3/domain_quotas/dept', { domain: { region: 'R1', cores: 6, instances: 2 } }).then((r) => r);
    await waitFor('both edits reserved and stalled', async () => stalled === 2, 20_000);
    // Past the lease, the reconciler fences off both and returns their reservations.
    await waitFor('the reconciler rolls both back', async () => Object.keys((await node('default')).pending ?? {}).length === 0, 20_000);
    expect((await node('dept')).quotas).toEqual({ cores: 10_000, instances: 10_000 });
    release();
    expect((await first).status).toBe(200);
    expect((await second).status).toBe(200);
    const dept = (await node('dept')).quotas;
    expect([4_000, 6_000]).toContain(dept.cores);
    expect((await node('default')).allocated).toEqual(dept);
    expect((await deps.integrity.check()).discrepancies).toEqual([]);
  });
});
