/**
 * The gateway as an operator's front door: rate limits, body size limit, upstream failures (502/503/504), readiness,
 * Prometheus metrics on their own port, access logs, and the services refusing identities the gateway did not sign.
 */
import { request as httpRequest, type Server } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { Writable } from 'node:stream';
import { signIdentity } from '@stratum/identity';
import { startTestStack, type TestStack } from '@stratum/testing';
import pino from 'pino';
import request from 'supertest';
import { metricsServer } from '../src';

const REDIS_URL = process.env.STRATUM_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/0';

async function listening<S extends Server | TcpServer>(server: S): Promise<string> {
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('gateway: rate limits', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({
      gatewayEnv: {
        REDIS_URL,
        RATE_LIMIT_LBAAS_PER_PROJECT: '3/60',
        RATE_LIMIT_EVENT_PER_TOKEN: '2/60',
        RATE_LIMIT_PER_PROJECT: '1000/60',
      },
    });
  });
  afterAll(() => stack.close());

  it('refuses a project past its limit for a group with 429, Retry-After and the group’s shape; other projects go on', async () => {
    const get = (who: 'memberA' | 'readerA' | 'memberB') =>
      request(stack.gateway).get(`/v2.0/lbaas/quotas/${stack.personas[who].projectId}`).set('X-Auth-Token', stack.personas[who].token);
    expect((await get('memberA')).status).toBe(200);
    expect((await get('readerA')).status).toBe(200);
    expect((await get('memberA')).status).toBe(200);
    const refused = await get('readerA'); // the fourth request of project A, from another token
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(refused.body).toEqual({
      faultcode: 'Client',
      faultstring: expect.stringContaining('Rate limit exceeded for this project'),
      debuginfo: null,
    });
    expect((await get('memberB')).status).toBe(200);
    // The event group has no per-project limit of its own below the default 1000/60.
    expect((await request(stack.gateway).get('/v2/events').set('X-Auth-Token', stack.personas.readerA.token)).status).toBe(200);
  });

  it('refuses a token past its limit in a group, not another token of the same project', async () => {
    const events = (who: 'memberB' | 'admin') => request(stack.gateway).get('/v2/events').set('X-Auth-Token', stack.personas[who].token);
    expect((await events('memberB')).status).toBe(200);
    expect((await events('memberB')).status).toBe(200);
    const refused = await events('memberB');
    expect(refused.status).toBe(429);
    expect(refused.body.error_message.faultstring).toContain('Rate limit exceeded for this token');
    expect((await events('admin')).status).toBe(200);
  });

  it('keeps limiting in process while Redis is down', async () => {
    const down = await startTestStack({ gatewayEnv: { REDIS_URL: 'redis://127.0.0.1:1/0', RATE_LIMIT_PER_TOKEN: '2/60' } });
    try {
      const get = () => request(down.gateway).get('/v2.0/lbaas/quotas/defaults').set('X-Auth-Token', down.personas.memberA.token);
      expect([(await get()).status, (await get()).status, (await get()).status]).toEqual([200, 200, 429]);
    } finally {
      await down.close();
    }
  });
});

