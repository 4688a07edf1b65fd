import { fromMilli, regionItems, toMilli } from './domain';

const storage = { area: 'storage', scale: 3, unit: 'GiB' } as const;
const count = { area: 'compute', scale: 0, unit: 'count' } as const;

describe('department quota values', () => {
  it('converts exactly, so 0.1 + 0.2 sums to 0.3', () => {
    const a = toMilli(0.1, storage);
    const b = toMilli(0.2, storage);
    expect(a.ok && b.ok && fromMilli(a.milli + b.milli)).toBe(0.3);
    const r = toMilli(209715.2, storage);
    expect(r.ok && fromMilli(r.milli)).toBe(209715.2);
  });

  it.each([
    [1.5, count, 'too_many_decimals'],
    [1.2345, storage, 'too_many_decimals'],
    [-2, count, 'out_of_range'],
    [-0.5, storage, 'out_of_range'],
    [2147483648, count, 'out_of_range'],
    ['10', count, 'not_a_number'],
    [true, count, 'not_a_number'],
  ])('refuses %p for %o (%s)', (value, spec, reason) => {
    expect(toMilli(value, spec)).toEqual({ ok: false, reason });
  });

  it('keeps -1 as unlimited and accepts the bounds', () => {
    expect(toMilli(-1, count)).toEqual({ ok: true, milli: -1 });
    expect(toMilli(2147483647, count)).toEqual({ ok: true, milli: 2147483647000 });
    expect(toMilli(0, count)).toEqual({ ok: true, milli: 0 });
  });

  it('lists per-type storage items and container items only where installed', () => {
    const withCpu = regionItems({ volumeTypes: ['ssd_fast'], products: ['secure_container'] });
    expect([...withCpu.keys()]).toEqual(expect.arrayContaining(['volumes_ssd_fast', 'gigabytes_ssd_fast', 'snapshots_ssd_fast', 'cpu']));
    expect(regionItems({ volumeTypes: [], products: [] }).has('cpu')).toBe(false);
  });
});
