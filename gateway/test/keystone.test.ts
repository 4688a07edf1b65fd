/**
 * The gateway against a real Keystone (Debian's package, SQLite, fernet tokens; packages/testing/src/keystone.ts): tokens it
 * issued (project- and domain-scoped, admin and member), revoked and expired tokens, the Redis token cache and its
 * in-process fallback, and Keystone being unreachable.
 */
import { randomBytes } from 'node:crypto';
import { type RunningKeystone, startKeystone, startTestStack, type TestStack, waitFor } from '@stratum/testing';
import { Redis } from 'ioredis';
import request from 'supertest';

const REDIS_URL = process.env.STRATUM_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/0';
/** Lifetime of the tokens this Keystone issues: short, so one test can watch a token expire. */
const TOKEN_LIFETIME_S = 30;

/** Keystone's REST API as its admin (to arrange users, projects, roles and tokens). */
class KeystoneAdmin {
  constructor(
    private readonly keystone: RunningKeystone,
    private token = '',
  ) {}

  async call(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
    this.token ||= await this.keystone.adminToken();
    const res = await fetch(`${this.keystone.url}${path}`, {
      method,
      headers: { 'X-Auth-Token': this.token, 'Content-Type': 'application/json' },
      body: body ? JSON.stringify(body) : undefined,
    });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.status === 204 ? {} : ((await res.json()) as Record<string, unknown>);
  }

  async create(kind: 'domains' | 'projects' | 'users', body: Record<string, unknown>): Promise<string> {
    const key = kind.slice(0, -1);
    const out = await this.call('POST', `/${kind}`, { [key]: body });
    return (out[key] as { id: string }).id;
  }

  async roleId(name: string): Promise<string> {
    const out = await this.call('GET', `/roles?name=${name}`);
    return (out.roles as { id: string }[])[0]?.id as string;
  }

  /** Issues a token for `user` (password method) with the given scope. @returns the token and its body. */
  async issue(user: string, password: string, scope: Record<string, unknown>): Promise<{ token: string; body: { expires_at: string } }> {
    const res = await fetch(`${this.keystone.url}/auth/tokens`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        auth: { identity: { methods: ['password'], password: { user: { id: user, password } } }, scope },
      }),
    });
    const token = res.headers.get('x-subject-token');
    if (res.status !== 201 || !token) throw new Error(`token for ${user}: ${res.status} ${await res.text()}`);
    return { token, body: ((await res.json()) as { token: { expires_at: string } }).token };
  }

  async revoke(token: string): Promise<void> {
    this.token ||= await this.keystone.adminToken();
    const res = await fetch(`${this.keystone.url}/auth/tokens`, {
      method: 'DELETE',
      headers: { 'X-Auth-Token': this.token, 'X-Subject-Token': token },
    });
    if (res.status !== 204) throw new Error(`revoke: ${res.status}`);
  }
}

const hex = (n: number) => randomBytes(n).toString('hex');

