/**
 * The console's pure helpers (gateway/console/src): numbers with units and "unlimited", headroom for sorting, exact
 * subtraction at the items' scale, and the error text of each API group's error shape.
 */
import { errorText } from '../console/src/api';
import { formatNumber, formatValue, headroom, subtract, unitOf } from '../console/src/format';

describe('console format', () => {
  it('shows -1 as unlimited and units from the item catalogue', () => {
    expect(formatNumber(-1)).toBe('unlimited');
    expect(formatValue('ram', -1)).toBe('unlimited');
    expect(formatValue('ram', 209715.2)).toBe('209,715.2 MiB');
    expect(formatValue('gigabytes_ssd', 10000)).toBe('10,000 GiB');
    expect(formatValue('cores', 614)).toBe('614 cores');
    expect(formatValue('instances', 3)).toBe('3');
    expect(unitOf('cpu')).toBe('cores');
    expect(formatNumber(undefined)).toBe('–');
  });

  it('subtracts exactly at three decimals and keeps unlimited', () => {
    expect(subtract(0.3, 0.1)).toBe(0.2);
    expect(subtract(-1, 5)).toBe(-1);
    expect(subtract(10, 12)).toBe(-2);
  });

  it('orders by headroom: free ÷ quota, unlimited has all of it, a zero quota none', () => {
    expect(headroom(100, 25)).toBe(0.75);
    expect(headroom(-1, 1e9)).toBe(1);
    expect(headroom(0, 0)).toBe(0);
    expect(headroom(10, 12)).toBe(0);
  });
});

describe('console errorText', () => {
  it('reads Keystone, Octavia and Panko error bodies', () => {
    expect(errorText({ error: { code: 409, title: 'Conflict', message: 'Quota for cores …', details: [] } })).toBe('Quota for cores …');
    expect(errorText({ faultcode: 'Client', faultstring: 'Invalid input', debuginfo: null })).toBe('Invalid input');
    expect(errorText({ description: 'Not Found' })).toBe('Not Found');
    expect(errorText({ error_message: { faultstring: 'Not Found', faultcode: 'Client' } })).toBe('Not Found');
    expect(errorText({ error_message: '{"faultstring": "bad query"}' })).toBe('bad query');
    expect(errorText('  plain text  ')).toBe('plain text');
    expect(errorText(undefined)).toBe('');
  });
});
