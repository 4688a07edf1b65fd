import { signIdentity, verifyIdentity } from './index';

const secret = 'a-test-secret-of-some-length';
const id = { userId: 'u1', projectId: 'p1', domainId: 'default', roles: ['member', 'reader'] };

describe('signed identity headers', () => {
  it('round-trips a signed identity', () => {
    expect(verifyIdentity(signIdentity(id, secret), secret)).toEqual({ ok: true, identity: id });
  });

  it('refuses a changed role, a wrong secret, a missing signature and a stale timestamp', () => {
    const h = signIdentity(id, secret);
    expect(verifyIdentity({ ...h, 'x-roles': 'admin' }, secret)).toEqual({ ok: false, reason: 'bad_signature' });
    expect(verifyIdentity(h, `${secret}x`)).toEqual({ ok: false, reason: 'bad_signature' });
    expect(verifyIdentity({ ...h, 'x-identity-signature': undefined }, secret)).toEqual({ ok: false, reason: 'missing' });
    const old = signIdentity(id, secret, Date.now() - 120_000);
    expect(verifyIdentity(old, secret, 60)).toEqual({ ok: false, reason: 'stale' });
  });
});