describe('gateway with Keystone tokens', () => {
  let keystone: RunningKeystone;
  let admin: KeystoneAdmin;
  let stack: TestStack;
  let redis: Redis;
  const password = hex(8);
  let projectA = '';
  let projectB = '';
  let department = '';
  const tokens: Record<'cloudAdmin' | 'memberA' | 'memberB' | 'deptAdmin' | 'deptMember' | 'expiring', string> = {
    cloudAdmin: '',
    memberA: '',
    memberB: '',
    deptAdmin: '',
    deptMember: '',
    expiring: '',
  };
  let expiringAt = 0;

  beforeAll(async () => {
    keystone = await startKeystone({ tokenExpirationSeconds: TOKEN_LIFETIME_S });
    admin = new KeystoneAdmin(keystone);
    department = await admin.create('domains', { name: `dept-${hex(4)}` });
    projectA = await admin.create('projects', { name: `a-${hex(4)}`, domain_id: 'default' });
    projectB = await admin.create('projects', { name: `b-${hex(4)}`, domain_id: department });
    const [adminRole, memberRole] = [await admin.roleId('admin'), await admin.roleId('member')];
    const user = async (domain: string, grants: [string, string, string][]) => {
      const id = await admin.create('users', { name: `u-${hex(4)}`, domain_id: domain, password });
      for (const [kind, target, role] of grants) await admin.call('PUT', `/${kind}/${target}/users/${id}/roles/${role}`);
      return id;
    };
    const alice = await user('default', [['projects', projectA, memberRole]]);
    const bob = await user(department, [['projects', projectB, memberRole]]);
    const dora = await user(department, [['domains', department, adminRole]]);
    const dave = await user(department, [['domains', department, memberRole]]);
    const cloud = await user('default', [['projects', projectA, adminRole]]);
    tokens.memberA = (await admin.issue(alice, password, { project: { id: projectA } })).token;
    tokens.memberB = (await admin.issue(bob, password, { project: { id: projectB } })).token;
    tokens.deptAdmin = (await admin.issue(dora, password, { domain: { id: department } })).token;
    tokens.deptMember = (await admin.issue(dave, password, { domain: { id: department } })).token;
    tokens.cloudAdmin = (await admin.issue(cloud, password, { project: { id: projectA } })).token;
    const expiring = await admin.issue(alice, password, { project: { id: projectA } });
    tokens.expiring = expiring.token;
    expiringAt = Date.parse(expiring.body.expires_at);

    stack = await startTestStack({ gatewayEnv: { ...keystoneEnv(), REDIS_URL, TOKEN_CACHE_SECONDS: '2' } });
    redis = new Redis(REDIS_URL);
  }, 120_000);
  afterAll(async () => {
    redis?.disconnect();
    await stack?.close();
    await keystone?.stop();
  });

  /** The gateway's settings for this Keystone, with its admin as the service user. */
  const keystoneEnv = () => ({
    TOKENS_FILE: '',
    ...keystone.serviceEnv(),
  });
  const get = (path: string, token: string) => request(stack.gateway).get(path).set('X-Auth-Token', token);
  const cacheCount = async (result: string, of: TestStack = stack) =>
    (await of.gatewayDeps.metrics.tokenCache.get()).values.find((v) => v.labels.result === result)?.value ?? 0;

  it('lets a project member read their own project and no other', async () => {
    const own = await get(`/v2.0/lbaas/quotas/${projectA}`, tokens.memberA);
    expect(own.status).toBe(200);
    expect(own.body.quota).toHaveProperty('load_balancer');
    expect((await get(`/v2.0/lbaas/quotas/${projectB}`, tokens.memberA)).status).toBe(403);
    expect((await get(`/v2.0/lbaas/quotas/${projectB}`, tokens.memberB)).status).toBe(200);
  });

  it('forwards a member of a project in another domain with that project, and refuses them a change', async () => {
    const res = await request(stack.gateway)
      .put(`/v2.0/lbaas/quotas/${projectB}`)
      .set('X-Auth-Token', tokens.memberB)
      .send({ quota: { pool: 3 } });
    expect(res.status).toBe(403);
    expect(res.body.faultstring).toBe('Policy does not allow this request to be performed.');
  });

  it('treats admin on a project of the Default domain as cloud admin', async () => {
    const res = await request(stack.gateway)
      .put(`/v2.0/lbaas/quotas/${projectB}`)
      .set('X-Auth-Token', tokens.cloudAdmin)
      .send({ quota: { pool: 7 } });
    expect(res.status).toBe(202);
    expect((await get(`/v2.0/lbaas/quotas/${projectB}`, tokens.memberB)).body.quota.pool).toBe(7);
    expect((await get('/v3/domain_usage', tokens.cloudAdmin)).status).toBe(200);
  });

  it('treats admin on a domain-scoped token as that department’s admin only', async () => {
    const registered = await request(stack.gateway)
      .put(`/v3/domain_quota_registry/domains/${department}`)
      .set('X-Auth-Token', tokens.cloudAdmin)
      .send({ domain: { name: 'Keystone department' } });
    expect([200, 201]).toContain(registered.status);
    const own = await get(`/v3/domain_quotas/${department}`, tokens.deptAdmin);
    expect(own.status).toBe(200);
    expect(own.body).toHaveProperty('domain');
    expect((await get(`/v3/domain_quotas/${hex(16)}`, tokens.deptAdmin)).status).toBe(403);
    expect((await get('/v3/domain_usage', tokens.deptAdmin)).status).toBe(403);
    // A member (not admin) of the department, on a domain-scoped token, may not read its quotas.
    expect((await get(`/v3/domain_quotas/${department}`, tokens.deptMember)).status).toBe(403);
  });

  it('refuses a token Keystone does not know, in Keystone’s 401 shape', async () => {
    const res = await get('/v2.0/lbaas/quotas/defaults', `gAAAAA${hex(40)}`);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      error: { code: 401, title: 'Unauthorized', message: 'The request you have made requires authentication.' },
    });
  });

  it('refuses a revoked token: at once when it was never seen, within TOKEN_CACHE_SECONDS when it was cached', async () => {
    const fresh = (await admin.issue(await userOf(tokens.memberA), password, { project: { id: projectA } })).token;
    await admin.revoke(fresh);
    expect((await get('/v2.0/lbaas/quotas/defaults', fresh)).status).toBe(401);

    const used = (await admin.issue(await userOf(tokens.memberA), password, { project: { id: projectA } })).token;
    expect((await get('/v2.0/lbaas/quotas/defaults', used)).status).toBe(200);
    await admin.revoke(used);
    // Refused once the cached answer is older than TOKEN_CACHE_SECONDS (2 s here), well before the token expires.
    await waitFor('the revoked token to be refused', async () => (await get('/v2.0/lbaas/quotas/defaults', used)).status === 401, 15_000);
  });

  it('caches a valid token by its digest in Redis, never the token itself, and answers repeats from memory', async () => {
    const before = { memory: await cacheCount('memory'), miss: await cacheCount('miss') };
    const token = (await admin.issue(await userOf(tokens.memberA), password, { project: { id: projectA } })).token;
    for (let i = 0; i < 3; i++) expect((await get('/v2.0/lbaas/quotas/defaults', token)).status).toBe(200);
    expect((await cacheCount('miss')) - before.miss).toBe(1);
    expect((await cacheCount('memory')) - before.memory).toBe(2);
    const keys = await redis.keys(`stratum:test:*:gateway:token:*`);
    expect(keys.length).toBeGreaterThan(0);
    for (const k of keys) {
      expect(k).not.toContain(token);
      expect(await redis.get(k)).not.toContain(token);
    }
  });

  it('with Redis down, caches in process; and stops accepting a cached token once it expires', async () => {
    // A second gateway: a long cache time (the token's expires_at is what ends it) and a Redis that is not there.
    const other = await startTestStack({
      gatewayEnv: { ...keystoneEnv(), REDIS_URL: 'redis://127.0.0.1:1/0', TOKEN_CACHE_SECONDS: '3600' },
    });
    try {
      for (let i = 0; i < 2; i++)
        expect((await request(other.gateway).get('/v2.0/lbaas/quotas/defaults').set('X-Auth-Token', tokens.expiring)).status).toBe(200);
      expect([await cacheCount('miss', other), await cacheCount('memory', other)]).toEqual([1, 1]);
      // Only its expires_at can end the cached answer (the cache time is an hour): refused once it has passed.
      const status = async () =>
        (await request(other.gateway).get('/v2.0/lbaas/quotas/defaults').set('X-Auth-Token', tokens.expiring)).status;
      await waitFor('the expired token to be refused', async () => (await status()) === 401, Math.max(0, expiringAt - Date.now()) + 15_000);
    } finally {
      await other.close();
    }
  }, 60_000);

  it('answers 503 in the group’s shape while Keystone cannot be reached', async () => {
    const other = await startTestStack({
      gatewayEnv: { TOKENS_FILE: '', KEYSTONE_URL: 'http://127.0.0.1:9/v3', KEYSTONE_USERNAME: 'admin', KEYSTONE_PASSWORD: 'x' },
    });
    try {
      const res = await request(other.gateway).get('/v2.0/lbaas/quotas/defaults').set('X-Auth-Token', tokens.memberA);
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ faultcode: 'Server', faultstring: 'The identity service is unavailable.', debuginfo: null });
      const ready = await request(other.gateway).get('/ready');
      expect(ready.status).toBe(503);
      expect(ready.body.checks.keystone).toEqual({ status: 'down', required: true });
    } finally {
      await other.close();
    }
  });

  /** The user id a token stands for (Keystone's own answer). */
  async function userOf(token: string): Promise<string> {
    const res = await fetch(`${keystone.url}/auth/tokens`, { headers: { 'X-Auth-Token': token, 'X-Subject-Token': token } });
    return ((await res.json()) as { token: { user: { id: string } } }).token.user.id;
  }
});
