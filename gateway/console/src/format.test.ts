/** Numbers for people (format.ts): en-US separators, units from the quota item catalogue, -1 as unlimited. */
import { formatNumber, formatTime, formatValue, headroom, itemSpec, subtract, UNLIMITED, unitOf } from './format';

describe('formatNumber', () => {
  it.each([
    [0, '0'],
    [7, '7'],
    [1024, '1,024'],
    [2000000000, '2,000,000,000'],
    [0.5, '0.5'],
    [1536.25, '1,536.25'],
    // Up to three decimals (the quota items' scale).
    [0.1234, '0.123'],
    [0.0006, '0.001'],
    [1.9999, '2'],
    [-2, '-2'],
    [-1234.5, '-1,234.5'],
  ])('%p reads %p', (value, text) => {
    expect(formatNumber(value)).toBe(text);
  });

  it('reads -1 as unlimited, and undefined or NaN as a dash', () => {
    expect(formatNumber(UNLIMITED)).toBe('unlimited');
    expect(formatNumber(-1)).toBe('unlimited');
    expect(formatNumber(undefined)).toBe('–');
    expect(formatNumber(Number.NaN)).toBe('–');
  });
});

describe('unitOf and itemSpec', () => {
  it.each([
    ['ram', 'MiB'],
    ['memory', 'MiB'],
    ['backup_gigabytes', 'GiB'],
    ['general_storage', 'GiB'],
    ['gigabytes_SSD', 'GiB'],
    ['gigabytes_', 'GiB'],
    ['cpu', 'cores'],
    // Nova's cores are a count in the catalogue, but read as cores.
    ['cores', 'cores'],
    ['instances', ''],
    ['volumes_SSD', ''],
    ['snapshots_hdd', ''],
    ['no_such_item', ''],
    ['', ''],
  ])('%p is in %p', (item, unit) => {
    expect(unitOf(item)).toBe(unit);
  });

  it('knows fixed and per-volume-type items, and nothing by a prototype name', () => {
    expect(itemSpec('ram')).toEqual({ area: 'compute', scale: 3, unit: 'MiB' });
    expect(itemSpec('gigabytes_SSD')).toEqual({ area: 'storage', scale: 3, unit: 'GiB' });
    expect(itemSpec('constructor')).toBeUndefined();
    expect(itemSpec('__proto__')).toBeUndefined();
    expect(itemSpec('toString')).toBeUndefined();
  });
});

describe('formatValue', () => {
  it.each([
    ['gigabytes_SSD', 1024, '1,024 GiB'],
    ['ram', 51200.5, '51,200.5 MiB'],
    ['cpu', 0.25, '0.25 cores'],
    ['cores', 12, '12 cores'],
    ['instances', 10000, '10,000'],
    ['gigabytes_SSD', -1, 'unlimited'],
    ['cores', -1, 'unlimited'],
    ['ram', undefined, '–'],
    ['instances', undefined, '–'],
  ])('%p of %p reads %p', (item, value, text) => {
    expect(formatValue(item, value)).toBe(text);
  });
});

describe('subtract', () => {
  it('is exact to three decimals where floating point is not', () => {
    expect(0.3 - 0.1).not.toBe(0.2);
    expect(subtract(0.3, 0.1)).toBe(0.2);
    expect(subtract(1.001, 0.002)).toBe(0.999);
    expect(subtract(100, 37.5)).toBe(62.5);
    expect(subtract(10, 12)).toBe(-2);
    expect(subtract(0, 0)).toBe(0);
  });

  it('keeps unlimited unlimited', () => {
    expect(subtract(UNLIMITED, 5)).toBe(UNLIMITED);
    expect(subtract(UNLIMITED, 0)).toBe(UNLIMITED);
  });
});

describe('headroom', () => {
  it('is free ÷ quota, clamped to [0, 1]', () => {
    expect(headroom(100, 25)).toBe(0.75);
    expect(headroom(100, 100)).toBe(0);
    expect(headroom(100, 150)).toBe(0);
    expect(headroom(100, 0)).toBe(1);
    expect(headroom(8, 2)).toBe(0.75);
  });

  it('is all headroom for unlimited, none for a zero quota', () => {
    expect(headroom(UNLIMITED, 1e9)).toBe(1);
    expect(headroom(0, 0)).toBe(0);
    expect(headroom(0, 5)).toBe(0);
  });
});

describe('formatTime', () => {
  it('gives a dash for nothing and keeps text that is not a time', () => {
    expect(formatTime(undefined)).toBe('–');
    expect(formatTime('')).toBe('–');
    expect(formatTime('not a time')).toBe('not a time');
  });

  it('reads a timestamp in the locale (the same instant as toLocaleString gives)', () => {
    const iso = '2026-11-20T08:15:01Z';
    expect(formatTime(iso)).toBe(new Date(Date.UTC(2026, 10, 20, 8, 15, 1)).toLocaleString());
    expect(formatTime(iso)).not.toBe(iso);
  });
});
