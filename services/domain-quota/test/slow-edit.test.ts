/**
 * An edit whose process was only slow, not dead: two PATCHes of one department stall after their reservation (as a
 * process or a store stalled under load past the lease does), the reconciler fences both off and rolls them back,
 * the second fence pruning the first, settled one. When the stalled edits go on, neither may apply on the strength of
 * its old reservation: each starts again on fresh values, so the cloud's `allocated` stays what the tree holds.
 */
import { randomBytes } from 'node:crypto';
import { loadRegistryFile } from '@stratum/deploy';
import { buildApp, createDeps, type DomainQuotaDeps, loadConfig } from '@stratum/domain-quota';
import { signIdentity } from '@stratum/identity';
import { waitFor } from '@stratum/testing';
import pino from 'pino';
import request from 'supertest';
import { stringify } from 'yaml';

describe('an edit stalled past its lease', () => {
  const secret = randomBytes(24).toString('hex');
  const cloudAdmin = { userId: 'admin', projectId: 'admin', domainId: 'default', roles: ['admin'] };
  let deps: DomainQuotaDeps;
  let app: ReturnType<typeof buildApp>;
  /** Edits still to stall after their reservation, and what lets them go on. */
  let toStall = 0;
  let stalled = 0;
  let release: () => void = () => undefined;
  const gate = new Promise<void>((r) => {
    release = r;
  });

  beforeAll(async () => {
    deps = await createDeps(
      loadConfig({
        MONGODB_URI: process.env.STRATUM_TEST_MONGODB_URI,
        MONGODB_DATABASE: `t_${randomBytes(6).toString('hex')}`,
        STRATUM_IDENTITY_SECRET: secret,
        LOG_LEVEL: 'silent',
        REDIS_URL: '',
        EDIT_LEASE_MS: '1000',
        EDIT_RECONCILE_INTERVAL_MS: '200',
      }),
      pino({ level: 'silent' }),
      {
        editHooks: {
          afterStep: async (step) => {
            if (step !== 1 || toStall === 0) return;
            toStall--;
            stalled++;
            await gate;
          },
        },
      },
    );
    app = buildApp(deps);
    await loadRegistryFile(
      deps.store.db,
      stringify({
        regions: [{ name: 'R1', volume_types: [], products: [] }],
        departments: [
          { id: 'default', name: 'Cloud', quotas: { R1: { cores: 100, instances: 100 } } },
          { id: 'dept', name: 'Dept', quotas: { R1: { cores: 10, instances: 10 } } },
        ],
      }),
    );
  });
  afterAll(() => deps.close());

  const patch = (path: string, body: unknown) => {
    const text = JSON.stringify(body);
    return request(app)
      .patch(path)
      .set({ ...signIdentity(cloudAdmin, secret, { method: 'PATCH', url: path, body: text }), 'Content-Type': 'application/json' })
      .send(text);
  };
  const node = async (owner: string) => (await deps.tree.readQuotaSet('R1', owner)).state;

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