describe('gateway: bodies, upstream failures and timeouts', () => {
  const silentUpstream = createTcpServer(() => undefined); // accepts, never answers
  const resettingUpstream = createTcpServer((socket) => socket.end('HTTP/1.1 ???\r\n\r\n'));
  let stack: TestStack;
  beforeAll(async () => {
    const slow = await listening(silentUpstream);
    const broken = await listening(resettingUpstream);
    stack = await startTestStack({
      upstreamOverride: { DOMAIN_QUOTA_URL: slow, EVENT_QUERY_URL: broken },
      gatewayEnv: { UPSTREAM_TIMEOUT_MS: '300', MAX_BODY_BYTES: '1024' },
    });
  });
  afterAll(async () => {
    await stack.close();
    silentUpstream.close();
    resettingUpstream.close();
  });

  it('answers 504 in Keystone’s shape when the department quota service does not answer in time', async () => {
    const started = Date.now();
    const res = await request(stack.gateway).get('/v3/domain_usage').set('X-Auth-Token', stack.personas.admin.token);
    expect(res.status).toBe(504);
    expect(res.body.error).toEqual({ code: 504, title: 'Gateway Timeout', message: expect.stringContaining('department quota service') });
    // UPSTREAM_TIMEOUT_MS is 300 ms and the upstream never answers: far less than the test's own timeout, with room
    // for a loaded machine.
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('answers 502 in Panko’s shape when the event service answers garbage', async () => {
    const res = await request(stack.gateway).get('/v2/events').set('X-Auth-Token', stack.personas.admin.token);
    expect(res.status).toBe(502);
    expect(res.body.error_message).toEqual({
      faultcode: 'Server',
      faultstring: expect.stringContaining('event query service'),
      debuginfo: null,
    });
  });

  it('refuses a body over MAX_BODY_BYTES with 413 before it reaches the service', async () => {
    const big = { quota: { pool: 5 }, padding: 'x'.repeat(2000) };
    const res = await request(stack.gateway)
      .put(`/v2.0/lbaas/quotas/${stack.projectA}`)
      .set('X-Auth-Token', stack.personas.admin.token)
      .send(big);
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ faultcode: 'Client', faultstring: 'The request body is larger than 1024 bytes.', debuginfo: null });
    // Nothing was written: the project still has the defaults.
    const after = await request(stack.gateway).get(`/v2.0/lbaas/quotas/${stack.projectA}`).set('X-Auth-Token', stack.personas.admin.token);
    expect(after.status).toBe(200);
    expect(after.body.quota.pool).not.toBe(5);
  });

  it('refuses a chunked body that grows past MAX_BODY_BYTES with 413', async () => {
    const server = stack.gateway.listen(0, '127.0.0.1');
    await new Promise((ok) => server.once('listening', ok));
    try {
      const status = await new Promise<number>((ok, fail) => {
        const req = httpRequest(
          {
            host: '127.0.0.1',
            port: (server.address() as AddressInfo).port,
            method: 'PUT',
            path: `/v2.0/lbaas/quotas/${stack.projectA}`,
            headers: { 'X-Auth-Token': stack.personas.admin.token, 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' },
          },
          (res) => {
            res.resume();
            ok(res.statusCode ?? 0);
          },
        );
        req.on('error', fail);
        req.write('{"quota":{"pool":5},"padding":"');
        for (let i = 0; i < 10; i++) req.write('y'.repeat(500));
        req.end('"}');
      });
      expect(status).toBe(413);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('gateway: readiness, metrics and access logs', () => {
  let stack: TestStack;
  const lines: string[] = [];
  let metrics: Server;
  let metricsUrl: string;
  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    stack = await startTestStack({ gatewayEnv: { REDIS_URL, RATE_LIMIT_PER_TOKEN: '1/60' }, gatewayLogger: pino({ level: 'info' }, sink) });
    metrics = metricsServer(stack.gatewayDeps.metrics);
    metricsUrl = await listening(metrics);
  });
  afterAll(async () => {
    metrics.close();
    await stack.close();
  });

  it('reports each upstream with its own stores, and Redis, at /ready without a token', async () => {
    const res = await request(stack.gateway).get('/ready');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ready');
    for (const name of ['event-query', 'lbaas-quota', 'domain-quota']) {
      expect(res.body.checks[name]).toMatchObject({ status: 'ok', required: true, checks: { mongodb: { status: 'ok', required: true } } });
    }
    expect(res.body.checks['lbaas-quota'].checks.redis).toEqual({ status: 'ok', required: false });
    expect(res.body.checks.redis).toEqual({ status: 'ok', required: false });
  });

  it('reports not ready, naming the upstream, when one is down', async () => {
    const down = await startTestStack({ upstreamOverride: { LBAAS_QUOTA_URL: 'http://127.0.0.1:9' } });
    try {
      const res = await request(down.gateway).get('/ready');
      expect(res.status).toBe(503);
      expect(res.body.status).toBe('not_ready');
      expect(res.body.checks['lbaas-quota']).toEqual({ status: 'down', required: true });
      expect(res.body.checks['event-query'].status).toBe('ok');
    } finally {
      await down.close();
    }
  });

  it('counts requests, latency, upstream errors and 429s in Prometheus text on the metrics port only', async () => {
    const token = stack.personas.memberA.token;
    expect((await request(stack.gateway).get('/v2.0/lbaas/quotas/defaults').set('X-Auth-Token', token)).status).toBe(200);
    expect((await request(stack.gateway).get('/v2.0/lbaas/quotas/defaults').set('X-Auth-Token', token)).status).toBe(429);
    const text = await (await fetch(`${metricsUrl}/metrics`)).text();
    expect(text).toMatch(/stratum_gateway_requests_total\{group="lbaas",method="GET",status="200"\} [1-9]/);
    expect(text).toMatch(/stratum_gateway_requests_total\{group="lbaas",method="GET",status="429"\} [1-9]/);
    expect(text).toMatch(/stratum_gateway_request_duration_seconds_bucket\{le="0\.1",group="lbaas"\} [1-9]/);
    expect(text).toMatch(/stratum_gateway_rate_limited_total\{group="lbaas",scope="token"\} 1/);
    expect(text).toContain('# TYPE stratum_gateway_upstream_errors_total counter');
    expect(text).toContain('# TYPE stratum_gateway_token_cache_total counter');
    expect((await request(stack.gateway).get('/metrics')).status).toBe(404);
  });

  it('logs each request with its request id and never a token', async () => {
    const token = stack.personas.admin.token;
    const res = await request(stack.gateway).get('/v2/events?limit=1').set('X-Auth-Token', token).set('X-Subject-Token', token);
    const basic = await request(stack.gateway).post('/v2/ingest/events').auth('ceilometer', token).send([]);
    expect(basic.status).not.toBe(401);
    const id = res.headers['x-openstack-request-id'];
    const entry = lines.map((l) => JSON.parse(l)).find((l) => l.req?.id === id);
    expect(entry).toMatchObject({ req: { id, method: 'GET', url: '/v2/events?limit=1' }, res: { statusCode: res.status } });
    expect(lines.join('\n')).not.toContain(token);
  });
});

describe('services refuse identities the gateway did not sign', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(() => stack.close());

  const claim = { userId: 'intruder', projectId: 'p1', domainId: 'default', roles: ['admin'] };
  const get = (url: string) => ({ method: 'GET', url });
  const cases = {
    /** keystonemiddleware-style headers, no signature at all */
    unsigned: () => ({ 'X-User-Id': 'intruder', 'X-Project-Id': 'p1', 'X-Roles': 'admin', 'X-Identity-Status': 'Confirmed' }),
    /** signed with the right secret two minutes ago: a replay */
    stale: (secret: string, url: string) => signIdentity(claim, secret, get(url), Date.now() - 120_000),
    /** signed with another secret */
    forged: (_secret: string, url: string) => signIdentity(claim, 'not-the-gateway-secret-at-all', get(url)),
    /** signed correctly, then a role added */
    altered: (secret: string, url: string) => ({ ...signIdentity({ ...claim, roles: ['reader'] }, secret, get(url)), 'x-roles': 'admin' }),
  } as const;
  const services = [
    ['eventQuery', '/v2/events'],
    ['lbaasQuota', '/v2.0/lbaas/quotas/defaults'],
    ['domainQuota', '/v3/domain_usage'],
  ] as const;

  it.each(services.flatMap(([service, path]) => Object.keys(cases).map((c) => [service, path, c] as const)))(
    '%s refuses a %s… request (%s)',
    async (service, path, kind) => {
      const secret = stack.gatewayDeps.config.STRATUM_IDENTITY_SECRET;
      const res = await request(stack.serviceUrls[service])
        .get(path)
        .set(cases[kind as keyof typeof cases](secret, path) as Record<string, string>);
      expect(res.status).toBe(401);
    },
  );

  it.each(services)('%s accepts a fresh signature (the control)', async (service, path) => {
    const secret = stack.gatewayDeps.config.STRATUM_IDENTITY_SECRET;
    const res = await request(stack.serviceUrls[service])
      .get(path)
      .set(signIdentity(claim, secret, get(path)));
    expect(res.status).toBe(200);
  });
});
