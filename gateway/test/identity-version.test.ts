/**
 * Version skew between the gateway and a service (gateway/README.md "Versions and rolling upgrades"): the gateway
 * signs `X-Identity-Version: 1`; a service takes a request without the header (a gateway from before it) as version
 * 1, and refuses a version it does not know with 401 in its group's shape and a log line naming both versions, never
 * the secret or the token.
 */
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { IdentityHeaders, signIdentity } from '@stratum/identity';
import { ALL_TENANTS, startTestStack, type TestStack, tokenOf } from '@stratum/testing';
import pino from 'pino';
import request from 'supertest';

/** A relay between the gateway and the event service that keeps the headers of the last request it relayed. */
function relay(): { server: Server; target: { url: string }; last: { headers?: IncomingHttpHeaders } } {
  const target = { url: '' };
  const last: { headers?: IncomingHttpHeaders } = {};
  const server = createServer((req, res) => {
    last.headers = { ...req.headers };
    const up = httpRequest(`${target.url}${req.url}`, { method: req.method, headers: req.headers }, (upRes) => {
      res.writeHead(upRes.statusCode ?? 502, upRes.headers);
      upRes.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  return { server, target, last };
}

describe('identity format version between gateway and services', () => {
  let stack: TestStack;
  const lines: Record<string, unknown>[] = [];
  const recorder = relay();

  beforeAll(async () => {
    await new Promise<void>((ok) => recorder.server.listen(0, '127.0.0.1', ok));
    const url = `http://127.0.0.1:${(recorder.server.address() as AddressInfo).port}`;
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    stack = await startTestStack({ upstreamOverride: { EVENT_QUERY_URL: url }, eventLogger: pino({ level: 'info' }, sink) });
    recorder.target.url = stack.serviceUrls.eventQuery;
  });
  afterAll(async () => {
    recorder.server.closeAllConnections();
    recorder.server.close();
    await stack?.close();
  });

  const path = `/v2/events?${ALL_TENANTS}&limit=1`;
  const admin = () => ({
    userId: stack.personas.admin.userId,
    projectId: stack.personas.admin.projectId,
    domainId: 'default',
    roles: ['admin'],
  });

  it('signs version 1 on what the gateway forwards', async () => {
    const res = await request(stack.gateway).get(path).set(tokenOf(stack, 'admin'));
    expect(res.status).toBe(200);
    expect(recorder.last.headers?.[IdentityHeaders.version]).toBe('1');
  });

  it('accepts a request signed by a gateway from before the header (no X-Identity-Version) as version 1', async () => {
    const secret = stack.gatewayDeps.config.STRATUM_IDENTITY_SECRET;
    const { [IdentityHeaders.version]: _v, ...old } = signIdentity(admin(), secret, { method: 'GET', url: path });
    expect((await request(stack.serviceUrls.eventQuery).get(path).set(old)).status).toBe(200);
  });

  it('refuses a version the service does not know with 401 in its shape, and logs both versions', async () => {
    const secret = stack.gatewayDeps.config.STRATUM_IDENTITY_SECRET;
    const newer: Record<string, string> = {
      ...signIdentity(admin(), secret, { method: 'GET', url: path }),
      [IdentityHeaders.version]: '2',
    };
    const res = await request(stack.serviceUrls.eventQuery).get(path).set(newer);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ error_message: { faultcode: 'Client' } });
    const line = lines.find((l) => l.identityVersion === '2');
    expect(line).toMatchObject({
      level: 40,
      supportedIdentityVersions: [1],
      msg: expect.stringContaining('identity version "2" not supported'),
    });
    const text = JSON.stringify(line);
    expect(text).not.toContain(secret);
    expect(text).not.toContain(newer[IdentityHeaders.signature]);
    expect(text).not.toContain(stack.personas.admin.token);
  });
});
