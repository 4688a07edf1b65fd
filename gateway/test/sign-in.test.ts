/**
 * The console's Keystone sign-in (`POST /console/auth/tokens`, gateway/src/sign-in/) against a real Keystone (Debian's
 * package; packages/testing/src/keystone.ts): a token issued for the bootstrapped admin that then works on the API,
 * refusals in Keystone's shape, every malformed body a 4xx, the rate limits per user and per (forwarded) address, the
 * static-token gateway not offering it, nothing secret in the logs, and Keystone stopped (503; last, as it stops it).
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
    KEYSTONE_URL: keystone.url,
    KEYSTONE_USERNAME: 'admin',
    KEYSTONE_PASSWORD: keystone.adminPassword,
    KEYSTONE_PROJECT_NAME: 'admin',
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
    for (const method of ['get', 'put', 'delete'] as const) {
      const res = await request(stack.gateway)[method]('/console/auth/tokens');
      expect([method, res.status, res.headers.allow, res.body]).toEqual([method, 405, 'POST', keystoneError(405)]);
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

  // Last: it stops the file's Keystone.
  it("answers 503 in Keystone's shape when Keystone is stopped", async () => {
    await keystone.stop();
    const res = await signIn(passwordAuth('admin', keystone.adminPassword));
    expect([res.status, res.body]).toEqual([503, keystoneError(503, 'The identity service is unavailable.')]);
    expect(res.headers['retry-after']).toBe('5');
  });
});
