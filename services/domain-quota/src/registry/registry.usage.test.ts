/**
 * The usage reports' rules (registry.usage.ts): values checked against a region's catalogue and kept in milli-units,
 * and a department's actual use summed from its projects' reports, exactly and with the oldest report's time.
 */
import { fromMilli, regionItems } from '@stratum/quota-items';
import { regionValues, sumReports, usageValuesOf, wireValues } from './registry.usage';

const items = regionItems({ volumeTypes: ['ssd'], products: [] });

describe('usageValuesOf', () => {
  it('keeps counts and exact decimals in milli-units, under the output spelling', () => {
    const got = usageValuesOf('R1', items, { cores: 12, ram: 2048.5, networks: 3, gigabytes_ssd: 0.001 });
    expect(got).toEqual({ ok: true, values: { cores: 12_000, ram: 2_048_500, network: 3000, gigabytes_ssd: 1 } });
  });

  it('lists every problem: unknown items (prototype names too), fractions of counts, -1, too many decimals', () => {
    const given = JSON.parse(
      '{"__proto__": 1, "constructor": 2, "toString": 3, "volumes_sata": 1, "cores": 1.5, "ram": -1, "gigabytes_ssd": 0.0001, "instances": "2"}',
    );
    const got = usageValuesOf('R1', items, given);
    expect(got.ok).toBe(false);
    const reasons = got.ok ? [] : got.details.map((d) => [d.item, d.reason]);
    expect(reasons).toEqual([
      ['__proto__', 'unknown_item'],
      ['constructor', 'unknown_item'],
      ['toString', 'unknown_item'],
      ['volumes_sata', 'unknown_item'],
      ['cores', 'too_many_decimals'],
      ['ram', 'out_of_range'],
      ['gigabytes_ssd', 'too_many_decimals'],
      ['instances', 'not_a_number'],
    ]);
  });

  it('accepts an empty report', () => {
    expect(usageValuesOf('R1', items, {})).toEqual({ ok: true, values: {} });
  });
});

describe('sumReports', () => {
  const keys = ['cores', 'ram', 'instances'];

  it('sums item by item without binary float error (0.1 + 0.2 MiB is 0.3) and takes the oldest time', () => {
    const sum = sumReports(
      [
        { collected_at: '2026-11-20T08:00:00.000Z', values: { cores: 12_000, ram: 100 } },
        { collected_at: '2026-11-20T07:00:00.000Z', values: { cores: 3000, ram: 200 } },
        { collected_at: '2026-11-20T09:00:00.000Z', values: { ram: 2_048_500 } },
      ],
      keys,
    );
    expect(sum).toEqual({ collected_at: '2026-11-20T07:00:00.000Z', values: { cores: 15_000, ram: 2_048_800, instances: 0 }, reports: 3 });
    expect(fromMilli(sum?.values.ram ?? 0)).toBe(2048.8);
    expect(wireValues({ ram: 300 })).toEqual({ ram: 0.3 });
  });

  it('compares times as instants, not as text', () => {
    const sum = sumReports(
      [
        { collected_at: '2026-11-20T08:00:00+02:00', values: {} },
        { collected_at: '2026-11-20T07:00:00Z', values: {} },
      ],
      keys,
    );
    expect(sum?.collected_at).toBe('2026-11-20T08:00:00+02:00');
  });

  it('leaves out items the region no longer offers, and is undefined without reports', () => {
    const sum = sumReports([{ collected_at: '2026-11-20T07:00:00.000Z', values: { cores: 1000, volumes_gone: 5000 } }], ['cores']);
    expect(sum?.values).toEqual({ cores: 1000 });
    expect(sumReports([], keys)).toBeUndefined();
  });
});

describe('regionValues', () => {
  it('shows every item of the region, 0 when not reported, prototype names never read from Object.prototype', () => {
    expect(regionValues(['cores', 'constructor'], { cores: 1500 })).toEqual({ cores: 1.5, constructor: 0 });
    expect(regionValues(['cores'], undefined)).toEqual({ cores: 0 });
  });
});
