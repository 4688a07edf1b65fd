/**
 * The gateway serves the operator console's static files at /console/ without a token and with a strict CSP, and
 * nothing outside the console's directory. A temporary directory stands in for gateway/console/dist (CONSOLE_DIR), so
 * the test needs no build; the browser tests (gateway/console/test) load the real one.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listenGateway, startTestStack, type TestStack } from '@stratum/testing';
import request from 'supertest';

/** A raw GET, so `..` segments reach the gateway as sent (clients normalise them). */
function rawGet(base: string, path: string): Promise<{ status: number; body: string }> {
  const u = new URL(base);
  return new Promise((ok, fail) => {
    const req = httpRequest({ host: u.hostname, port: u.port, path, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        body += c;
      });
      res.on('end', () => ok({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', fail);
    req.end();
  });
}

describe('the gateway serves the console at /console/', () => {
  let stack: TestStack;
  let listening: { url: string; close(): Promise<void> };
  let dir: string;
  const saved = process.env.CONSOLE_DIR;

  beforeAll(async () => {
    const base = mkdtempSync(join(tmpdir(), 'stratum-console-'));
    dir = join(base, 'dist');
    mkdirSync(join(dir, 'assets'), { recursive: true });
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>console</title><script type="module" src="./assets/app.js"></script>');
    writeFileSync(join(dir, 'assets', 'app.js'), 'export {};\n');
    writeFileSync(join(base, 'secret.txt'), 'outside the console');
    process.env.CONSOLE_DIR = dir;
    stack = await startTestStack();
    listening = await listenGateway(stack);
  });

  afterAll(async () => {
    await listening?.close();
    await stack?.close();
    if (saved === undefined) delete process.env.CONSOLE_DIR;
    else process.env.CONSOLE_DIR = saved;
    rmSync(join(dir, '..'), { recursive: true, force: true });
  });

  it('answers /console/ with index.html, no token needed, with a strict CSP', async () => {
    const res = await request(stack.gateway).get('/console/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('<title>console</title>');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cache-control']).toBe('no-cache');
  });

  it('redirects /console to /console/ (the page links its assets relatively)', async () => {
    const res = await request(stack.gateway).get('/console');
    expect(res.status).toBe(301);
    expect(res.headers.location).toBe('/console/');
  });

  it('serves an asset with its type, cacheable', async () => {
    const res = await request(stack.gateway).get('/console/assets/app.js');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/javascript/);
    expect(res.headers['cache-control']).toContain('immutable');
    const head = await request(stack.gateway).head('/console/assets/app.js');
    expect(head.status).toBe(200);
  });

  it('answers 404 for a file that is not there, and 405 to a write', async () => {
    expect((await request(stack.gateway).get('/console/assets/missing.js')).status).toBe(404);
    expect((await request(stack.gateway).get('/console/assets')).status).toBe(404);
    expect((await request(stack.gateway).post('/console/').send({})).status).toBe(405);
  });

  it('never serves a file outside the console directory', async () => {
    for (const path of [
      '/console/../secret.txt',
      '/console/%2e%2e/secret.txt',
      '/console/assets/%2e%2e/%2e%2e/secret.txt',
      '/console/..%2fsecret.txt',
      '/console/..%5csecret.txt',
      '/console/%00index.html',
    ]) {
      const res = await rawGet(listening.url, path);
      expect([400, 404]).toContain(res.status);
      expect(res.body).not.toContain('outside the console');
    }
  });

  it('leaves the API as it was: a proxied path still needs a token', async () => {
    expect((await request(stack.gateway).get('/v3/domain_usage')).status).toBe(401);
  });
});
