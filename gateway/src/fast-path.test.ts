/** The fast path's pure parts: request target form, request path, head size and the group of a path for its errors. */
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { groupOfPath, headSize, MAX_REQUEST_HEAD_BYTES, originForm, PARSER_HEAD_LIMIT, pathOf } from './fast-path';

describe('originForm', () => {
  it.each([
    ['/v2/events?limit=1', '/v2/events?limit=1'],
    ['http://evil.example/v2/events?limit=1', '/v2/events?limit=1'],
    ['HTTPS://api.example.com:8443/load-balancer/', '/load-balancer/'],
    ['http://api.example.com', '/'],
    ['http://api.example.com?x=1', '/?x=1'],
    ['*', '*'],
    ['api.example.com:443', 'api.example.com:443'],
  ])('%s → %s', (target, origin) => {
    expect(originForm(target)).toBe(origin);
  });
});

describe('pathOf', () => {
  it('drops the query string', () => {
    expect(pathOf('/v2/events?q.field=x&limit=1')).toBe('/v2/events');
    expect(pathOf('/v2/events')).toBe('/v2/events');
    expect(pathOf('/?')).toBe('/');
  });
});

describe('headSize', () => {
  it('counts the request line and every header line as received', () => {
    const req = new IncomingMessage(new Socket());
    req.method = 'GET';
    req.url = '/v2/events';
    req.rawHeaders = ['Host', 'gw', 'X-Auth-Token', 'abc'];
    // "GET /v2/events HTTP/1.1\r\n" and "Host: gw\r\n", "X-Auth-Token: abc\r\n" (the name/value separator and CRLF as 2 each).
    expect(headSize(req)).toBe(3 + 10 + 12 + (4 + 2) + (2 + 2) + (12 + 2) + (3 + 2));
  });

  it('keeps the limit node applies by default below the parser limit the server is given', () => {
    expect(MAX_REQUEST_HEAD_BYTES).toBe(16_384);
    expect(PARSER_HEAD_LIMIT).toBeGreaterThan(MAX_REQUEST_HEAD_BYTES);
  });
});

describe('groupOfPath', () => {
  it("finds the group of proxied paths, versions documents and health checks, none for the gateway's own", () => {
    expect(groupOfPath('/v2/events')).toBe('event');
    expect(groupOfPath('/load-balancer/v2/quotas/x')).toBe('lbaas');
    expect(groupOfPath('/domain-quota')).toBe('domain');
    expect(groupOfPath('/event/healthcheck')).toBe('event');
    expect(groupOfPath('/projects/x')).toBeUndefined();
    expect(groupOfPath('/ready')).toBeUndefined();
  });
});
