/**
 * No client input gets a 5xx, whatever the route: malformed percent-encoding in a path id, a body whose
 * Content-Encoding is garbage, unsupported or inflates past the limit, a request head over 16 KB, control characters
 * in the URL. Each answer is a 4xx in the shape of the group the path belongs to.
 */
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { signIdentity } from '@stratum/identity';
import { listenGateway, sendRaw, startTestStack, type TestStack, tokenOf } from '@stratum/testing';

type Group = 'event' | 'lbaas' | 'domain';

/** Whether `body` is an error in `group`'s shape with `status`. */
function shapeOf(group: Group | 'gateway', status: number, body: unknown): boolean {
  const b = body as Record<string, Record<string, unknown> | unknown>;
  if (group === 'event') {
    const e = b?.error_message as Record<string, unknown> | undefined;
    return e?.faultcode === 'Client' && typeof e.faultstring === 'string' && e.debuginfo === null;
  }
  if (group === 'lbaas') return b?.faultcode === 'Client' && typeof b.faultstring === 'string' && b.debuginfo === null;
  const e = b?.error as Record<string, unknown> | undefined;
  return e?.code === status && typeof e.title === 'string' && typeof e.message === 'string';
}

/** Every route with an id in the three services, with a malformed percent-encoding (`%ZZ`) where the id goes. */
const ROUTES_WITH_IDS: [Group, string, string][] = [
  ['event', 'GET', '/v2/events/%ZZ'],
  ['event', 'GET', '/v2/event_types/%ZZ'],
  ['event', 'GET', '/v2/event_types/%ZZ/traits'],
  ['event', 'GET', '/v2/event_types/compute.instance.update/traits/%E0%A4%A'],
  ['event', 'GET', '/event/v2/events/abc%'],
  ['lbaas', 'GET', '/v2.0/lbaas/quotas/%ZZ'],
  ['lbaas', 'PUT', '/v2.0/lbaas/quotas/%ZZ'],
  ['lbaas', 'DELETE', '/v2/quotas/%ZZ'],
  ['lbaas', 'GET', '/v2.0/quotas/%ZZ/default'],
  ['lbaas', 'GET', '/v2.0/lbaas/quotas/%ZZ/usage'],
  ['lbaas', 'POST', '/load-balancer/v2.0/lbaas/quotas/%ZZ/usage'],
  ['lbaas', 'PUT', '/v2/lbaas/quotas/%C0/usage'],
  ['domain', 'GET', '/v3/domain_quotas/%ZZ'],
  ['domain', 'PATCH', '/v3/domain_quotas/%ZZ'],
  ['domain', 'GET', '/v3/domain_quotas/%ZZ/audit'],
  ['domain', 'GET', '/v3/domain_quotas/d/projects/%ZZ'],
  ['domain', 'PATCH', '/domain-quota/v3/domain_quotas/%ZZ/projects/p'],
  ['domain', 'GET', '/v3/domain_quota_registry/regions/%ZZ'],
  ['domain', 'PUT', '/v3/domain_quota_registry/regions/%ZZ'],
  ['domain', 'DELETE', '/v3/domain_quota_registry/domains/%ZZ'],
  ['domain', 'GET', '/v3/domain_quota_registry/projects/%ZZ'],
  ['domain', 'PUT', '/v3/domain_quota_registry/usage/%ZZ'],
];

/** A write route per group, with a body that is valid once decoded (so only the encoding can be wrong). */
const WRITES: [Group, string, string, string][] = [
  ['event', 'POST', '/v2/ingest/events', '[]'],
  ['lbaas', 'PUT', '/v2.0/lbaas/quotas/p-encodings', '{"quota":{"pool":1}}'],
  ['domain', 'PATCH', '/v3/domain_quotas/d-encodings', '{"domain":{"region":"RegionOne","cores":1}}'],
];
const ENCODERS = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync } as const;

