import { bodyDigest, EMPTY_BODY_SHA256, signIdentity, verifyIdentity } from './index';

const secret = 'a-test-secret-of-some-length';
const id = { userId: 'u1', projectId: 'p1', domainId: 'default', roles: ['member', 'reader'] };
const get = { method: 'GET', url: '/v2.0/lbaas/quotas/p1?fields=load_balancer' };

describe('signed identity headers', () => {
  it('round-trips a signed identity with the request it was signed for', () => {
    expect(verifyIdentity(signIdentity(id, secret, get), secret, get)).toEqual({ ok: true, identity: id, bodyDigest: EMPTY_BODY_SHA256 });
    const put = { method: 'PUT', url: '/v2.0/lbaas/quotas/p1', body: '{"quota":{}}' };
    expect(verifyIdentity(signIdentity(id, secret, put), secret, put)).toMatchObject({ ok: true, bodyDigest: bodyDigest('{"quota":{}}') });
  });

  it('refuses a changed role, a wrong secret, a missing signature and a stale timestamp', () => {
    const h = signIdentity(id, secret, get);
    expect(verifyIdentity({ ...h, 'x-roles': 'admin' }, secret, get)).toEqual({ ok: false, reason: 'bad_signature' });
    expect(verifyIdentity(h, `${secret}x`, get)).toEqual({ ok: false, reason: 'bad_signature' });
    expect(verifyIdentity({ ...h, 'x-identity-signature': undefined }, secret, get)).toEqual({ ok: false, reason: 'missing' });
    expect(verifyIdentity({ ...h, 'x-identity-body-sha256': undefined }, secret, get)).toEqual({ ok: false, reason: 'missing' });
    const old = signIdentity(id, secret, get, Date.now() - 11_000);
    expect(verifyIdentity(old, secret, get)).toEqual({ ok: false, reason: 'stale' });
    expect(verifyIdentity(old, secret, get, 60)).toMatchObject({ ok: true });
  });

  it('refuses a header set replayed on another method, path, query or body', () => {
    const h = signIdentity(id, secret, get);
    for (const other of [
      { method: 'DELETE', url: get.url },
      { method: 'GET', url: '/v2.0/lbaas/quotas/p2?fields=load_balancer' },
      { method: 'GET', url: '/v2.0/lbaas/quotas/p1' },
      { method: 'GET', url: '/v2.0/lbaas/quotas/p%31?fields=load_balancer' },
    ]) {
      expect(verifyIdentity(h, secret, other)).toEqual({ ok: false, reason: 'bad_signature' });
    }
    // Another body: the header must then claim another digest, which the signature does not cover.
    expect(verifyIdentity({ ...h, 'x-identity-body-sha256': bodyDigest('{}') }, secret, get)).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
  });
});
