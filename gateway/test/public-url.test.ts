/**
 * Links never echo an untrusted host: versions documents, `Link` headers, `quotas_links` and `WWW-Authenticate` are
 * built on PUBLIC_URL (per group: PUBLIC_URL_<GROUP>), or on forwarded headers only from TRUSTED_PROXIES, else on the
 * request's own Host (keystonemiddleware's `www_authenticate_uri`, oslo.middleware's HTTPProxyToWSGI).
 */
import { randomBytes } from 'node:crypto';
import { EventsRepository, toEventDoc } from '@stratum/event-query';
import { startTestStack, type TestStack, tokenOf, uuid } from '@stratum/testing';
import request from 'supertest';

/** Headers a client (or a proxy nobody trusts) might send to make links point elsewhere. */
const HOSTILE: Record<string, string>[] = [
  { 'X-Forwarded-Host': 'evil.example', 'X-Forwarded-Proto': 'https', 'X-Forwarded-Prefix': '/evil' },
  { Forwarded: 'host=evil.example;proto=https' },
  { Forwarded: 'for=1.2.3.4;host="evil.example:8443"', 'X-Forwarded-Proto': 'gopher' },
];

/** Every link-bearing answer of the stack, as text (body and the headers that carry links). */
async function linkTexts(stack: TestStack, headers: Record<string, string>): Promise<string[]> {
  const g = () => request(stack.gateway);
  const out: string[] = [];
  const keep = (res: request.Response) => {
    out.push(JSON.stringify(res.body), String(res.headers.link ?? ''), String(res.headers['www-authenticate'] ?? ''));
    return res;
  };
  for (const path of ['/', '/load-balancer/', '/event/', '/domain-quota/', '/load-balancer', '/event']) {
    expect(keep(await g().get(path).set(headers)).status).toBe(200);
  }
  expect(keep(await g().get('/v2.0/lbaas/quotas').set(headers)).status).toBe(401);
  expect(
    keep(
      await g()
        .get('/load-balancer/v2/lbaas/quotas')
        .set({ ...headers, 'X-Auth-Token': 'not-a-token' }),
    ).status,
  ).toBe(401);
  const links = keep(
    await g()
      .get('/load-balancer/v2/lbaas/quotas?limit=1')
      .set({ ...headers, ...tokenOf(stack, 'admin') }),
  );
  expect(links.body.quotas_links.length).toBeGreaterThan(0);
  const events = keep(
    await g()
      .get('/event/v2/events?limit=1')
      .set({ ...headers, ...tokenOf(stack, 'admin') }),
  );
  expect(events.headers.link).toBeDefined();
  const root = keep(
    await g()
      .get('/v2/events?limit=1')
      .set({ ...headers, ...tokenOf(stack, 'admin') }),
  );
  expect(root.headers.link).toBeDefined();
  return out;
}

/** Two quotas (so a limit=1 page has a next link) and two events of the admin's project. */
async function seed(stack: TestStack): Promise<void> {
  for (let i = 0; i < 2; i++) {
    const p = randomBytes(16).toString('hex');
    await request(stack.gateway)
      .put(`/v2.0/lbaas/quotas/${p}`)
      .set(tokenOf(stack, 'admin'))
      .send({ quota: { member: 1 } })
      .expect(202);
  }
  const docs = [1, 2].map((m) =>
    toEventDoc({
      message_id: uuid(),
      event_type: 'links.test',
      generated: `2026-11-20T10:0${m}:00.000000`,
      traits: [{ name: 'project_id', type: 'String', value: stack.personas.admin.projectId as string }],
      raw: {},
    }),
  );
  await new EventsRepository(stack.db).insertMany(docs);
}

