/**
 * The departments page's rows (departments/model.ts): a department in one region with its tightest item, and the
 * order by headroom (free ÷ quota; unlimited and zero quotas are never the tightest). Reading from the API is left to
 * the browser tests; the used/allocated/free arithmetic of the views is format.ts's subtract (format.test.ts).
 */
import { byHeadroom, type Department, type DepartmentData, type DepartmentView, departmentIn } from './model';

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
