/** The status of an upstream failure. */
import { upstreamStatus } from './proxy';

const failure = (code?: string): NodeJS.ErrnoException => Object.assign(new Error('upstream'), { code });

describe('upstreamStatus', () => {
  it.each(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'UPSTREAM_CONNECT_TIMEOUT'])(
    'is 503 for %s (nobody there)',
    (code) => {
      expect(upstreamStatus(failure(code), false)).toBe(503);
    },
  );

  it.each(['ETIMEDOUT', 'ESOCKETTIMEDOUT'])('is 504 for %s', (code) => {
    expect(upstreamStatus(failure(code), false)).toBe(504);
  });

  it('is 504 for whatever the failure once the upstream took too long (http-proxy reports a reset)', () => {
    expect(upstreamStatus(failure('ECONNRESET'), true)).toBe(504);
  });

  it.each(['ECONNRESET', 'HPE_INVALID_CONSTANT', undefined])('is 502 for %s', (code) => {
    expect(upstreamStatus(failure(code), false)).toBe(502);
  });
});
