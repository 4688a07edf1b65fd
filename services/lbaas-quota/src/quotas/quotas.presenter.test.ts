import { LBAAS_RESOURCES, type LbaasResolved } from '@stratum/quota-items';
import { presentListItem, presentQuota, presentUsage } from './quotas.presenter';
import { emptyQuotaState, type QuotaDoc } from './quotas.repository';

/** A stored record of project `p1`: every limit the default (null) and nothing in use, with `limits`/`in_use` changed. */
const buildDoc = (limits: Partial<QuotaDoc['limits']> = {}, inUse: Partial<QuotaDoc['in_use']> = {}): QuotaDoc => {
  const empty = emptyQuotaState();
  return { _id: 'p1', limits: { ...empty.limits, ...limits }, in_use: { ...empty.in_use, ...inUse } };
};
const buildResolved = (limit: number): LbaasResolved => Object.fromEntries(LBAAS_RESOURCES.map((r) => [r, limit])) as LbaasResolved;

describe('presentListItem', () => {
  it('gives raw limits (null = the default) in both spellings, in_use counts and tenant_id', () => {
    expect(presentListItem(buildDoc({ load_balancer: 5, health_monitor: -1 }, { pool: 2 }))).toEqual({
      project_id: 'p1',
      tenant_id: 'p1',
      load_balancer: 5,
      loadbalancer: 5,
      health_monitor: -1,
      healthmonitor: -1,
      listener: null,
      member: null,
      pool: null,
      l7policy: null,
      l7rule: null,
      in_use_load_balancer: 0,
      in_use_listener: 0,
      in_use_member: 0,
      in_use_pool: 2,
      in_use_health_monitor: 0,
      in_use_l7policy: 0,
      in_use_l7rule: 0,
    });
  });

  it('narrows to `fields`', () => {
    expect(presentListItem(buildDoc({ pool: 3 }, { pool: 1 }), ['project_id', 'pool', 'in_use_pool'])).toEqual({
      project_id: 'p1',
      pool: 3,
      in_use_pool: 1,
    });
  });
});

describe('presentQuota', () => {
  it('gives the seven effective limits in the underscore spelling, or only `fields`', () => {
    expect(Object.keys(presentQuota(buildResolved(4)))).toEqual([...LBAAS_RESOURCES]);
    expect(presentQuota({ ...buildResolved(4), l7rule: -1 }, ['l7rule', 'member'])).toEqual({ member: 4, l7rule: -1 });
  });
});

describe('presentUsage', () => {
  it('gives each resource its effective limit and in_use', () => {
    const inUse = { ...emptyQuotaState().in_use, member: 3 };
    const usage = presentUsage({ projectId: 'p1', limits: { ...buildResolved(10), member: -1 }, inUse });
    expect(usage.project_id).toBe('p1');
    expect(usage.member).toEqual({ limit: -1, in_use: 3 });
    expect(usage.pool).toEqual({ limit: 10, in_use: 0 });
    expect(Object.keys(usage)).toEqual(['project_id', ...LBAAS_RESOURCES]);
  });
});
