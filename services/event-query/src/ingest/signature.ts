/**
 * Ceilometer's `message_signature` (`ceilometer/publisher/utils.py` compute_signature / verify_signature):
 * HMAC-SHA256 (lowercase hex) with the `[publisher] telemetry_secret` over `str(name)` then `str(value)` for each
 * key pair of the message, keys sorted, nested dicts flattened to `parent:child`, the `message_signature` key
 * skipped, no separators. A list value is first passed through `decode_unicode`, which turns every string inside
 * it into bytes and every dict into a key-sorted dict, so its `str()` is Python's repr with `b'…'` strings.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { isJsonObject as isObject, pyRepr, pyStr } from './python';

/** `decode_unicode`: dicts rebuilt in sorted key order, recursively (strings become bytes at repr time). */
function sortedDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortedDeep);
  if (isObject(v)) {
    // No prototype, so a `__proto__` key stays a key (Python hashes it like any other).
    const out: Record<string, unknown> = Object.create(null);
    for (const k of Object.keys(v).sort(byCodePoint)) out[k] = sortedDeep(v[k]);
    return out;
  }
  return v;
}

/** Python sorts str keys by code point; JavaScript's default sort compares UTF-16 units. */
function byCodePoint(a: string, b: string): number {
  const x = Array.from(a);
  const y = Array.from(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = (x[i]?.codePointAt(0) as number) - (y[i]?.codePointAt(0) as number);
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

function* keypairs(d: Record<string, unknown>, prefix: string): Generator<[string, string]> {
  for (const name of Object.keys(d).sort(byCodePoint)) {
    const value = d[name];
    const full = prefix ? `${prefix}:${name}` : name;
    if (isObject(value)) yield* keypairs(value, full);
    else if (Array.isArray(value)) yield [full, pyRepr(sortedDeep(value), { bytesStrings: true })];
    else yield [full, pyStr(value)];
  }
}

/** The signature Ceilometer computes for `message`; '' when the secret is empty. */
export function computeSignature(message: Record<string, unknown>, secret: string): string {
  if (!secret) return '';
  const h = createHmac('sha256', Buffer.from(secret, 'utf8'));
  for (const [name, value] of keypairs(message, '')) {
    if (name === 'message_signature') continue;
    h.update(Buffer.from(name, 'utf8'));
    h.update(Buffer.from(value, 'utf8'));
  }
  return h.digest('hex');
}

/**
 * Whether `message.message_signature` is the one Ceilometer would compute (constant-time comparison). An empty
 * secret accepts everything, as upstream; a missing or non-text signature fails.
 */
export function verifySignature(message: Record<string, unknown>, secret: string): boolean {
  if (!secret) return true;
  const given = message.message_signature;
  if (typeof given !== 'string') return false;
  const expected = Buffer.from(computeSignature(message, secret), 'utf8');
  const actual = Buffer.from(given, 'utf8');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
