/**
 * The signed identity is bound to its request: a header set the gateway signed, captured between the gateway and a
 * service, is refused on another path, method, query or body, and once older than the service's window. Every method
 * with a body (identity, chunked and gzip-encoded) works end to end through the gateway.
 */
import { readFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { loadRegistryFile } from '@stratum/deploy';
import { bodyDigest, signIdentity } from '@stratum/identity';
import { ROOT } from '@stratum/store-runtime';
import { listenGateway, sendRaw, startTestStack, type TestStack, tokenOf, uuid } from '@stratum/testing';
import request from 'supertest';

/** What the recorder saw of one request the gateway sent upstream. */
interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** An HTTP relay between the gateway and a service that keeps the last request it relayed, as sent. */
class Recorder {
  readonly server: Server;
  target = '';
  last: Seen | undefined;
  constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        this.last = { method: req.method ?? '', url: req.url ?? '', headers: { ...req.headers }, body };
        const up = httpRequest(`${this.target}${req.url}`, { method: req.method, headers: req.headers }, (upRes) => {
          res.writeHead(upRes.statusCode ?? 502, upRes.headers);
          upRes.pipe(res);
        });
        up.on('error', () => res.destroy());
        up.end(body);
      });
    });
  }
  async listen(): Promise<string> {
    await new Promise<void>((ok) => this.server.listen(0, '127.0.0.1', ok));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
}

/** The identity headers of a recorded request (what a replay would carry). */
function identityHeaders(seen: Seen): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(seen.headers)) if (k.startsWith('x-') && typeof v === 'string') out[k] = v;
  return out;
}

