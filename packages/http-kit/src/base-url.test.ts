import type { Request } from 'express';
import { externalBaseUrl, forwardedBaseUrl } from './middleware';

const req = (headers: Record<string, string | string[]>, protocol = 'http') => ({ headers, protocol }) as unknown as Request;

describe('the base URL of links in service responses', () => {
  it('uses what the gateway forwards', () => {
    const r = req({
      host: 'svc:8782',
      'x-forwarded-host': 'api.example.com',
      'x-forwarded-proto': 'https',
      'x-forwarded-prefix': '/load-balancer',
    });
    expect(forwardedBaseUrl(r)).toBe('https://api.example.com/load-balancer');
    expect(externalBaseUrl(req({ host: 'svc:8782' }))).toBe('http://svc:8782');
  });

  it('ignores forwarded values that could end or split a link', () => {
    for (const host of ['evil.example>; rel="x"', 'a b', 'a,b', 'a"b', '', 'x'.repeat(70)]) {
      expect(externalBaseUrl(req({ host: 'svc:1', 'x-forwarded-host': host }))).toBe('http://svc:1');
    }
    expect(externalBaseUrl(req({ host: 'svc:1', 'x-forwarded-proto': 'javascript' }))).toBe('http://svc:1');
    expect(forwardedBaseUrl(req({ host: 'svc:1', 'x-forwarded-prefix': '/a>b' }))).toBe('http://svc:1');
    expect(externalBaseUrl(req({ host: 'a<b' }))).toBe('http://localhost');
    expect(externalBaseUrl(req({ host: 'svc:1', 'x-forwarded-host': ['a.example', 'b.example'] }))).toBe('http://svc:1');
  });
});
