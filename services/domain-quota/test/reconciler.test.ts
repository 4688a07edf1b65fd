/**
 * The edit reconciler's pass settles every unfinished edit it can: one that fails to settle (here a child node the
 * store will not take a conditional write on) is logged and left for the next pass, and does not hold back the
 * others behind it.
 */
import { randomBytes } from 'node:crypto';
import { createDeps, type DomainQuotaDeps, loadConfig } from '@stratum/domain-quota';
import pino from 'pino';

describe('the edit reconciler', () => {
  let deps: DomainQuotaDeps;

  beforeAll(async () => {
    deps = await createDeps(
      loadConfig({
        MONGODB_URI: process.env.STRATUM_TEST_MONGODB_URI,
        MONGODB_DATABASE: `t_${randomBytes(6).toString('hex')}`,
        STRATUM_IDENTITY_SECRET: randomBytes(24).toString('hex'),
        LOG_LEVEL: 'silent',
        REDIS_URL: '',
        EDIT_RECONCILE_INTERVAL_MS: '0',
      }),
      pino({ level: 'silent' }),
    );
    await deps.reconciler.close(); // only the passes this test runs
  });
  afterAll(() => deps.close());

  it('settles the other edits when one of them cannot be settled', async () => {
    const nodes = deps.store.db.collection<Record<string, unknown>>('dq_quotas');
    const node = (domain: string, more: Record<string, unknown>) => ({
      _id: `R1/${domain}`,
      region: 'R1',
      domain_id: domain,
      quotas: {},
      allocated: {},
      unlimited: {},
      ...more,
    });
    const change = (old: number, next: number) => [{ item: 'cores', old, next }];
    await nodes.insertMany([
      node('default', {
        quotas: { cores: 100_000 },
        allocated: { cores: 20_000 }, // good's 10 + both reservations of 5
        pending: {
          'e-bad': { child: 'd:bad', changes: change(0, 5000), at: 1 },
          'e-good': { child: 'd:good', changes: change(10_000, 15_000), at: 1 },
        },
        pending_since: 1,
        revision: 3,
      }),
      node('bad', { revision: 'not a number' }), // every conditional write on it misses
      node('good', { quotas: { cores: 10_000 }, revision: 1 }),
    ] as never);
    expect(await deps.reconciler.pass()).toEqual({ forward: 0, back: 1, failed: 1 });
    const cloud = (await deps.tree.readQuotaSet('R1', 'default')).state;
    expect(Object.keys(cloud.pending ?? {})).toEqual(['e-bad']);
    expect(cloud.allocated).toEqual({ cores: 15_000 });
  });
});
