/**
 * Hostile values a client may send anywhere: strings (NUL, control and bidi characters, prototype names, operators),
 * numbers out of every documented range, number literals JSON.parse mangles, malformed and special percent-encodings.
 */

/** Names the prototype chain of every JS object has: client-named keys must be looked up as own properties. */
export const PROTOTYPE_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__'];

/** Strings a client may send anywhere: empty, NUL, control and bidi characters, prototype names, operators, dots. */
export const HOSTILE_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\u0001\u0002\u001f\u007f',
  'tab\there',
  'line\nbreak',
  '\u202eevil\u202c',
  '\u2066isolate\u2069',
  '\u200b',
  'a\u0085b',
  'a\u2060b',
  '\ufeffbom',
  '\ud800',
  'ünïcödé-名前',
  '..',
  '.',
  '$gt',
  'a.b',
  '$where',
  '%ZZ',
  '%00',
  '{"$gt":""}',
  'null',
  'true',
  '-1',
  '1e309',
  ...PROTOTYPE_NAMES,
];

/** Numbers out of every documented range: negative, fractional, past 2^31 and 2^53, near the double's ends. */
export const HOSTILE_NUMBERS = [
  -1,
  -2,
  -1.5,
  0,
  -0,
  0.5,
  1.0000001,
  2 ** 31,
  2 ** 31 - 1,
  2 ** 32,
  2 ** 53,
  2 ** 53 + 2,
  1e21,
  1e308,
  -1e308,
  5e-324,
];

/** Number literals JSON.parse turns into Infinity, 0 or a rounded value. */
export const RAW_NUMBERS = ['1e400', '-1e400', '9007199254740993', '1e-400', '123456789012345678901234567890', '0.1e1', '-0.0'];

/** A JSON value written verbatim into the body's text (a number literal JSON.stringify cannot produce). */
export const RAW = (text: string) => `\u0001RAW:${text}\u0001`;
const RAW_PATTERN = /"\\u0001RAW:([^"\\]*)\\u0001"/g;

/** The JSON text of `value`, with RAW(...) placeholders replaced by their literal text. */
export function toJson(value: unknown): string {
  return (JSON.stringify(value) ?? 'null').replace(RAW_PATTERN, '$1');
}

/** Path ids whose percent-encoding is malformed or decodes to something no id is. */
export const MALFORMED_PERCENT = [
  '%ZZ',
  '%',
  '%C0%AF',
  '%E0%80%80',
  '%FF',
  '%2',
  'a%',
  '%%',
  '%u0041',
  '%C3%28',
  '%ED%A0%80',
  '%F4%90%80%80',
  'ok%ZZok',
];
/** Percent-encoded ids that decode to NUL, control, separator or bidi characters. */
export const ENCODED_SPECIALS = [
  '%00',
  'a%00b',
  'a%C2%85b',
  '%C2%9B',
  '%E2%80%8B',
  'a%E2%81%A0b',
  '%0A',
  '%0D%0A',
  '%09',
  '%7F',
  '%E2%80%AE',
  '%E2%81%A6',
  '%EF%BB%BF',
  '%2F',
  '%5C',
  '%2E%2E',
  '%2E',
  '%20',
  '%24where',
  '%3F',
  '%23',
];

/** An object with an own property named `key` (even `__proto__`), so JSON.stringify writes it. */
export function withOwnKey(o: unknown, key: string, value: unknown): unknown {
  const copy: Record<string, unknown> = {};
  if (o && typeof o === 'object' && !Array.isArray(o))
    for (const [k, x] of Object.entries(o)) Object.defineProperty(copy, k, { value: x, enumerable: true, writable: true });
  Object.defineProperty(copy, key, { value, enumerable: true, writable: true });
  return copy;
}

export const deepText = (n: number, kind: 'array' | 'object') =>
  kind === 'array' ? `${'['.repeat(n)}${']'.repeat(n)}` : `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
