/**
 * The departments page's rows (departments/model.ts): a department in one region with its tightest item, and the
 * order by headroom (free ÷ quota; unlimited and zero quotas are never the tightest), one item's numbers (quota,
 * allocated, used, free) and a bar's share and text. Reading from the API is left to the browser tests.
 */
import {
  barText,
  byHeadroom,
  type Department,
  type DepartmentData,
  type DepartmentView,
  departmentIn,
  itemNumbers,
  shareOf,
  usedLabel,
} from './model';

const view = (quotas: Record<string, number>, usage: Record<string, number> = {}): DepartmentView => ({ quotas, usage, limits: {} });

function dept(id: string, views: Record<string, DepartmentView>, name = id): DepartmentData {
  return { id, name, views, etag: `"${id}"`, used: null };
}

const ITEMS = ['instances', 'cores', 'ram', 'gigabytes_SSD'];

describe('departmentIn', () => {
  it('finds the item with the least headroom', () => {
    const d = dept('d1', { RegionOne: view({ instances: 10, cores: 40, ram: 1024 }, { instances: 5, cores: 36, ram: 512 }) });
    expect(departmentIn(d, 'RegionOne', ITEMS).tightest).toEqual({ item: 'cores', ratio: 0.1 });
  });

  it('never picks an unlimited or a zero quota, however much is allocated', () => {
    const d = dept('d1', { RegionOne: view({ instances: -1, cores: 0, ram: 100 }, { instances: 1e6, cores: 5, ram: 75 }) });
    expect(departmentIn(d, 'RegionOne', ITEMS).tightest).toEqual({ item: 'ram', ratio: 0.25 });
  });

  it('has no tightest item when every quota is unlimited, zero or missing', () => {
    const d = dept('d1', { RegionOne: view({ instances: -1, cores: 0 }, { cores: 3 }) });
    expect(departmentIn(d, 'RegionOne', ITEMS).tightest).toBeUndefined();
  });

  it('counts an item without allocation as all headroom, and over-allocation as none', () => {
    const free = dept('d1', { RegionOne: view({ cores: 8 }) });
    expect(departmentIn(free, 'RegionOne', ITEMS).tightest).toEqual({ item: 'cores', ratio: 1 });
    const over = dept('d2', { RegionOne: view({ cores: 8, ram: 10 }, { cores: 9, ram: 1 }) });
    expect(departmentIn(over, 'RegionOne', ITEMS).tightest).toEqual({ item: 'cores', ratio: 0 });
  });

  it('keeps the first of equally tight items (the catalogue order)', () => {
    const d = dept('d1', { RegionOne: view({ instances: 10, cores: 20 }, { instances: 5, cores: 10 }) });
    expect(departmentIn(d, 'RegionOne', ITEMS).tightest?.item).toBe('instances');
    expect(departmentIn(d, 'RegionOne', ['cores', 'instances']).tightest?.item).toBe('cores');
  });

  it('looks only at the items asked for, in the region asked for', () => {
    const d = dept('d1', {
      RegionOne: view({ instances: 10, cores: 10 }, { instances: 9, cores: 1 }),
      RegionTwo: view({ instances: 10 }, { instances: 2 }),
    });
    expect(departmentIn(d, 'RegionOne', ['cores']).tightest).toEqual({ item: 'cores', ratio: 0.9 });
    expect(departmentIn(d, 'RegionTwo', ITEMS).tightest).toEqual({ item: 'instances', ratio: 0.8 });
  });

  it('gives no view for a region the department has none in, and carries its identity and ETag', () => {
    const row = departmentIn(dept('d1', { RegionOne: view({ cores: 1 }) }, 'Physics'), 'RegionTwo', ITEMS);
    expect(row).toEqual({ id: 'd1', name: 'Physics', view: undefined, used: null, etag: '"d1"', tightest: undefined });
  });

  it("takes the region's summed use: null when it could not be read, undefined when nobody reported", () => {
    const used = { collected_at: '2026-11-20T08:00:00Z', values: { cores: 3.5 }, projects_reported: 2, projects: 3 };
    const d: DepartmentData = { ...dept('d1', { RegionOne: view({ cores: 8 }) }), used: { RegionOne: used } };
    expect(departmentIn(d, 'RegionOne', ITEMS).used).toEqual(used);
    expect(departmentIn(d, 'RegionTwo', ITEMS).used).toBeUndefined();
    expect(departmentIn(dept('d2', {}), 'RegionOne', ITEMS).used).toBeNull();
  });
});

