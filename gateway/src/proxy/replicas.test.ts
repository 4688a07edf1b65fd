/** The replica picker (round-robin, cool-down, retry target) and which failures a read is retried on. */
import { failedToConnect, Replicas, retriable } from './replicas';

const A = 'http://a:1';
const B = 'http://b:1';
const C = 'http://c:1';

/** The replicas `count` picks at `now` go to, as URLs. */
const picks = (r: Replicas, count: number, now = 0): string[] => Array.from({ length: count }, () => r.urls[r.pick(now)] ?? 'none');

describe('Replicas', () => {
  it('sends every request to the only replica, and has none for a retry', () => {
    const r = new Replicas([A], 2000);
    expect(picks(r, 3)).toEqual([A, A, A]);
    expect(r.pick(0, 0)).toBe(-1);
    r.failed(0, 0);
    expect(r.pick(1)).toBe(0); // cooling down, but the only one
  });

  it('goes round-robin over the replicas in order', () => {
    expect(picks(new Replicas([A, B, C], 2000), 7)).toEqual([A, B, C, A, B, C, A]);
  });

  it('skips a replica that failed to connect until its cool-down has passed, then takes it back in turn', () => {
    const r = new Replicas([A, B, C], 2000);
    r.failed(1, 1000);
    expect(picks(r, 4, 1500)).toEqual([A, C, A, C]);
    expect(r.coolingDown(1, 2999)).toBe(true);
    expect(r.coolingDown(1, 3000)).toBe(false);
    expect(picks(r, 3, 3000)).toEqual([A, B, C]);
  });

  it('takes turns over all of them when every replica is cooling down', () => {
    const r = new Replicas([A, B], 2000);
    r.failed(0, 0);
    r.failed(1, 0);
    expect(picks(r, 4, 100)).toEqual([A, B, A, B]);
  });

  it('picks another replica for a retry: a live one first, a cooling one when no other is live', () => {
    const r = new Replicas([A, B, C], 2000);
    r.failed(0, 0);
    expect(r.urls[r.pick(10, 0)]).toBe(B);
    r.failed(1, 0);
    expect(r.urls[r.pick(10, 0)]).toBe(C);
    r.failed(2, 0);
    expect([B, C]).toContain(r.urls[r.pick(10, 0)]);
  });

  it('ends a cool-down when the replica answers again', () => {
    const r = new Replicas([A, B], 2000);
    r.failed(0, 0);
    r.succeeded(0);
    expect(r.coolingDown(0, 1)).toBe(false);
    expect(picks(r, 2, 1)).toEqual([A, B]);
  });

  it('refuses an empty list', () => {
    expect(() => new Replicas([], 2000)).toThrow('at least one replica');
  });
});

describe('retriable', () => {
  const base = { method: 'GET', code: 'ECONNREFUSED', responded: false, retried: false, timedOut: false };

  it.each(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'EHOSTUNREACH', 'UPSTREAM_CONNECT_TIMEOUT'])(
    'retries a GET or HEAD once on %s',
    (code) => {
      expect(retriable({ ...base, code })).toBe(true);
      expect(retriable({ ...base, code, method: 'HEAD' })).toBe(true);
      expect(retriable({ ...base, code, retried: true })).toBe(false);
    },
  );

  it.each(['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])('retries a %s only when the replica was never reached', (method) => {
    for (const code of ['ECONNREFUSED', 'EHOSTUNREACH', 'UPSTREAM_CONNECT_TIMEOUT']) {
      expect(retriable({ ...base, method, code })).toBe(true);
      expect(retriable({ ...base, method, code, retried: true })).toBe(false);
    }
    // A reset or broken pipe may come after the write was applied.
    expect(retriable({ ...base, method, code: 'ECONNRESET' })).toBe(false);
    expect(retriable({ ...base, method, code: 'EPIPE' })).toBe(false);
  });

  it('never retries once a response began, after a timeout, or on garbage from the upstream', () => {
    expect(retriable({ ...base, code: 'ECONNRESET', responded: true })).toBe(false);
    expect(retriable({ ...base, code: 'ECONNRESET', timedOut: true })).toBe(false);
    expect(retriable({ ...base, code: 'HPE_INVALID_CONSTANT' })).toBe(false);
    expect(retriable({ ...base, code: undefined })).toBe(false);
  });

  it('counts only a failure to reach the replica as a failure to connect (a reset may be a closed idle connection)', () => {
    expect(failedToConnect('ECONNREFUSED')).toBe(true);
    expect(failedToConnect('UPSTREAM_CONNECT_TIMEOUT')).toBe(true);
    expect(failedToConnect('ECONNRESET')).toBe(false);
    expect(failedToConnect(undefined)).toBe(false);
  });
});
