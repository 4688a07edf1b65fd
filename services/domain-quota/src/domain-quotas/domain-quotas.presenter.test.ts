/**
 * The wire shapes of the department quota views, from node states in milli-units: C1 of a department and of the
 * cloud, C3, a project's allocations, the ETag and an audit entry.
 */
import { UNLIMITED } from '@stratum/quota-items';
import type { AuditEntry } from '../audit/audit.log';
import { auditEntryView, cloudRegionView, departmentRegionView, etagOf, projectRegionView } from './domain-quotas.presenter';
import { emptyQuotaSet, type QuotaSetState } from './domain-quotas.repository';

/** A node of `owner` in R1 with `quotas` and `allocated` given in units (stored as milli-units). */
function buildNode(owner: string, quotas: Record<string, number>, allocated: Record<string, number> = {}): QuotaSetState {
  const milli = (v: Record<string, number>) => Object.fromEntries(Object.entries(v).map(([k, n]) => [k, n === -1 ? UNLIMITED : n * 1000]));
  return { ...emptyQuotaSet('R1', owner), quotas: milli(quotas), allocated: milli(allocated) };
}

describe('department view (C1)', () => {
  it('usage is what its children hold; limits = what the cloud leaves free + its own share', () => {
    const cloud = buildNode('default', { cores: 1000, ram: 2048.5 }, { cores: 850, ram: 1024.25 });
    const finance = buildNode('finance', { cores: 300, ram: 512 }, { cores: 200 });
    expect(departmentRegionView('finance', ['cores', 'ram', 'instances'], finance, cloud)).toEqual({
      usage: { cores: 200, ram: 0, instances: 0 },
      quotas: { cores: 300, ram: 512, instances: 0 },
      limits: { cores: 1000 - 850 + 300, ram: 2048.5 - 1024.25 + 512, instances: -1 },
    });
  });

  it('an unlimited department counts nothing of its own share; a finite item of an unlimited cloud has limit -1', () => {
    const cloud = buildNode('default', { cores: 100 }, { cores: 40 });
    const dept = buildNode('d', { cores: -1 });
    expect(departmentRegionView('d', ['cores'], dept, cloud).limits.cores).toBe(100 - 40);
    expect(departmentRegionView('d', ['cores'], dept, cloud).quotas.cores).toBe(-1);
  });

  it("the cloud's own C1: a missing quota is unlimited and its limits are -1", () => {
    const cloud = buildNode('default', { cores: 1000 }, { cores: 10 });
    expect(departmentRegionView('default', ['cores', 'ram'], cloud, cloud)).toEqual({
      usage: { cores: 10, ram: 0 },
      quotas: { cores: 1000, ram: -1 },
      limits: { cores: -1, ram: -1 },
    });
  });
});

describe('cloud view (C3)', () => {
  it('quotas, allocated, limits -1, reported usage and quota_fake (a copy of quotas)', () => {
    const cloud = buildNode('default', { cores: 4096 }, { cores: 1000 });
    const usage = { values: { cores: 12_500, ram: 1 }, collected_at: '2026-01-01T00:00:00.000Z' };
    expect(cloudRegionView(['cores', 'ram'], cloud, usage)).toEqual({
      quotas: { cores: 4096, ram: -1 },
      allocated: { cores: 1000, ram: 0 },
      limits: { cores: -1, ram: -1 },
      usage: { cores: 12.5, ram: 0.001 },
      quota_fake: { cores: 4096, ram: -1 },
      usage_collected_at: '2026-01-01T00:00:00.000Z',
    });
  });

  it('without a report usage is 0 and there is no usage_collected_at', () => {
    const view = cloudRegionView(['cores'], buildNode('default', {}));
    expect(view.usage).toEqual({ cores: 0 });
    expect(view).not.toHaveProperty('usage_collected_at');
  });
});

describe('project view, ETag, audit entry', () => {
  it("a project's allocations: every item of the region, 0 when never given", () => {
    expect(projectRegionView(['cores', 'ram', 'instances'], { cores: 6000, ram: 500 })).toEqual({ cores: 6, ram: 0.5, instances: 0 });
    expect(projectRegionView(['cores'])).toEqual({ cores: 0 });
  });

  it('the ETag is strong, stable, and changes with any region revision', () => {
    const tag = etagOf([
      ['R1', 3],
      ['R2', 0],
    ]);
    expect(tag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(
      etagOf([
        ['R1', 3],
        ['R2', 0],
      ]),
    ).toBe(tag);
    expect(
      etagOf([
        ['R1', 4],
        ['R2', 0],
      ]),
    ).not.toBe(tag);
  });

  it('an audit entry without the outbox flag', () => {
    const entry = { _id: 'e1', at: 't', domain_id: 'd', region: 'R1', outcome: 'accepted', published: true } as unknown as AuditEntry;
    expect(auditEntryView(entry)).toEqual({ _id: 'e1', at: 't', domain_id: 'd', region: 'R1', outcome: 'accepted' });
  });
});