describe('signed identity bound to its request', () => {
  let stack: TestStack;
  let gateway: Awaited<ReturnType<typeof listenGateway>>;
  const lbaas = new Recorder();
  const domain = new Recorder();

  beforeAll(async () => {
    const [lbUrl, dqUrl] = [await lbaas.listen(), await domain.listen()];
    stack = await startTestStack({ upstreamOverride: { LBAAS_QUOTA_URL: lbUrl, DOMAIN_QUOTA_URL: dqUrl } });
    lbaas.target = stack.serviceUrls.lbaasQuota;
    domain.target = stack.serviceUrls.domainQuota;
    await loadRegistryFile(stack.db, readFileSync(join(ROOT, 'deploy/samples/registry.yaml'), 'utf8'));
    gateway = await listenGateway(stack);
  });
  afterAll(async () => {
    await gateway.close();
    await stack.close();
    for (const r of [lbaas, domain]) {
      r.server.closeAllConnections();
      r.server.close();
    }
  });

  const service = () => request(stack.serviceUrls.lbaasQuota);
  /** Sends a captured header set straight to lbaas-quota. */
  const replay = (method: 'get' | 'put' | 'delete', url: string, headers: Record<string, string>) => service()[method](url).set(headers);

  it('refuses a captured GET header set on another path, method or query, and accepts it on its own request', async () => {
    const path = `/v2.0/lbaas/quotas/${stack.projectA}`;
    const res = await request(stack.gateway).get(path).set(tokenOf(stack, 'admin'));
    expect(res.status).toBe(200);
    const seen = lbaas.last as Seen;
    expect(seen.url).toBe(path);
    const captured = identityHeaders(seen);
    expect((await replay('get', path, captured)).status).toBe(200); // the control: the same request, within the window
    expect((await replay('get', `/v2.0/lbaas/quotas/${stack.projectB}`, captured)).status).toBe(401);
    expect((await replay('get', `/v2/lbaas/quotas/${stack.projectA}`, captured)).status).toBe(401);
    expect((await replay('get', `${path}?fields=pool`, captured)).status).toBe(401);
    const del = await replay('delete', path, captured);
    expect(del.status).toBe(401);
    expect(del.body).toEqual({ faultcode: 'Client', faultstring: 'The request you have made requires authentication.', debuginfo: null });
    const put = await replay('put', path, captured).send({ quota: { pool: 1 } });
    expect(put.status).toBe(401);
  });

  it('binds the query string and the path exactly as forwarded, with the group prefix removed', async () => {
    // The project id with its first character percent-encoded: the same query to the service, other bytes.
    const encoded = `%${stack.projectA.charCodeAt(0).toString(16)}${stack.projectA.slice(1)}`;
    const path = `/load-balancer/v2.0/lbaas/quotas?project_id=${encoded}&limit=1`;
    const first = await request(stack.gateway).get(path).set(tokenOf(stack, 'admin'));
    expect(first.status).toBe(200);
    const seen = lbaas.last as Seen;
    expect(seen.url).toBe(`/v2.0/lbaas/quotas?project_id=${encoded}&limit=1`);
    const captured = identityHeaders(seen);
    expect((await replay('get', seen.url, captured)).status).toBe(200);
    expect((await replay('get', `/v2.0/lbaas/quotas?project_id=${encoded}&limit=2`, captured)).status).toBe(401);
    expect((await replay('get', `/v2.0/lbaas/quotas?project_id=${stack.projectA}&limit=1`, captured)).status).toBe(401);
  });

  it('refuses a captured PUT header set with another body, or no body; accepts it with its own', async () => {
    const path = `/v2.0/lbaas/quotas/${stack.projectB}`;
    const res = await request(stack.gateway)
      .put(path)
      .set(tokenOf(stack, 'admin'))
      .send({ quota: { pool: 7 } });
    expect(res.status).toBe(202);
    const seen = lbaas.last as Seen;
    const captured = { ...identityHeaders(seen), 'Content-Type': 'application/json' };
    const other = JSON.stringify({ quota: { pool: 9999 } });
    expect((await replay('put', path, captured).send(other)).status).toBe(401);
    expect((await replay('put', path, captured)).status).toBe(401);
    // The digest header changed to the other body's: the signature does not cover it.
    expect((await replay('put', path, { ...captured, 'x-identity-body-sha256': bodyDigest(other) }).send(other)).status).toBe(401);
    expect((await replay('put', path, captured).send(seen.body.toString())).status).toBe(202);
    const after = await request(stack.gateway).get(path).set(tokenOf(stack, 'admin'));
    expect(after.body.quota.pool).toBe(7);
  });

  it('refuses a signature older than the window (10 s by default), either way', async () => {
    const secret = stack.gatewayDeps.config.STRATUM_IDENTITY_SECRET;
    const id = { userId: 'u', projectId: stack.projectA, domainId: 'default', roles: ['admin'] };
    const url = `/v2.0/lbaas/quotas/${stack.projectA}`;
    for (const skew of [-11_000, 11_000]) {
      expect((await replay('get', url, signIdentity(id, secret, { method: 'GET', url }, Date.now() + skew))).status).toBe(401);
    }
    expect((await replay('get', url, signIdentity(id, secret, { method: 'GET', url }, Date.now() - 5_000))).status).toBe(200);
  });

  describe('every method with a body, through the gateway', () => {
    const admin = () => tokenOf(stack, 'admin');

    it('PUT, GET, DELETE (with a body) and POST on lbaas-quota', async () => {
      const p = `/v2.0/lbaas/quotas/${stack.projectA}`;
      expect(
        (
          await request(stack.gateway)
            .put(p)
            .set(admin())
            .send({ quota: { load_balancer: 4 } })
        ).status,
      ).toBe(202);
      // Panko-style clients may send a JSON body on GET; it reaches the service and verifies.
      const got = await request(stack.gateway).get(p).set(admin()).set('Content-Type', 'application/json').send('{}');
      expect(got.status).toBe(200);
      expect(got.body.quota.load_balancer).toBe(4);
      const used = await request(stack.gateway)
        .post(`${p}/usage`)
        .set(tokenOf(stack, 'service'))
        .send({ consume: { load_balancer: 1 } });
      expect(used.status).toBe(200);
      expect(await request(stack.gateway).delete(p).set(admin()).set('Content-Type', 'application/json').send('{}')).toMatchObject({
        status: 204,
      });
    });

    it.each([
      ['gzip', gzipSync],
      ['deflate', deflateSync],
      ['br', brotliCompressSync],
    ] as const)('a %s-encoded PUT is decoded by the gateway and verified by the service', async (coding, encode) => {
      const p = `/v2.0/lbaas/quotas/${stack.projectB}`;
      const body = JSON.stringify({ quota: { listener: coding.length } });
      const res = await sendRaw(gateway.url, {
        method: 'PUT',
        path: p,
        headers: { ...admin(), 'Content-Type': 'application/json', 'Content-Encoding': coding },
        body: encode(Buffer.from(body)),
      });
      expect(res.status).toBe(202);
      const seen = lbaas.last as Seen;
      expect(seen.headers['content-encoding']).toBeUndefined();
      expect(seen.body.toString()).toBe(body);
      expect((await request(stack.gateway).get(p).set(admin())).body.quota.listener).toBe(coding.length);
    });

    it('a PUT with Expect: 100-continue', async () => {
      const p = `/v2.0/lbaas/quotas/${stack.projectA}`;
      const res = await sendRaw(gateway.url, {
        method: 'PUT',
        path: p,
        headers: { ...admin(), 'Content-Type': 'application/json', Expect: '100-continue' },
        body: Buffer.from('{"quota":{"member":12}}'),
      });
      expect(res.status).toBe(202);
      expect((await request(stack.gateway).get(p).set(admin())).body.quota.member).toBe(12);
    });

    it('a gzip-encoded ingest POST on event-query stores its event', async () => {
      const event = {
        message_id: uuid(),
        event_type: 'compute.instance.create.end',
        generated: '2026-11-21T12:20:00.040721',
        traits: [['project_id', 1, stack.projectA]],
        raw: {},
      };
      const res = await sendRaw(gateway.url, {
        method: 'POST',
        path: '/event/v2/ingest/events',
        headers: { ...admin(), 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
        body: gzipSync(Buffer.from(JSON.stringify([event]))),
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ stored: 1 });
      const read = await request(stack.gateway).get(`/v2/events/${event.message_id}`).set(tokenOf(stack, 'memberA'));
      expect(read.status).toBe(200);
    });

    it('a chunked PATCH on domain-quota, and a POST listing events with a body', async () => {
      const FINANCE = '47eaa0992cb6916d86dc283cf0480ff9';
      const body = JSON.stringify({ domain: { region: 'RegionOne', cores: 600 } });
      const res = await sendRaw(gateway.url, {
        method: 'PATCH',
        path: `/v3/domain_quotas/${FINANCE}`,
        headers: { ...admin(), 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' },
        body: [Buffer.from(body.slice(0, 10)), Buffer.from(body.slice(10))],
      });
      expect(res.status).toBe(200);
      expect((domain.last as Seen).headers['transfer-encoding']).toBeUndefined();
      expect((domain.last as Seen).headers['content-length']).toBe(String(body.length));
      const got = await request(stack.gateway).get(`/v3/domain_quotas/${FINANCE}`).set(admin());
      expect(got.body.domain.RegionOne.quotas.cores).toBe(600);
      const listed = await request(stack.gateway).post('/v2/events').set(admin()).send({ limit: 1 });
      expect(listed.status).toBe(200);
    });
  });
});
