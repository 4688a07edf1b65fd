/**
 * The console's Keystone sign-in (`POST /console/auth/tokens`, gateway/src/sign-in/) against a real Keystone (Debian's
 * package; packages/testing/src/keystone.ts): a token issued for the bootstrapped admin that then works on the API,
 * refusals in Keystone's shape, every malformed body a 4xx, the rate limits per user and per (forwarded) address, the
 * static-token gateway not offering it, nothing secret in the logs, and Keystone stopped (503; last, as it stops it).
 * And `GET /console/auth/tokens`, who the caller's own token stands for: project- and system-scoped Keystone tokens,
 * 401 without a valid one, another user's token in `X-Subject-Token` ignored; with static tokens, each persona's own
 * identity and scope, and the per-token rate limit.
 */
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { type RunningKeystone, startKeystone, startTestStack, type TestStack } from '@stratum/testing';
import pino from 'pino';
import request from 'supertest';

jest.setTimeout(60_000);

const REDIS_URL = process.env.STRATUM_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/0';
const hex = (n: number) => randomBytes(n).toString('hex');

/** Keystone's error envelope with `code` and `message`. */
const keystoneError = (code: number, message: string | RegExp = expect.any(String)) => ({
  error: { code, title: expect.any(String), message: message instanceof RegExp ? expect.stringMatching(message) : message },
});

/** A v3 password-auth body for `name`/`password` in domain Default, with `scope` (default: project admin). */
const passwordAuth = (name: string, password: string, scope: unknown = { project: { name: 'admin', domain: { name: 'Default' } } }) => ({
  auth: { identity: { methods: ['password'], password: { user: { name, domain: { name: 'Default' }, password } } }, scope },
});

