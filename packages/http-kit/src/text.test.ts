import { hasUnsafeChars } from './text';

describe('hasUnsafeChars', () => {
  it.each([
    ['NUL', 'a\u0000b'],
    ['a C0 control', 'a\u001fb'],
    ['DEL', 'a\u007f'],
    ['a C1 control (NEL)', 'a\u0085b'],
    ['a bidi override', 'ab\u202ec'],
    ['a bidi isolate', '\u2066x'],
    ['the Arabic letter mark', 'x\u061c'],
    ['a zero-width space', '\u200b'],
    ['a word joiner', 'a\u2060b'],
    ['a byte order mark', '\ufeffabc'],
    ['a soft hyphen', 'ab\u00adc'],
    ['a lone surrogate', 'a\ud800b'],
    ['a line separator', 'a\u2028b'],
  ])('refuses %s', (_name, s) => {
    expect(hasUnsafeChars(s)).toBe(true);
  });

  it.each([
    ['ASCII', 'RegionOne'],
    ['an id with dashes', '2f66f0d5-37d7-40d7-9ad1-e52238df492a'],
    ['accented letters', 'Région-Île'],
    ['CJK', '研发部'],
    ['an emoji (a surrogate pair)', 'team-🚀'],
    ['a space', 'Research and Development'],
  ])('accepts %s', (_name, s) => {
    expect(hasUnsafeChars(s)).toBe(false);
  });
});