describe('links and forwarded headers', () => {
  describe('by default (no PUBLIC_URL, no trusted proxy)', () => {
    let stack: TestStack;
    beforeAll(async () => {
      stack = await startTestStack();
      await seed(stack);
    });
    afterAll(() => stack.close());

    it.each(HOSTILE)('no forwarded host, proto or prefix reaches any link: %j', async (headers) => {
      for (const text of await linkTexts(stack, headers)) {
        expect(text).not.toMatch(/evil|gopher|8443|https:\/\/(?!docs\.openstack\.org)/);
      }
    });

    it("links use the request's own Host", async () => {
      const res = await request(stack.gateway).get('/load-balancer/').set('Host', 'api.internal:8780');
      expect(res.body.versions[0].links[0].href).toBe('http://api.internal:8780/load-balancer/v2');
      const bad = await request(stack.gateway).get('/load-balancer/').set('Host', 'a>b"c');
      expect(JSON.stringify(bad.body)).not.toMatch(/a>b/);
    });
  });

  describe('with PUBLIC_URL and a group URL', () => {
    let stack: TestStack;
    beforeAll(async () => {
      stack = await startTestStack({
        gatewayEnv: { PUBLIC_URL: 'https://api.example.com/cloud/', PUBLIC_URL_EVENT: 'https://events.example.com' },
      });
      await seed(stack);
    });
    afterAll(() => stack.close());

    it('every link is built on the configured URLs, whatever the client sends', async () => {
      for (const headers of [{}, ...HOSTILE]) {
        const texts = (await linkTexts(stack, headers)).join('\n');
        expect(texts).not.toMatch(/evil|127\.0\.0\.1|gopher/);
      }
      const lb = await request(stack.gateway)
        .get('/load-balancer/')
        .set(HOSTILE[0] as Record<string, string>);
      expect(lb.body.versions[0].links[0].href).toBe('https://api.example.com/cloud/load-balancer/v2');
      const root = await request(stack.gateway).get('/v2.0/lbaas/quotas?limit=1').set(tokenOf(stack, 'admin'));
      expect(root.body.quotas_links[0].href).toMatch(/^https:\/\/api\.example\.com\/cloud\/v2\.0\/lbaas\/quotas\?/);
      const ev = await request(stack.gateway)
        .get('/event/')
        .set(HOSTILE[1] as Record<string, string>);
      expect(ev.body.versions.values[0].links[0].href).toBe('https://events.example.com/v2');
      const evList = await request(stack.gateway).get('/event/v2/events?limit=1').set(tokenOf(stack, 'admin'));
      expect(evList.headers.link).toMatch(/^<https:\/\/events\.example\.com\/v2\/events\?/);
      const unauth = await request(stack.gateway)
        .get('/v2.0/lbaas/quotas')
        .set(HOSTILE[0] as Record<string, string>);
      expect(unauth.headers['www-authenticate']).toBe('Keystone uri="https://api.example.com/cloud/identity"');
    });

    it('refuses a PUBLIC_URL that is not an absolute http(s) URL', async () => {
      await expect(startTestStack({ gatewayEnv: { PUBLIC_URL: 'javascript:alert(1)' } })).rejects.toThrow(/PUBLIC_URL/);
      await expect(startTestStack({ gatewayEnv: { TRUSTED_PROXIES: '10.0.0.0/33' } })).rejects.toThrow(/TRUSTED_PROXIES/);
    });
  });

  describe('with TRUSTED_PROXIES including 127.0.0.1', () => {
    let stack: TestStack;
    beforeAll(async () => {
      stack = await startTestStack({ gatewayEnv: { TRUSTED_PROXIES: '10.0.0.0/8, 127.0.0.1, ::1' } });
      await seed(stack);
    });
    afterAll(() => stack.close());

    it("the proxy's X-Forwarded-* headers are honoured", async () => {
      const h = { 'X-Forwarded-Host': 'cloud.example.org', 'X-Forwarded-Proto': 'https' };
      const lb = await request(stack.gateway).get('/load-balancer/').set(h);
      expect(lb.body.versions[0].links[0].href).toBe('https://cloud.example.org/load-balancer/v2');
      const list = await request(stack.gateway)
        .get('/load-balancer/v2/lbaas/quotas?limit=1')
        .set({ ...h, ...tokenOf(stack, 'admin') });
      expect(list.body.quotas_links[0].href).toMatch(/^https:\/\/cloud\.example\.org\/load-balancer\/v2\/lbaas\/quotas\?/);
      const ev = await request(stack.gateway)
        .get('/v2/events?limit=1')
        .set({ ...h, ...tokenOf(stack, 'admin') });
      expect(ev.headers.link).toMatch(/^<https:\/\/cloud\.example\.org\/v2\/events\?/);
      const unauth = await request(stack.gateway).get('/v2.0/lbaas/quotas').set(h);
      expect(unauth.headers['www-authenticate']).toBe('Keystone uri="https://cloud.example.org/identity"');
    });

    it("the proxy's Forwarded header is honoured, and a malformed host is not", async () => {
      const fwd = await request(stack.gateway).get('/event/').set('Forwarded', 'for=10.1.1.1;proto=https;host="front.example:8443"');
      expect(fwd.body.versions.values[0].links[0].href).toBe('https://front.example:8443/event/v2');
      const bad = await request(stack.gateway).get('/event/').set('X-Forwarded-Host', 'x.example>; rel="evil"');
      expect(JSON.stringify(bad.body)).not.toMatch(/x\.example|evil/);
    });
  });
});
