import {
  bodyDigest,
  CLIENT_IDENTITY_HEADERS,
  EMPTY_BODY_SHA256,
  IDENTITY_VERSION,
  IdentityHeaders,
  identityVersionOf,
  isAdmin,
  isCloudAdmin,
  SUPPORTED_IDENTITY_VERSIONS,
  signIdentity,
  verifyIdentity,
} from './index';

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

  it('accepts a timestamp up to the window away either way (clock skew), and refuses one a second past it', () => {
    const now = 1_800_000_000_000;
    for (const skew of [-10_000, 10_000]) {
      expect(verifyIdentity(signIdentity(id, secret, get, now + skew), secret, get, 10, now)).toMatchObject({ ok: true });
    }
    for (const skew of [-11_000, 11_000]) {
      expect(verifyIdentity(signIdentity(id, secret, get, now + skew), secret, get, 10, now)).toEqual({ ok: false, reason: 'stale' });
    }
  });

  it('checks the signature before the age: a forged header set is bad_signature however old', () => {
    const old = signIdentity(id, secret, get, Date.now() - 3_600_000);
    expect(verifyIdentity({ ...old, 'x-roles': 'admin' }, secret, get)).toEqual({ ok: false, reason: 'bad_signature' });
  });

  it('refuses a repeated header, a status other than Confirmed and an empty user as missing', () => {
    const h = signIdentity(id, secret, get);
    expect(verifyIdentity({ ...h, 'x-user-id': ['u1', 'u2'] }, secret, get)).toEqual({ ok: false, reason: 'missing' });
    expect(verifyIdentity({ ...h, 'x-identity-status': 'Invalid' }, secret, get)).toEqual({ ok: false, reason: 'missing' });
    expect(verifyIdentity({ ...h, 'x-user-id': '' }, secret, get)).toEqual({ ok: false, reason: 'missing' });
  });

  it('refuses a timestamp that is not an integer, a digest that is not 64 hex digits and a short signature', () => {
    const h = signIdentity(id, secret, get);
    for (const bad of [
      { 'x-identity-timestamp': '12.5' },
      { 'x-identity-timestamp': 'now' },
      { 'x-identity-body-sha256': EMPTY_BODY_SHA256.toUpperCase() },
      { 'x-identity-body-sha256': `${EMPTY_BODY_SHA256}0` },
      { 'x-identity-signature': (h['x-identity-signature'] ?? '').slice(0, 62) },
      { 'x-identity-signature': 'zz' },
    ]) {
      expect(verifyIdentity({ ...h, ...bad }, secret, get)).toEqual({ ok: false, reason: 'bad_signature' });
    }
  });

  it('binds each field on its own: moving characters from one field to the next breaks the signature', () => {
    const h = signIdentity({ userId: 'ab', projectId: 'c', domainId: null, roles: [] }, secret, get);
    expect(verifyIdentity({ ...h, 'x-user-id': 'a', 'x-project-id': 'bc' }, secret, get)).toEqual({ ok: false, reason: 'bad_signature' });
  });

  it('signs the method in upper case; a scope without project or domain sends neither header', () => {
    const unscoped = { userId: 'u2', projectId: null, domainId: null, roles: [] };
    const h = signIdentity(unscoped, secret, { method: 'get', url: get.url });
    expect(h).not.toHaveProperty(IdentityHeaders.projectId);
    expect(h).not.toHaveProperty(IdentityHeaders.domainId);
    expect(verifyIdentity(h, secret, get)).toEqual({ ok: true, identity: unscoped, bodyDigest: EMPTY_BODY_SHA256 });
  });

  it('verifies the roles header as sent, and reads the roles from it trimmed and in lower case', () => {
    const h = signIdentity({ ...id, roles: ['Member', ' Reader'] }, secret, get);
    expect(verifyIdentity(h, secret, get)).toMatchObject({ ok: true, identity: { roles: ['member', 'reader'] } });
    expect(verifyIdentity({ ...h, 'x-roles': 'member,reader' }, secret, get)).toEqual({ ok: false, reason: 'bad_signature' });
  });

  it('lists every header it signs among those the gateway strips from clients', () => {
    for (const name of Object.values(IdentityHeaders)) expect(CLIENT_IDENTITY_HEADERS).toContain(name);
  });
});

describe('identity format versions (gateway/README.md "Versions and rolling upgrades")', () => {
  const now = 1_800_000_000_000;
  const at = (h: Record<string, string | undefined>) => verifyIdentity(h, secret, get, 10, now);

  it('signs version 1, which this build verifies', () => {
    expect(IDENTITY_VERSION).toBe(1);
    expect(SUPPORTED_IDENTITY_VERSIONS).toEqual([1]);
    expect(signIdentity(id, secret, get)[IdentityHeaders.version]).toBe('1');
  });

  it("keeps version 1's signature byte for byte what gateways sent before the header (a known answer)", () => {
    const h = signIdentity(id, secret, get, now);
    expect(h[IdentityHeaders.signature]).toBe('dd8082636e590f40c3b41c2d18e3b0ec308a3e7258da35388793b54836613471');
  });

  it('takes a request without X-Identity-Version as version 1 (a gateway from before the header)', () => {
    const { [IdentityHeaders.version]: _dropped, ...old } = signIdentity(id, secret, get, now);
    expect(at(old)).toEqual({ ok: true, identity: id, bodyDigest: EMPTY_BODY_SHA256 });
    expect(identityVersionOf(old)).toEqual({ ok: true, version: 1 });
  });

  it('refuses a version it does not know as unknown_version, naming the version as sent, before anything else', () => {
    const h = signIdentity(id, secret, get, now);
    for (const given of ['2', '0', '01x', '', 'v1', '9'.repeat(40)]) {
      expect(at({ ...h, [IdentityHeaders.version]: given })).toEqual({ ok: false, reason: 'unknown_version', version: given.slice(0, 32) });
    }
    // Unknown even with every other header missing: the reason a log line gives is the version, not "missing".
    expect(at({ [IdentityHeaders.version]: '2' })).toEqual({ ok: false, reason: 'unknown_version', version: '2' });
    expect(verifyIdentity({ ...h, [IdentityHeaders.version]: ['1', '1'] }, secret, get, 10, now)).toEqual({
      ok: false,
      reason: 'unknown_version',
      version: '1,1',
    });
  });
});

describe('admin roles', () => {
  it("a cloud admin is admin on a token of the default domain or of no domain; a department's admin is not", () => {
    const admin = { userId: 'u', projectId: 'p', roles: ['admin'] };
    expect(isCloudAdmin({ ...admin, domainId: 'default' })).toBe(true);
    expect(isCloudAdmin({ ...admin, domainId: null })).toBe(true);
    expect(isCloudAdmin({ ...admin, domainId: 'dept' })).toBe(false);
    expect(isAdmin({ ...admin, domainId: 'dept' })).toBe(true);
    expect(isCloudAdmin({ ...admin, domainId: 'default', roles: ['member'] })).toBe(false);
  });
});
