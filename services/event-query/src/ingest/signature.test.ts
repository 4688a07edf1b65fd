import { parsePyJson } from './python';
import { computeSignature, verifySignature } from './signature';

// Computed with Ceilometer's own compute_signature (python3-ceilometer 19.0.0) for this message and secret.
const MESSAGE =
  '{"message_id": "abc", "event_type": "compute.instance.create.end", "generated": "2024-01-02T03:04:05", ' +
  '"traits": [["service", 1, "compute"], ["memory_mb", 2, 512], ["f", 3, 3.0], ["launched_at", 4, "2024-01-02T03:04:05.120000"], ["q", 1, "it\'s \\u00e9"]], "raw": {}}';
const EXPECTED = '41ab6ce83f04c7a5557e14c3f6dbc795a539842266ff710a0c49a4900b972ef6';

describe('message_signature', () => {
  it("matches Ceilometer's compute_signature, integral floats and non-ASCII text included", () => {
    expect(computeSignature(parsePyJson(MESSAGE) as Record<string, unknown>, 'secret')).toBe(EXPECTED);
  });

  it('verifies a signed message and refuses a tampered, unsigned or differently keyed one', () => {
    const msg = { ...(parsePyJson(MESSAGE) as Record<string, unknown>), message_signature: EXPECTED };
    expect(verifySignature(msg, 'secret')).toBe(true);
    expect(verifySignature({ ...msg, event_type: 'x' }, 'secret')).toBe(false);
    expect(verifySignature({ ...msg, message_signature: undefined }, 'secret')).toBe(false);
    expect(verifySignature(msg, 'other')).toBe(false);
    expect(verifySignature({ ...msg, message_signature: 'nonsense' }, '')).toBe(true);
  });

  it('hashes a __proto__ key inside a list like any other key', () => {
    const withKey = JSON.parse('{"message_id":"a","raw":{"x":[{"__proto__":1,"b":2}]}}');
    const without = JSON.parse('{"message_id":"a","raw":{"x":[{"b":2}]}}');
    expect(computeSignature(withKey, 'secret')).not.toBe(computeSignature(without, 'secret'));
  });
});