describe('byHeadroom', () => {
  const row = (name: string, ratio?: number): Department => ({
    id: name,
    name,
    view: undefined,
    used: undefined,
    etag: undefined,
    tightest: ratio === undefined ? undefined : { item: 'cores', ratio },
  });

  it('puts the least headroom first, unlimited everywhere last, ties by name', () => {
    const rows = [row('zeta', 0.5), row('unl-b'), row('alpha', 0.5), row('full', 0), row('unl-a'), row('roomy', 0.99), row('one', 1)];
    expect(byHeadroom(rows).map((d) => d.name)).toEqual(['full', 'alpha', 'zeta', 'roomy', 'one', 'unl-a', 'unl-b']);
  });

  it('leaves its input as it was', () => {
    const rows = [row('b', 0.9), row('a', 0.1)];
    byHeadroom(rows);
    expect(rows.map((d) => d.name)).toEqual(['b', 'a']);
  });

  it('orders departments read from the API end to end', () => {
    const region = 'RegionOne';
    const data = [
      dept('d-unlimited', { [region]: view({ cores: -1, ram: -1 }, { cores: 500 }) }, 'Unlimited'),
      dept('d-zero', { [region]: view({ cores: 0 }) }, 'Zero'),
      dept('d-tight', { [region]: view({ cores: 100, ram: 1000 }, { cores: 99.5, ram: 10 }) }, 'Tight'),
      dept('d-half', { [region]: view({ cores: 0.3 }, { cores: 0.15 }) }, 'Half'),
    ];
    const rows = byHeadroom(data.map((d) => departmentIn(d, region, ITEMS)));
    expect(rows.map((d) => d.name)).toEqual(['Tight', 'Half', 'Unlimited', 'Zero']);
    expect(rows[0]?.tightest).toEqual({ item: 'cores', ratio: 0.005 });
    expect(rows[1]?.tightest).toEqual({ item: 'cores', ratio: 0.5 });
  });
});

describe('itemNumbers and usedLabel', () => {
  const used = (values: Record<string, number>) => ({
    collected_at: '2026-11-20T07:55:00.000Z',
    values,
    projects_reported: 2,
    projects: 3,
  });

  it('gives quota, allocated (C1 usage), the reported used and free = quota − allocated, exact in decimals', () => {
    const d = { view: view({ ram: 209715.2, cores: 614 }, { ram: 115343.3, cores: 305 }), used: used({ ram: 42543.1 }) };
    expect(itemNumbers(d, 'ram')).toEqual({ quota: 209715.2, allocated: 115343.3, used: 42543.1, free: 94371.9 });
    // A reported department's item that no project reported is 0 used, not "not reported".
    expect(itemNumbers(d, 'cores')).toEqual({ quota: 614, allocated: 305, used: 0, free: 309 });
    expect(usedLabel(d, 'ram')).toBe('42,543.1');
    expect(usedLabel(d, 'cores')).toBe('0');
  });

  it('says when nothing was reported, and when it could not be read', () => {
    expect(itemNumbers({ view: view({ cores: 10 }, { cores: 4 }), used: undefined }, 'cores')).toEqual({
      quota: 10,
      allocated: 4,
      used: undefined,
      free: 6,
    });
    expect(usedLabel({ used: undefined }, 'cores')).toBe('not reported');
    expect(usedLabel({ used: null }, 'cores')).toBe('–');
  });

  it('keeps an unlimited quota unlimited, and reads a missing view as zeros', () => {
    expect(itemNumbers({ view: view({ cores: -1 }, { cores: 500 }), used: undefined }, 'cores').free).toBe(-1);
    expect(itemNumbers({ view: undefined, used: undefined }, 'cores')).toEqual({ quota: 0, allocated: 0, used: undefined, free: 0 });
  });
});

describe('shareOf and barText', () => {
  it('clamps a share to [0, 1]; a zero quota is full only when something is held', () => {
    expect(shareOf(80, 204)).toBeCloseTo(0.392, 3);
    expect(shareOf(300, 200)).toBe(1);
    expect(shareOf(-5, 200)).toBe(0);
    expect(shareOf(0, 0)).toBe(0);
    expect(shareOf(1, 0)).toBe(1);
  });

  it('writes the numbers on a bar with the unit once and the share of the quota', () => {
    expect(barText('cores', 204, 80, 17)).toBe('used 17 · allocated 80 of 204 cores (39%)');
    expect(barText('ram', 629145.6, 251658.3, undefined)).toBe('allocated 251,658.3 of 629,145.6 MiB (40%)');
    expect(barText('instances', 200, 90, 31)).toBe('used 31 · allocated 90 of 200 (45%)');
  });

  it('says unlimited, with no share, for an unlimited quota', () => {
    expect(barText('cores', -1, 500, undefined)).toBe('allocated 500 cores of unlimited');
    expect(barText('ram', -1, 0, 12)).toBe('used 12 · allocated 0 MiB of unlimited');
  });
});