describe('client errors are 4xx in the group’s shape', () => {
  let stack: TestStack;
  let gateway: Awaited<ReturnType<typeof listenGateway>>;
  beforeAll(async () => {
    stack = await startTestStack();
    gateway = await listenGateway(stack);
  });
  afterAll(async () => {
    await gateway.close();
    await stack.close();
  });
  const admin = () => tokenOf(stack, 'admin');

  it.each(ROUTES_WITH_IDS)('%s %s %s: malformed percent-encoding in an id → 400', async (group, method, path) => {
    const body = method === 'GET' || method === 'DELETE' ? undefined : Buffer.from('{}');
    const res = await sendRaw(gateway.url, {
      method,
      path,
      headers: { ...admin(), ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body,
    });
    expect(res.status).toBe(400);
    expect(shapeOf(group, 400, res.body)).toBe(true);
  });

  it('the gateway’s own paths: malformed percent-encoding → 400 or 404 in Keystone’s shape, never 5xx', async () => {
    for (const path of ['/%ZZ', '/openapi.json/%ZZ', '/projects/%ZZ', '/docs/%ZZ']) {
      const res = await sendRaw(gateway.url, { path, headers: admin() });
      expect(res.status).toBeLessThan(500);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(shapeOf('domain', res.status, res.body)).toBe(true);
    }
  });

  it('an absolute-form request target is routed by its path; its authority is never echoed', async () => {
    const caps = await sendRaw(gateway.url, { path: 'http://evil.example/v2/capabilities', headers: admin() });
    expect(caps.status).toBe(200);
    expect(caps.text).not.toContain('evil.example');
    const lb = await sendRaw(gateway.url, {
      method: 'POST',
      path: 'HTTP://evil.example:80/v2/quotas/p-absolute/usage',
      headers: { ...admin(), 'Content-Type': 'application/json' },
      body: Buffer.from('{"consume":{"constructor":1}}'),
    });
    expect(lb.status).toBe(400);
    expect(shapeOf('lbaas', 400, lb.body)).toBe(true);
    const long = await sendRaw(gateway.url, {
      path: `http://evil.example/v2.0/quotas/defaults?marker=${'x'.repeat(17_000)}`,
      headers: admin(),
    });
    expect(long.status).toBe(431);
    expect(shapeOf('lbaas', 431, long.body)).toBe(true);
    const none = await sendRaw(gateway.url, { path: 'http://evil.example', headers: admin() });
    expect(none.status).toBe(200);
    expect(none.text).not.toContain('evil.example');
  });

  it.each([
    ['event', '/event'],
    ['lbaas', '/load-balancer/'],
    ['domain', '/domain-quota'],
    ['event', '/event/healthcheck'],
    ['lbaas', '/load-balancer/healthcheck'],
  ] as [Group, string][])('a write to %s prefix path %s → 405 with Allow in the group’s shape', async (group, path) => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const res = await sendRaw(gateway.url, {
        method,
        path,
        headers: { ...admin(), 'Content-Type': 'application/json' },
        body: Buffer.from('{}'),
      });
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('GET, HEAD');
      expect(shapeOf(group, 405, res.body)).toBe(true);
    }
  });

  describe.each(WRITES)('%s %s %s', (group, method, path, json) => {
    it.each(Object.keys(ENCODERS))('a garbage %s body → 400', async (coding) => {
      const res = await sendRaw(gateway.url, {
        method,
        path,
        headers: { ...admin(), 'Content-Type': 'application/json', 'Content-Encoding': coding },
        body: Buffer.from('this is not compressed at all, not even a little'),
      });
      expect(res.status).toBe(400);
      expect(shapeOf(group, 400, res.body)).toBe(true);
    });

    it('a truncated gzip body → 400', async () => {
      const gz = gzipSync(Buffer.from(json));
      const res = await sendRaw(gateway.url, {
        method,
        path,
        headers: { ...admin(), 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
        body: gz.subarray(0, gz.length - 6),
      });
      expect(res.status).toBe(400);
      expect(shapeOf(group, 400, res.body)).toBe(true);
    });

    it('a gzip body that inflates past the 1 MiB limit → 413', async () => {
      // About 3 KB on the wire, 3 MB once inflated: JSON whitespace after a valid body.
      const bomb = gzipSync(Buffer.concat([Buffer.from(json), Buffer.alloc(3_000_000, 0x20)]), { level: 9 });
      expect(bomb.length).toBeLessThan(10_000);
      const res = await sendRaw(gateway.url, {
        method,
        path,
        headers: { ...admin(), 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
        body: bomb,
      });
      expect(res.status).toBe(413);
      expect(shapeOf(group, 413, res.body)).toBe(true);
    });

    it.each(['compress', 'zstd', 'gzip, gzip', 'x-unknown'])('Content-Encoding %s → 415', async (coding) => {
      const res = await sendRaw(gateway.url, {
        method,
        path,
        headers: { ...admin(), 'Content-Type': 'application/json', 'Content-Encoding': coding },
        body: Buffer.from(json),
      });
      expect(res.status).toBe(415);
      expect(shapeOf(group, 415, res.body)).toBe(true);
    });
  });

  it.each([
    ['event', '/v2/events/'],
    ['lbaas', '/v2.0/lbaas/quotas/'],
    ['domain', '/v3/domain_quotas/'],
    ['lbaas', '/load-balancer/v2.0/lbaas/quotas/'],
    ['domain', '/domain-quota/'],
  ] as const)('%s: a URL over 16 KB (%s…) → 431 in the group’s shape', async (group, prefix) => {
    for (const size of [17_000, 40_000]) {
      const path = `${prefix}${'a'.repeat(size)}`;
      const res = await sendRaw(gateway.url, { raw: `GET ${path} HTTP/1.1\r\nHost: x\r\nX-Auth-Token: t\r\nConnection: close\r\n\r\n` });
      expect(res.status).toBe(431);
      expect(shapeOf(group, 431, res.body)).toBe(true);
      expect(res.headers['x-openstack-request-id']).toMatch(/^req-[0-9a-f-]{36}$/);
    }
    // Past what the gateway's parser reads (60 KiB): node's parser refuses it, still a 431 with a JSON error body.
    const huge = await sendRaw(gateway.url, { raw: `GET ${prefix}${'a'.repeat(200_000)} HTTP/1.1\r\nHost: x\r\n\r\n` });
    expect(huge.status).toBe(431);
    expect(shapeOf(group, 431, huge.body) || shapeOf('domain', 431, huge.body)).toBe(true);
    expect(huge.headers['x-openstack-request-id']).toMatch(/^req-[0-9a-f-]{36}$/);
  });

  it.each([
    ['event', '/v2/events/a\x01b'],
    ['event', '/v2/events/a\x00b'],
    ['lbaas', '/v2.0/lbaas/quotas/a\x7fb'],
    ['lbaas', '/v2.0/lbaas/quotas/a\tb'],
    ['domain', '/v3/domain_quotas/a\x1bb'],
    ['domain', '/v3/domain_quotas/caf\xe9'],
  ] as const)('%s: control characters or raw non-ASCII in the URL (%j) → 400 in the group’s shape', async (group, path) => {
    const res = await sendRaw(gateway.url, { raw: `GET ${path} HTTP/1.1\r\nHost: x\r\nX-Auth-Token: t\r\nConnection: close\r\n\r\n` });
    expect(res.status).toBe(400);
    expect(shapeOf(group, 400, res.body)).toBe(true);
    // Every answer carries a request id, even one node's parser refused before any middleware ran.
    expect(res.headers['x-openstack-request-id']).toMatch(/^req-[0-9a-f-]{36}$/);
  });

  it.each([
    ['eventQuery', 'event', 'POST', '/v2/ingest/events'],
    ['lbaasQuota', 'lbaas', 'PUT', '/v2.0/lbaas/quotas/p-direct'],
    ['domainQuota', 'domain', 'PATCH', '/v3/domain_quotas/d-direct'],
  ] as const)('%s, called directly: a garbage gzip body → 400, a malformed id → 400', async (service, group, method, path) => {
    const secret = stack.gatewayDeps.config.STRATUM_IDENTITY_SECRET;
    const id = { userId: 'u', projectId: 'admin', domainId: 'default', roles: ['admin'] };
    const garbage = Buffer.from('not gzip');
    const res = await sendRaw(stack.serviceUrls[service], {
      method,
      path,
      headers: {
        ...signIdentity(id, secret, { method, url: path, body: garbage }),
        'Content-Type': 'application/json',
        'Content-Encoding': 'gzip',
      },
      body: garbage,
    });
    expect(res.status).toBe(400);
    expect(shapeOf(group, 400, res.body)).toBe(true);
    const bad = `${path.slice(0, path.lastIndexOf('/'))}/%ZZ`;
    const get = await sendRaw(stack.serviceUrls[service], {
      method: 'GET',
      path: bad,
      headers: signIdentity(id, secret, { method: 'GET', url: bad }),
    });
    expect(get.status).toBeGreaterThanOrEqual(400);
    expect(get.status).toBeLessThan(500);
    expect(shapeOf(group, get.status, get.body)).toBe(true);
  });
});