describe('console sign-in with Keystone credentials', () => {
  let keystone: RunningKeystone;
  let stack: TestStack;
  let limited: TestStack;
  const lines: string[] = [];

  /** The gateway's settings for this Keystone, with its admin as the service user. */
  const keystoneEnv = () => ({
    TOKENS_FILE: '',
    ...keystone.serviceEnv(),
    REDIS_URL,
  });

  beforeAll(async () => {
    keystone = await startKeystone();
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    [stack, limited] = await Promise.all([
      startTestStack({
        gatewayEnv: { ...keystoneEnv(), RATE_LIMIT_SIGN_IN_PER_ADDRESS: '1000/60', RATE_LIMIT_SIGN_IN_PER_USER: '1000/60' },
        // The most talkative level: whatever the gateway writes about a sign-in is in `lines`.
        gatewayLogger: pino({ level: 'trace' }, sink),
      }),
      startTestStack({
        gatewayEnv: {
          ...keystoneEnv(),
          RATE_LIMIT_SIGN_IN_PER_ADDRESS: '4/60',
          RATE_LIMIT_SIGN_IN_PER_USER: '2/60',
          TRUSTED_PROXIES: '127.0.0.1, ::1',
        },
      }),
    ]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([stack?.close(), limited?.close()]);
    await keystone?.stop();
  });

  const signIn = (body: unknown, of: TestStack = stack) =>
    request(of.gateway)
      .post('/console/auth/tokens')
      .send(body as object);

  it('offers password and token sign-in at GET /console/auth', async () => {
    const res = await request(stack.gateway).get('/console/auth').expect(200);
    expect(res.body).toEqual({ methods: ['token', 'password'] });
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it("issues a project-scoped token (201, X-Subject-Token, no catalog) that then works on the API as the admin's", async () => {
    const res = await signIn(passwordAuth('admin', keystone.adminPassword));
    expect(res.status).toBe(201);
    const token = res.headers['x-subject-token'] as string;
    expect(token).toMatch(/^\S{20,}$/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body.token).toMatchObject({
      methods: ['password'],
      user: { name: 'admin', domain: { id: 'default', name: 'Default' } },
      project: { name: 'admin', domain: { id: 'default' } },
      expires_at: expect.any(String),
      issued_at: expect.any(String),
    });
    expect(res.body.token.roles.map((r: { name: string }) => r.name)).toContain('admin');
    expect(res.body.token).not.toHaveProperty('catalog');
    const usage = await request(stack.gateway).get('/v3/domain_usage').set('X-Auth-Token', token);
    expect(usage.status).toBe(200);
  });

  it('issues a system-scoped token the gateway takes as a cloud admin', async () => {
    const res = await signIn(passwordAuth('admin', keystone.adminPassword, { system: { all: true } }));
    expect(res.status).toBe(201);
    expect(res.body.token.system).toEqual({ all: true });
    const usage = await request(stack.gateway)
      .get('/v3/domain_usage')
      .set('X-Auth-Token', res.headers['x-subject-token'] as string);
    expect(usage.status).toBe(200);
  });

  it("answers a wrong password, an unknown user or a project the user has no role on 401 with Keystone's text", async () => {
    for (const body of [
      passwordAuth('admin', 'not-the-password'),
      passwordAuth(`nobody-${hex(4)}`, 'whatever'),
      passwordAuth('admin', keystone.adminPassword, { project: { name: `none-${hex(4)}`, domain: { name: 'Default' } } }),
    ]) {
      const res = await signIn(body);
      expect([res.status, res.body]).toEqual([401, keystoneError(401, 'The request you have made requires authentication.')]);
      expect(res.headers['x-subject-token']).toBeUndefined();
    }
  });

  const raw = (body: string, type = 'application/json') =>
    request(stack.gateway).post('/console/auth/tokens').set('Content-Type', type).send(body);
  const good = JSON.stringify(passwordAuth('admin', 'x'));

  it.each([
    ['not JSON', '{"auth": '],
    ['an empty body', ''],
    ['a JSON string (not an object)', '"auth"'],
    ['a __proto__ key', `{"__proto__": {"admin": true}, ${good.slice(1)}`],
    ['a constructor key in the user', good.replace('"name":"admin"', '"constructor":{"x":1},"name":"admin"')],
    ['a control character in the user name', good.replace('"name":"admin"', '"name":"ad\\u0000min"')],
    ['a newline in the password', good.replace('"password":"x"', '"password":"a\\nb"')],
    ['no password', good.replace(',"password":"x"', '')],
    ['the token method', good.replace('["password"]', '["token"]')],
    ['a user name of 256 characters', good.replace('"name":"admin"', `"name":"${'a'.repeat(256)}"`)],
    ['a password of 4097 characters', good.replace('"password":"x"', `"password":"${'p'.repeat(4097)}"`)],
    ['no scope', JSON.stringify({ auth: { identity: passwordAuth('admin', 'x').auth.identity } })],
  ])("refuses %s with a 400 in Keystone's shape, naming the field and never echoing the value", async (name, body) => {
    const res = await raw(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject(
      keystoneError(
        400,
        name === 'not JSON' || name === 'a JSON string (not an object)'
          ? 'Expecting to find valid JSON in request body.'
          : /^Invalid input for field '[^']+': /,
      ),
    );
    expect(JSON.stringify(res.body)).not.toMatch(/ppppp|a\\nb/);
  });

  it('refuses a body that is not JSON with a 415, one past 16 KiB with a 413, and other methods with a 405', async () => {
    const text = await raw(good, 'text/plain');
    expect([text.status, text.body]).toEqual([415, keystoneError(415)]);
    const form = await raw('auth=1', 'application/x-www-form-urlencoded');
    expect(form.status).toBe(415);
    const huge = await raw(JSON.stringify({ ...passwordAuth('admin', 'x'), pad: 'x'.repeat(17 * 1024) }));
    expect([huge.status, huge.body]).toEqual([413, keystoneError(413)]);
    for (const method of ['put', 'delete', 'patch'] as const) {
      const res = await request(stack.gateway)[method]('/console/auth/tokens');
      expect([method, res.status, res.headers.allow, res.body]).toEqual([method, 405, 'GET, HEAD, POST', keystoneError(405)]);
    }
    const methods = await request(stack.gateway).post('/console/auth').send({});
    expect([methods.status, methods.headers.allow]).toEqual([405, 'GET, HEAD']);
  });

  it('limits attempts per user (every attempt counted, names compared lower-cased) with a 429 and Retry-After', async () => {
    const user = `guess-${hex(4)}`;
    const from = (address: string, name: string) => signIn(passwordAuth(name, 'wrong'), limited).set('X-Forwarded-For', address);
    expect((await from('192.0.2.1', user)).status).toBe(401);
    expect((await from('192.0.2.2', user.toUpperCase())).status).toBe(401);
    const res = await from('192.0.2.3', user);
    expect([res.status, res.body]).toEqual([429, keystoneError(429, /user/)]);
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
    const counted = (await limited.gatewayDeps.metrics.rateLimited.get()).values.find((v) => v.labels.scope === 'sign_in_user');
    expect(counted?.value).toBeGreaterThanOrEqual(1);
  });

  it("limits attempts per client address, a trusted proxy's forwarded one, malformed attempts counted too", async () => {
    const address = `198.51.100.${1 + Math.floor(Math.random() * 250)}`;
    const attempt = (body: unknown, from = address) => signIn(body, limited).set('X-Forwarded-For', `203.0.113.9, ${from}`);
    expect((await attempt(passwordAuth(`a-${hex(4)}`, 'wrong'))).status).toBe(401);
    expect((await attempt({ auth: {} })).status).toBe(400);
    expect((await attempt(passwordAuth(`b-${hex(4)}`, 'wrong'))).status).toBe(401);
    expect((await attempt(passwordAuth(`c-${hex(4)}`, 'wrong'))).status).toBe(401);
    const refused = await attempt(passwordAuth('admin', keystone.adminPassword));
    expect([refused.status, refused.body]).toEqual([429, keystoneError(429, /address/)]);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Another client behind the same proxy is counted on its own.
    expect((await attempt(passwordAuth('admin', keystone.adminPassword), '2001:db8::7')).status).toBe(201);
  });

  it('never writes the password or the issued token to the log', async () => {
    const password = keystone.adminPassword;
    const wrong = `wrong-${hex(8)}`;
    lines.length = 0;
    const ok = await signIn(passwordAuth('admin', password)).expect(201);
    const token = ok.headers['x-subject-token'] as string;
    await signIn(passwordAuth('admin', wrong)).expect(401);
    await raw(good.replace('"password":"x"', `"password":"${wrong}\\u0001"`)).expect(400);
    await request(stack.gateway).get('/v3/domain_usage').set('X-Auth-Token', token).expect(200);
    // The access log and the sign-in's own lines were written (the capture works) ...
    expect(lines.some((l) => l.includes('/console/auth/tokens') && l.includes('"statusCode":201'))).toBe(true);
    expect(lines.some((l) => l.includes('"msg":"console sign-in"'))).toBe(true);
    // ... and hold neither secret.
    const all = lines.join('\n');
    expect(all).not.toContain(password);
    expect(all).not.toContain(wrong);
    expect(all).not.toContain(token);
  });

  it('with static tokens, offers the token only: GET /console/auth says so and POST /console/auth/tokens is a 404', async () => {
    const plain = await startTestStack();
    try {
      expect((await request(plain.gateway).get('/console/auth').expect(200)).body).toEqual({ methods: ['token'] });
      const res = await request(plain.gateway).post('/console/auth/tokens').send(passwordAuth('admin', 'x'));
      expect([res.status, res.body]).toEqual([404, keystoneError(404, /not offered/)]);
    } finally {
      await plain.close();
    }
  });

  describe("GET /console/auth/tokens: who the caller's own Keystone token stands for", () => {
    const whoAmI = (token: string) => request(stack.gateway).get('/console/auth/tokens').set('X-Auth-Token', token);

    /** A new user with role `reader` on project `admin`, and a token it signed in for there. */
    async function readerToken(): Promise<{ userId: string; token: string }> {
      const admin = { 'X-Auth-Token': await keystone.adminToken(), 'Content-Type': 'application/json' };
      const ks = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
        const res = await fetch(`${keystone.url}${path}`, { method, headers: admin, body: body ? JSON.stringify(body) : undefined });
        expect([method, path, res.ok]).toEqual([method, path, true]);
        return (res.status === 204 ? undefined : await res.json()) as T;
      };
      type Id = { id: string };
      const name = `reader-${hex(4)}`;
      const password = hex(12);
      const { user } = await ks<{ user: Id }>('POST', '/users', { user: { name, domain_id: 'default', password } });
      const [project] = (await ks<{ projects: Id[] }>('GET', '/projects?name=admin')).projects;
      const [role] = (await ks<{ roles: Id[] }>('GET', '/roles?name=reader')).roles;
      await ks('PUT', `/projects/${project?.id}/users/${user.id}/roles/${role?.id}`);
      const signed = await signIn(passwordAuth(name, password)).expect(201);
      return { userId: user.id, token: signed.headers['x-subject-token'] as string };
    }

    it('answers a project-scoped token with its user, its project and domain, its roles, scope project (no-store)', async () => {
      const signed = await signIn(passwordAuth('admin', keystone.adminPassword)).expect(201);
      const res = await whoAmI(signed.headers['x-subject-token'] as string);
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toEqual({
        token: {
          user: { id: signed.body.token.user.id },
          project: { id: signed.body.token.project.id, domain: { id: 'default' } },
          domain: null,
          roles: expect.arrayContaining([{ name: 'admin' }]),
          scope: 'project',
        },
      });
      expect(res.body.token.roles).toHaveLength(signed.body.token.roles.length);
    });

    it('answers a system-scoped token with scope system, no project and no domain', async () => {
      const signed = await signIn(passwordAuth('admin', keystone.adminPassword, { system: { all: true } })).expect(201);
      const res = await whoAmI(signed.headers['x-subject-token'] as string).expect(200);
      expect(res.body.token).toMatchObject({ user: { id: signed.body.token.user.id }, project: null, domain: null, scope: 'system' });
      expect(res.body.token.roles).toContainEqual({ name: 'admin' });
    });

    it("answers no token, or one Keystone does not know, with the gateway's 401 and WWW-Authenticate", async () => {
      for (const res of [await request(stack.gateway).get('/console/auth/tokens'), await whoAmI(`gAAAAA${hex(40)}`)]) {
        expect([res.status, res.body]).toEqual([401, keystoneError(401, 'The request you have made requires authentication.')]);
        expect(res.headers['www-authenticate']).toMatch(/^Keystone uri="http:\/\/[^"]+\/identity"$/);
        expect(res.headers['cache-control']).toBeUndefined();
      }
    });

    it("ignores another user's token in X-Subject-Token: only the caller's own is told, and a subject alone is a 401", async () => {
      const reader = await readerToken();
      const admin = await keystone.adminToken();
      const res = await whoAmI(reader.token).set('X-Subject-Token', admin).expect(200);
      expect(res.body.token).toMatchObject({ user: { id: reader.userId }, roles: [{ name: 'reader' }], scope: 'project' });
      const subjectOnly = await request(stack.gateway).get('/console/auth/tokens').set('X-Subject-Token', admin);
      expect(subjectOnly.status).toBe(401);
    });
  });

  // Last: it stops the file's Keystone.
  it("answers 503 in Keystone's shape when Keystone is stopped", async () => {
    await keystone.stop();
    const res = await signIn(passwordAuth('admin', keystone.adminPassword));
    expect([res.status, res.body]).toEqual([503, keystoneError(503, 'The identity service is unavailable.')]);
    expect(res.headers['retry-after']).toBe('5');
    // The caller's identity too, for a token the gateway has not seen (nothing cached).
    const who = await request(stack.gateway)
      .get('/console/auth/tokens')
      .set('X-Auth-Token', `gAAAAA${hex(40)}`);
    expect([who.status, who.body]).toEqual([503, keystoneError(503)]);
  });
});

describe("GET /console/auth/tokens with static tokens: each persona's own identity", () => {
  let stack: TestStack;
  let limited: TestStack;
  beforeAll(async () => {
    [stack, limited] = await Promise.all([startTestStack(), startTestStack({ gatewayEnv: { RATE_LIMIT_PER_TOKEN: '2/60' } })]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([stack?.close(), limited?.close()]);
  });

  const whoAmI = (token: string, of: TestStack = stack) => request(of.gateway).get('/console/auth/tokens').set('X-Auth-Token', token);

  it('answers every persona with its own user, project, domain, roles and scope', async () => {
    const p = stack.personas;
    const expected = {
      admin: { project: { id: p.admin.projectId, domain: { id: 'default' } }, domain: null, scope: 'project' },
      memberA: { project: { id: stack.projectA, domain: { id: 'default' } }, domain: null, scope: 'project' },
      readerA: { project: { id: stack.projectA, domain: { id: 'default' } }, domain: null, scope: 'project' },
      memberB: { project: { id: stack.projectB, domain: { id: 'default' } }, domain: null, scope: 'project' },
      deptAdmin: { project: null, domain: { id: stack.deptDomainId }, scope: 'domain' },
      service: { project: { id: p.service.projectId, domain: { id: 'default' } }, domain: null, scope: 'project' },
    };
    for (const [who, persona] of Object.entries(p)) {
      const res = await whoAmI(persona.token);
      expect([who, res.status, res.headers['cache-control']]).toEqual([who, 200, 'no-store']);
      expect([who, res.body]).toEqual([
        who,
        {
          token: {
            user: { id: persona.userId },
            roles: persona.roles.map((name) => ({ name })),
            ...expected[who as keyof typeof expected],
          },
        },
      ]);
    }
  });

  it("ignores another persona's token in X-Subject-Token, and answers HEAD without a body", async () => {
    const res = await whoAmI(stack.personas.readerA.token).set('X-Subject-Token', stack.personas.admin.token).expect(200);
    expect(res.body.token.user.id).toBe(stack.personas.readerA.userId);
    const head = await request(stack.gateway).head('/console/auth/tokens').set('X-Auth-Token', stack.personas.deptAdmin.token);
    expect([head.status, head.text ?? '']).toEqual([200, '']);
  });

  it('refuses an unknown token 401 and other methods 405 (POST is the sign-in, not offered: 404)', async () => {
    const bad = await whoAmI(hex(32));
    expect([bad.status, bad.body, bad.headers['www-authenticate']]).toEqual([
      401,
      keystoneError(401),
      expect.stringMatching(/^Keystone uri=/),
    ]);
    const put = await request(stack.gateway).put('/console/auth/tokens').set('X-Auth-Token', stack.personas.admin.token);
    expect([put.status, put.headers.allow, put.body]).toEqual([405, 'GET, HEAD', keystoneError(405)]);
    const post = await request(stack.gateway).post('/console/auth/tokens').send({});
    expect(post.status).toBe(404);
  });

  it('counts each token against RATE_LIMIT_PER_TOKEN: 429 with Retry-After past it, other tokens unaffected', async () => {
    const token = limited.personas.memberA.token;
    expect((await whoAmI(token, limited)).status).toBe(200);
    expect((await whoAmI(token, limited)).status).toBe(200);
    const refused = await whoAmI(token, limited);
    expect([refused.status, refused.body]).toEqual([429, keystoneError(429, /token/)]);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await whoAmI(limited.personas.memberB.token, limited)).status).toBe(200);
    const counted = (await limited.gatewayDeps.metrics.rateLimited.get()).values.find(
      (v) => v.labels.group === 'gateway' && v.labels.scope === 'token',
    );
    expect(counted?.value).toBe(1);
  });
});
