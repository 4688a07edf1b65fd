/**
 * JSON as a Python service sees it, for Ceilometer compatibility: trait text is Python's `str()` of the decoded
 * JSON value, and `message_signature` hashes `str()` of values.
 *
 * Numbers: `parsePyJson` keeps a number whose JavaScript value would differ from Python's (an integer beyond 2^53,
 * or a float written with an integral value such as `1.0`, which Python prints as `1.0`) as a `LosslessNumber`
 * carrying its source text; every other number is a plain `number`.
 */
import { isLosslessNumber, LosslessNumber, parse, stringify } from 'lossless-json';

const FLOAT_SYNTAX = /[.eE]/;

function parseNumber(text: string): number | LosslessNumber {
  const n = Number(text);
  if (FLOAT_SYNTAX.test(text)) return Number.isInteger(n) ? new LosslessNumber(text) : n;
  return Number.isSafeInteger(n) ? n : new LosslessNumber(text);
}

/**
 * Parses JSON text, keeping numbers exact where Python and JavaScript would print them differently.
 * @throws SyntaxError when `text` is not JSON.
 */
export function parsePyJson(text: string): unknown {
  // Most bodies hold no such number; JSON.parse is several times faster than the lossless parser.
  return mayHoldInexactNumbers(text) ? parse(text, null, parseNumber) : JSON.parse(text);
}

/**
 * Number tokens (after `:`, `[` or `,`) that JSON.parse would not keep as Python reads them: 16+ digit integers,
 * integral floats (`1.0`) and exponents. Text inside strings can match too (a false positive only costs speed);
 * dotted text such as `"2.0"` or `"10.0.0.1"` does not, since no `:`/`[`/`,` precedes its digits.
 */
const INEXACT_NUMBER = /[:[,]\s*-?(?:\d{16}|\d+\.0+\s*[,\]}]|\d+(?:\.\d+)?[eE])/;

/** Whether `text` may hold a number `JSON.parse` would change (see INEXACT_NUMBER). */
export function mayHoldInexactNumbers(text: string): boolean {
  return INEXACT_NUMBER.test(text);
}

/** A JSON object (not an array, not a number kept as LosslessNumber). */
export function isJsonObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !isLosslessNumber(v);
}

/** JSON text of a value from `parsePyJson`, numbers written as they arrived. */
export function stringifyPyJson(value: unknown): string {
  return stringify(value) ?? 'null';
}

/** Whether a LosslessNumber holds a float (Python `float`) rather than an int. */
export function isPyFloat(n: LosslessNumber): boolean {
  return FLOAT_SYNTAX.test(n.value);
}

/** The value as a JavaScript number (exactness lost beyond 2^53), or undefined when it is not a number. */
export function toNumber(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (isLosslessNumber(v)) return Number((v as LosslessNumber).value);
  return undefined;
}

/**
 * Python's `repr(float)`: the shortest round-tripping digits, positional for 1e-4 ≤ |x| < 1e16, otherwise
 * scientific with a signed two-digit-minimum exponent (`1e-05`, `1e+16`), and `.0` on integral values.
 */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mant, expText] = x.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  const neg = mant.startsWith('-');
  const digits = mant.replace('-', '').replace('.', '');
  let body: string;
  if (exp < -4 || exp >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = Math.abs(exp) < 10 ? `0${Math.abs(exp)}` : String(Math.abs(exp));
    body = `${m}e${exp < 0 ? '-' : '+'}${e}`;
  } else if (exp < 0) {
    body = `0.${'0'.repeat(-exp - 1)}${digits}`;
  } else if (digits.length <= exp + 1) {
    body = `${digits}${'0'.repeat(exp + 1 - digits.length)}.0`;
  } else {
    body = `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
  }
  return neg ? `-${body}` : body;
}

/** Python's `repr(str)`: single quotes unless the text holds `'` and no `"`; escapes as CPython. */
export function pyStrRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0) as number;
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp >= 0x80 && cp < 0xa0) out += `\\x${cp.toString(16)}`;
    else out += ch;
  }
  return out + quote;
}

/** Python's `repr(bytes)` of the UTF-8 encoding of `s` (`b'…'`, non-ASCII bytes as `\xNN`). */
export function pyBytesRepr(s: string): string {
  const bytes = Buffer.from(s, 'utf8');
  const hasSingle = bytes.includes(0x27);
  const quote = hasSingle && !bytes.includes(0x22) ? '"' : "'";
  let out = `b${quote}`;
  for (const b of bytes) {
    const ch = String.fromCharCode(b);
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (b === 0x0a) out += '\\n';
    else if (b === 0x0d) out += '\\r';
    else if (b === 0x09) out += '\\t';
    else if (b < 0x20 || b >= 0x7f) out += `\\x${b.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return out + quote;
}

/** Options of `pyRepr`: `bytesStrings` renders strings as the bytes Ceilometer's signature encodes them into. */
interface ReprOptions {
  bytesStrings?: boolean;
}

/** Python's `repr()` of a decoded JSON value (dict keys in their order, as Python 3.7+ keeps insertion order). */
export function pyRepr(v: unknown, opts: ReprOptions = {}): string {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'string') return opts.bytesStrings ? pyBytesRepr(v) : pyStrRepr(v);
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : pyFloatRepr(v);
  if (typeof v === 'bigint') return v.toString();
  if (isLosslessNumber(v)) {
    const n = v as LosslessNumber;
    return isPyFloat(n) ? pyFloatRepr(Number(n.value)) : BigInt(n.value).toString();
  }
  if (Array.isArray(v)) return `[${v.map((x) => pyRepr(x, opts)).join(', ')}]`;
  const entries = Object.entries(v as Record<string, unknown>);
  return `{${entries.map(([k, x]) => `${pyRepr(k, opts)}: ${pyRepr(x, opts)}`).join(', ')}}`;
}

/** Python's `str()` of a decoded JSON value: strings as they are, everything else as `repr`. */
export function pyStr(v: unknown): string {
  return typeof v === 'string' ? v : pyRepr(v);
}
