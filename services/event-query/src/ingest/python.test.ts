import { parsePyJson, pyFloatRepr, pyRepr, pyStr, stringifyPyJson } from './python';

describe('Python str() of JSON values', () => {
  it.each([
    [1, '1.0'],
    [0.1, '0.1'],
    [1e16, '1e+16'],
    [1.5e16, '1.5e+16'],
    [1e-5, '1e-05'],
    [0.0001, '0.0001'],
    [123456789.125, '123456789.125'],
    [-2.5, '-2.5'],
    [-0, '-0.0'],
  ])('repr(float %p) is %s', (x, text) => {
    expect(pyFloatRepr(x)).toBe(text);
  });

  it('prints decoded JSON the way Python does', () => {
    const v = parsePyJson('{"a": [1, 1.0, true, null, "it\'s"], "big": 9223372036854775808, "f": 2.50}');
    expect(pyStr(v)).toBe(`{'a': [1, 1.0, True, None, "it's"], 'big': 9223372036854775808, 'f': 2.5}`);
    expect(pyRepr(['é', 'a\nb'], { bytesStrings: true })).toBe("[b'\\xc3\\xa9', b'a\\nb']");
    expect(stringifyPyJson(v)).toBe('{"a":[1,1.0,true,null,"it\'s"],"big":9223372036854775808,"f":2.5}');
  });
});
