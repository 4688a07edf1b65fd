import { canonicalTimestamp, parseTraitType } from './index';

describe('timestamps and trait types', () => {
  it.each([
    ['2026-11-21 12:10:18.900769', '2026-11-21T12:10:18.900769'],
    ['2026-11-21T12:10:18', '2026-11-21T12:10:18.000000'],
    ['2026-11-21T12:10:18Z', '2026-11-21T12:10:18.000000'],
    ['2026-11-21 12:19:59+00:00', '2026-11-21T12:19:59.000000'],
    ['2026-11-21T01:00:00+02:00', '2026-11-20T23:00:00.000000'],
    ['2026-11-21T12:10:18.123456789', '2026-11-21T12:10:18.123456'],
    ['2026-11-21T12:10', '2026-11-21T12:10:00.000000'],
  ])('canonicalises %s', (input, expected) => {
    expect(canonicalTimestamp(input)).toBe(expected);
  });

  it.each(['yesterday', '2026-13-01T00:00:00', '2026-02-30T00:00:00', '2026-11-21T24:00:00', ''])('refuses %p', (input) => {
    expect(canonicalTimestamp(input)).toBeUndefined();
  });

  it('accepts type names in any case and the definitions-file spellings', () => {
    expect(parseTraitType('STRING')).toBe('String');
    expect(parseTraitType('text')).toBe('String');
    expect(parseTraitType('Int')).toBe('integer');
    expect(parseTraitType('bool')).toBeUndefined();
  });
});
