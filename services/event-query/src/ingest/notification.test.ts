import { isCompatibleEnvelopeVersion } from './notification';

describe("oslo envelope version (oslo.messaging's version_is_compatible against 2.0)", () => {
  it.each(['2.0', '2.0.0', ' 2.0'])('reads %p', (v) => {
    expect(isCompatibleEnvelopeVersion(v)).toBe(true);
  });

  it.each(['9.0', '1.0', '3.0', '2.1', '2.0.1', '2', 'two.zero', '', 2, null, undefined])('refuses %p', (v) => {
    expect(isCompatibleEnvelopeVersion(v)).toBe(false);
  });
});
