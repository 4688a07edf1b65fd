import { type Identity, signIdentity } from '@stratum/identity';
import express from 'express';
import pino from 'pino';
import request from 'supertest';
import { renderKeystoneError, UNAUTHENTICATED } from './app-error';
import { errorHandler, identityOf, jsonBody, methodNotAllowed, notFound, requestId, requireIdentity, requireJsonBody } from './middleware';
import { runReadiness } from './readiness';

const SECRET = 'a-test-secret-of-some-length';
const caller: Identity = { userId: 'u1', projectId: 'p1', domainId: 'default', roles: ['member'] };
const KEYSTONE_401 = { error: { code: 401, title: 'Unauthorized', message: UNAUTHENTICATED } };

/** The services' order (app.ts) around two routes that echo what the middleware left for them. */
function app() {
  const a = express();
  a.use(requestId());
  a.use(requireIdentity(SECRET));
  a.use(requireJsonBody());
  a.use(jsonBody('1kb'));
  a.all('/echo', (req, res) => {
    res.json({ identity: identityOf(res), body: req.body ?? null });
  });
  a.get('/only-get', (_req, res) => {
    res.json({});
  });
  a.all('/only-get', methodNotAllowed('GET'));
  a.get('/boom', () => {
    throw new Error('secret detail');
  });
  a.use(notFound());
  a.use(errorHandler(renderKeystoneError, pino({ level: 'silent' })));
  return a;
}

const signed = (method: string, url: string, body?: string) => signIdentity(caller, SECRET, { method, url, body });

/** POST `url` with `body` as `type`, signed for `signedBody` (by default the body sent). */
const post = (url: string, body: string, type = 'application/json', signedBody = body) =>
  request(app())
    .post(url)
    .set(signed('POST', url, signedBody))
    .set('Content-Type', type)
    .send(body);

describe('service middleware', () => {
  it('passes a request signed for itself, with the identity and the parsed body', async () => {
    const body = '{"a":1}';
    const res = await post('/echo?x=1', body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ identity: caller, body: { a: 1 } });
  });

  it("answers 401 in the group's shape, with WWW-Authenticate, to unsigned or mis-signed requests", async () => {
    for (const headers of [{}, signed('GET', '/other'), signed('DELETE', '/echo')]) {
      const res = await request(app()).get('/echo').set(headers);
      expect(res.status).toBe(401);
      expect(res.body).toEqual(KEYSTONE_401);
      expect(res.headers['www-authenticate']).toBe('Keystone uri="/identity"');
    }
  });

  it('answers 401 when the body is not the one the signature was made for, or is missing', async () => {
    const other = await post('/echo', '{"a":2}', 'application/json', '{"a":1}');
    expect(other.status).toBe(401);
    expect(other.body).toEqual(KEYSTONE_401);
    const none = await request(app())
      .post('/echo')
      .set(signed('POST', '/echo', '{"a":1}'));
    expect(none.status).toBe(401);
  });

  it('refuses a body that is not JSON with 415 naming its type', async () => {
    const res = await post('/echo', 'a=1', 'text/plain');
    expect(res.status).toBe(415);
    expect(res.body.error.message).toBe('Unknown mimetype: text/plain');
  });

  it('answers 413 past the body limit and 400 for JSON that does not parse', async () => {
    const big = JSON.stringify({ s: 'x'.repeat(2000) });
    const tooLarge = await post('/echo', big);
    expect(tooLarge.status).toBe(413);
    const broken = await post('/echo', '{');
    expect(broken.status).toBe(400);
    expect(broken.body.error.message).toBe('Request is not in valid JSON format');
  });

  it('echoes a well-formed request id and replaces any other', async () => {
    const id = 'req-0123abcd-0123-4567-89ab-0123456789ab';
    const kept = await request(app()).get('/echo').set(signed('GET', '/echo')).set('X-Openstack-Request-Id', id);
    expect(kept.headers['x-openstack-request-id']).toBe(id);
    const replaced = await request(app()).get('/echo').set(signed('GET', '/echo')).set('X-Openstack-Request-Id', 'req-<script>');
    expect(replaced.headers['x-openstack-request-id']).toMatch(/^req-[0-9a-f-]{36}$/);
  });

  it("answers 405 with Allow, 404 for unknown paths, and 500 without the thrower's message", async () => {
    const put = await request(app()).put('/only-get').set(signed('PUT', '/only-get'));
    expect(put.status).toBe(405);
    expect(put.headers.allow).toBe('GET');
    expect((await request(app()).get('/nowhere').set(signed('GET', '/nowhere'))).body).toEqual({
      error: { code: 404, title: 'Not Found', message: 'The resource could not be found.' },
    });
    const boom = await request(app()).get('/boom').set(signed('GET', '/boom'));
    expect(boom.status).toBe(500);
    expect(JSON.stringify(boom.body)).not.toContain('secret detail');
  });
});

describe('runReadiness', () => {
  it('is ready when every required check is ok; an optional one that is down only shows', async () => {
    const report = await runReadiness({
      store: { required: true, check: async () => true },
      cache: { required: false, check: async () => false },
      upstream: { required: false, check: async () => ({ ok: true, checks: { a: 'ok' } }) },
    });
    expect(report).toEqual({
      status: 'ready',
      checks: {
        store: { status: 'ok', required: true },
        cache: { status: 'down', required: false },
        upstream: { status: 'ok', required: false, checks: { a: 'ok' } },
      },
    });
  });

  it('counts a required check that throws or takes longer than the timeout as down', async () => {
    const report = await runReadiness(
      {
        throws: { required: true, check: () => Promise.reject(new Error('x')) },
        hangs: { required: true, check: () => new Promise<boolean>(() => undefined) },
      },
      20,
    );
    expect(report.status).toBe('not_ready');
    expect(report.checks.throws?.status).toBe('down');
    expect(report.checks.hangs?.status).toBe('down');
  });
});
