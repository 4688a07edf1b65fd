/**
 * The Keystone client against a stub Keystone: a node:http server on a free loopback port that answers as Keystone's
 * v3 API does (status, X-Subject-Token, JSON bodies) and records what it was asked.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KeystoneClient, KeystoneEnv, KeystoneError } from './index';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

/** A stub Keystone: `answer` decides each response; every request is kept in `seen`. */
class StubKeystone {
  readonly seen: Seen[] = [];
  private server!: Server;
  url = '';
  /** Set per test; the default issues token `tok-<n>` valid for an hour and knows project `p1`. */
  answer: (req: Seen, res: ServerResponse) => void = (req, res) => this.standard(req, res);
  private issued = 0;

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => {
        raw += c;
      });
      req.on('end', () => {
        const seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: raw ? JSON.parse(raw) : undefined };
        this.seen.push(seen);
        this.answer(seen, res);
      });
    });
    await new Promise<void>((ok) => this.server.listen(0, '127.0.0.1', ok));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((ok) => this.server.close(() => ok()));
  }

  /** Issues a token expiring at `expiresAt` (ISO 8601). */
  issue(res: ServerResponse, expiresAt = new Date(Date.now() + 3_600_000).toISOString()): void {
    this.issued++;
    res.writeHead(201, { 'Content-Type': 'application/json', 'X-Subject-Token': `tok-${this.issued}` });
    res.end(JSON.stringify({ token: { expires_at: expiresAt } }));
  }

  standard(req: Seen, res: ServerResponse): void {
    if (req.method === 'POST' && req.url === '/v3/auth/tokens') this.issue(res);
    else if (req.url === '/v3/projects/p1') {
      json(res, 200, { project: { id: 'p1', name: 'one', domain_id: 'd1', is_domain: false, enabled: true } });
    } else if (req.url === '/v3/domains/d1') json(res, 200, { domain: { id: 'd1', name: 'dept', enabled: true } });
    else json(res, 404, { error: { code: 404 } });
  }

  /** The GETs it answered (not the authentications). */
  gets(): Seen[] {
    return this.seen.filter((s) => s.method === 'GET');
  }

  posts(): Seen[] {
    return this.seen.filter((s) => s.method === 'POST');
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

const settings = (url: string, extra: Record<string, string> = {}) =>
  KeystoneEnv.parse({ KEYSTONE_URL: url, KEYSTONE_USERNAME: 'stratum', KEYSTONE_PASSWORD: 'pw', ...extra });

describe('KeystoneClient', () => {
  let ks: StubKeystone;
  beforeEach(async () => {
    ks = new StubKeystone();
    await ks.start();
  });
  afterEach(() => ks.stop());

  it("authenticates as the service user with keystoneauth's password payload, project-scoped", async () => {
    const client = new KeystoneClient(settings(ks.url, { KEYSTONE_PROJECT_NAME: 'svc', KEYSTONE_USER_DOMAIN_NAME: 'Users' }));
    expect(await client.serviceToken()).toBe('tok-1');
    expect(ks.posts()[0]?.body).toEqual({
      auth: {
        identity: { methods: ['password'], password: { user: { name: 'stratum', domain: { name: 'Users' }, password: 'pw' } } },
        scope: { project: { name: 'svc', domain: { name: 'Default' } } },
      },
    });
  });

  it.each(['', '/', '/v3', '/v3/', '//'])('takes the endpoint with or without /v3 (suffix %j)', async (suffix) => {
    const client = new KeystoneClient(settings(`${ks.url}${suffix}`));
    expect(await client.getProject('p1')).toMatchObject({ id: 'p1', domain_id: 'd1' });
    expect(ks.seen.map((s) => s.url)).toEqual(['/v3/auth/tokens', '/v3/projects/p1']);
  });

  it('keeps its token across look-ups, and authenticates once for concurrent first calls', async () => {
    const client = new KeystoneClient(settings(ks.url));
    await Promise.all([client.getProject('p1'), client.getDomain('d1'), client.serviceToken()]);
    await client.getProject('p1');
    expect(ks.posts()).toHaveLength(1);
    expect(ks.gets().map((g) => g.headers['x-auth-token'])).toEqual(['tok-1', 'tok-1', 'tok-1']);
  });

  it('authenticates again once its token is within the renewal margin of expiring', async () => {
    const client = new KeystoneClient(settings(ks.url));
    ks.answer = (req, res) => (req.method === 'POST' ? ks.issue(res, new Date(Date.now() + 30_000).toISOString()) : ks.standard(req, res));
    // 30 s of life: renewed a quarter of it early, so still good now.
    expect(await client.serviceToken()).toBe('tok-1');
    expect(await client.serviceToken()).toBe('tok-1');
    ks.answer = (req, res) => (req.method === 'POST' ? ks.issue(res, new Date(Date.now() - 1000).toISOString()) : ks.standard(req, res));
    const fresh = new KeystoneClient(settings(ks.url));
    expect(await fresh.serviceToken()).toBe('tok-2');
    expect(await fresh.serviceToken()).toBe('tok-3');
  });

  it('on a 401 to a look-up (a revoked token) authenticates once more and retries once', async () => {
    const client = new KeystoneClient(settings(ks.url));
    let refusals = 1;
    ks.answer = (req, res) => {
      if (req.method === 'GET' && refusals-- > 0) return json(res, 401, {});
      ks.standard(req, res);
    };
    expect(await client.getDomain('d1')).toMatchObject({ name: 'dept' });
    expect(ks.gets().map((g) => g.headers['x-auth-token'])).toEqual(['tok-1', 'tok-2']);

    refusals = 2;
    await expect(client.getDomain('d1')).rejects.toMatchObject({ name: 'KeystoneError', status: 401 });
  });

  it('answers null for what Keystone does not have and throws KeystoneError with the status of a failure', async () => {
    const client = new KeystoneClient(settings(ks.url));
    expect(await client.getProject('nope')).toBeNull();
    expect(await client.getDomain('nope')).toBeNull();
    ks.answer = (req, res) => (req.method === 'GET' ? json(res, 503, {}) : ks.standard(req, res));
    const err = await client.getProject('p1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KeystoneError);
    expect(err).toMatchObject({ status: 503, message: 'Keystone answered 503 to GET /v3/projects/p1' });
  });

  it('encodes the id into one path segment', async () => {
    const client = new KeystoneClient(settings(ks.url));
    expect(await client.getProject('../domains/d1')).toBeNull();
    expect(ks.gets()[0]?.url).toBe('/v3/projects/..%2Fdomains%2Fd1');
  });

  it('validates a token as keystonemiddleware does: service token, X-Subject-Token, no catalog; 404 is not valid', async () => {
    const client = new KeystoneClient(settings(ks.url));
    const token = { expires_at: '2030-01-01T00:00:00Z', user: { id: 'u1' }, project: { id: 'p1', domain: { id: 'd1' } } };
    ks.answer = (req, res) => {
      if (req.method === 'POST') return ks.issue(res);
      json(res, req.headers['x-subject-token'] === 'good' ? 200 : 404, { token });
    };
    expect(await client.validateToken('good')).toEqual(token);
    expect(await client.validateToken('bad')).toBeNull();
    expect(ks.gets()[0]).toMatchObject({
      url: '/v3/auth/tokens?nocatalog',
      headers: { 'x-auth-token': 'tok-1', 'x-subject-token': 'good' },
    });
  });

  it('refused credentials, or a 201 without a token, are a KeystoneError with the status', async () => {
    ks.answer = (_req, res) => json(res, 401, { error: { code: 401 } });
    await expect(new KeystoneClient(settings(ks.url)).getProject('p1')).rejects.toMatchObject({
      status: 401,
      message: 'Keystone refused the service credentials (HTTP 401)',
    });
    ks.answer = (_req, res) => json(res, 201, { token: {} });
    await expect(new KeystoneClient(settings(ks.url)).serviceToken()).rejects.toMatchObject({ status: 201 });
  });

  it('a Keystone that does not answer within KEYSTONE_TIMEOUT_MS, or cannot be reached, is status 0', async () => {
    ks.answer = () => undefined; // never answers
    const slow = new KeystoneClient(settings(ks.url, { KEYSTONE_TIMEOUT_MS: '100' }));
    await expect(slow.serviceToken()).rejects.toMatchObject({ name: 'KeystoneError', status: 0 });
    // A closed port: the next stub (for afterEach) is listening before this one closes, so it cannot take the port.
    const closed = ks;
    ks = new StubKeystone();
    await ks.start();
    await closed.stop();
    await expect(new KeystoneClient(settings(closed.url)).serviceToken()).rejects.toMatchObject({ status: 0 });
  });
});

describe('KeystoneClient.issueToken', () => {
  let ks: StubKeystone;
  beforeEach(async () => {
    ks = new StubKeystone();
    await ks.start();
  });
  afterEach(() => ks.stop());
  const auth = {
    auth: { identity: { methods: ['password'], password: { user: { name: 'u', domain: { name: 'Default' }, password: 'sekrit' } } } },
  };

  it('posts the body as given, without the service token, asking for no catalog; answers the token and its body', async () => {
    ks.answer = (_req, res) => {
      res.writeHead(201, { 'Content-Type': 'application/json', 'X-Subject-Token': 'user-tok' });
      res.end(JSON.stringify({ token: { expires_at: '2030-01-01T00:00:00Z', methods: ['password'], user: { id: 'u1' } } }));
    };
    const out = await new KeystoneClient(settings(ks.url)).issueToken(auth);
    expect(out).toEqual({
      kind: 'issued',
      token: 'user-tok',
      body: { expires_at: '2030-01-01T00:00:00Z', methods: ['password'], user: { id: 'u1' } },
    });
    expect(ks.seen).toHaveLength(1);
    expect(ks.seen[0]).toMatchObject({ method: 'POST', url: '/v3/auth/tokens?nocatalog', body: auth });
    expect(ks.seen[0]?.headers['x-auth-token']).toBeUndefined();
  });

  it('401, 403 and 404 are refusals; 400 is invalid; 5xx, a 201 without a token and no answer throw KeystoneError', async () => {
    const client = new KeystoneClient(settings(ks.url));
    for (const status of [401, 403, 404]) {
      ks.answer = (_req, res) => json(res, status, { error: { code: status, message: 'no' } });
      expect(await client.issueToken(auth)).toEqual({ kind: 'refused', status });
    }
    ks.answer = (_req, res) => json(res, 400, { error: { code: 400, message: "Invalid input for field 'password': sekrit" } });
    expect(await client.issueToken(auth)).toEqual({ kind: 'invalid' });
    ks.answer = (_req, res) => json(res, 503, {});
    await expect(client.issueToken(auth)).rejects.toMatchObject({ name: 'KeystoneError', status: 503 });
    ks.answer = (_req, res) => json(res, 201, { token: {} });
    await expect(client.issueToken(auth)).rejects.toMatchObject({ name: 'KeystoneError', status: 201 });
    ks.answer = () => undefined; // never answers
    const slow = new KeystoneClient(settings(ks.url, { KEYSTONE_TIMEOUT_MS: '200' }));
    const err = (await slow.issueToken(auth).catch((e: unknown) => e)) as KeystoneError;
    expect(err).toMatchObject({ name: 'KeystoneError', status: 0 });
    expect(err.message).not.toContain('sekrit');
  });
});

describe('KeystoneEnv and fromSettings', () => {
  it('no KEYSTONE_URL means no client', () => {
    expect(KeystoneClient.fromSettings(KeystoneEnv.parse({}))).toBeUndefined();
    expect(() => new KeystoneClient(KeystoneEnv.parse({}))).toThrow('KEYSTONE_URL is not set');
    expect(KeystoneClient.fromSettings(settings('http://127.0.0.1:5000/v3'))).toBeInstanceOf(KeystoneClient);
  });

  it("defaults to keystonemiddleware's domain and project names and a 5 s timeout of at least 100 ms", () => {
    expect(KeystoneEnv.parse({})).toMatchObject({
      KEYSTONE_USER_DOMAIN_NAME: 'Default',
      KEYSTONE_PROJECT_NAME: 'service',
      KEYSTONE_PROJECT_DOMAIN_NAME: 'Default',
      KEYSTONE_TIMEOUT_MS: 5000,
    });
    expect(KeystoneEnv.safeParse({ KEYSTONE_TIMEOUT_MS: '99' }).success).toBe(false);
    expect(KeystoneEnv.parse({ KEYSTONE_TIMEOUT_MS: '100' }).KEYSTONE_TIMEOUT_MS).toBe(100);
  });
});
