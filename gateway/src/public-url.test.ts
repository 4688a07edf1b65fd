/**
 * Where links point (public-url.ts), on requests built in memory: a configured public URL, a trusted proxy's forwarded
 * headers, else the request's own Host; and TRUSTED_PROXIES parsing.
 */
import { type IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { isPlainHost, type PublicUrlSettings, PublicUrls, parseTrustedProxies } from './public-url';

/** A request from `peer` (an IP address) with `headers`, over TLS when `tls`. Nothing is connected. */
function requestFrom(peer: string, headers: IncomingHttpHeaders, tls = false): IncomingMessage {
  const socket = new Socket();
  Object.defineProperty(socket, 'remoteAddress', { value: peer });
  Object.defineProperty(socket, 'encrypted', { value: tls });
  const req = new IncomingMessage(socket);
  req.headers = headers;
  return req;
}

const settings = (over: Partial<PublicUrlSettings> = {}): PublicUrlSettings => ({
  PUBLIC_URL: '',
  PUBLIC_URL_EVENT: '',
  PUBLIC_URL_LBAAS: '',
  PUBLIC_URL_DOMAIN: '',
  TRUSTED_PROXIES: null,
  ...over,
});

const FORWARDED = {
  host: 'gw.internal:8780',
  'x-forwarded-host': 'api.example.com',
  'x-forwarded-proto': 'https',
  'x-forwarded-prefix': '/cloud',
};

describe('PublicUrls.base', () => {
  it("uses the request's own Host and scheme when nothing is configured", () => {
    const urls = new PublicUrls(settings());
    expect(urls.base(requestFrom('192.0.2.1', { host: 'gw.example:8780' }))).toBe('http://gw.example:8780');
    expect(urls.base(requestFrom('192.0.2.1', { host: 'gw.example' }, true), 'lbaas', '/load-balancer')).toBe(
      'https://gw.example/load-balancer',
    );
  });

  it('falls back to localhost for a Host that could end or split a link', () => {
    const urls = new PublicUrls(settings());
    for (const host of ['evil.example/path', 'a b', 'x@evil.example', '']) {
      expect([host, urls.base(requestFrom('192.0.2.1', { host }))]).toEqual([host, 'http://localhost']);
    }
  });

  it('prefers PUBLIC_URL (trailing slashes dropped) followed by the prefix, and a group URL as is', () => {
    const urls = new PublicUrls(settings({ PUBLIC_URL: 'https://api.example.com/', PUBLIC_URL_EVENT: 'https://events.example.com//' }));
    const req = requestFrom('192.0.2.1', { host: 'gw.internal' });
    expect(urls.base(req)).toBe('https://api.example.com');
    expect(urls.base(req, 'lbaas', '/load-balancer')).toBe('https://api.example.com/load-balancer');
    expect(urls.base(req, 'event', '/event')).toBe('https://events.example.com');
  });

  it('ignores forwarded headers from a peer not in TRUSTED_PROXIES', () => {
    const urls = new PublicUrls(settings({ TRUSTED_PROXIES: parseTrustedProxies('10.0.0.0/8') }));
    expect(urls.base(requestFrom('192.0.2.1', FORWARDED))).toBe('http://gw.internal:8780');
    expect(urls.trusted(requestFrom('192.0.2.1', FORWARDED))).toBe(false);
  });

  it("believes a trusted proxy's X-Forwarded-* and RFC 7239 Forwarded (first element, quoted values)", () => {
    const urls = new PublicUrls(settings({ TRUSTED_PROXIES: parseTrustedProxies('10.0.0.0/8') }));
    expect(urls.base(requestFrom('10.1.2.3', FORWARDED))).toBe('https://api.example.com/cloud');
    expect(urls.base(requestFrom('::ffff:10.1.2.3', FORWARDED), 'event', '/event')).toBe('https://api.example.com/cloud/event');
    const forwarded = { host: 'gw.internal', forwarded: 'for=1.2.3.4;host="api.example.com:8443";proto=https, host=other' };
    expect(urls.base(requestFrom('10.9.9.9', forwarded))).toBe('https://api.example.com:8443');
  });

  it("keeps the request's own scheme and host for a trusted proxy's values that are not plain", () => {
    const urls = new PublicUrls(settings({ TRUSTED_PROXIES: parseTrustedProxies('10.0.0.1') }));
    const odd = { host: 'gw.internal', 'x-forwarded-host': 'evil.example/x', 'x-forwarded-proto': 'gopher', 'x-forwarded-prefix': '/a b' };
    expect(urls.base(requestFrom('10.0.0.1', odd))).toBe('http://gw.internal');
  });
});

describe('PublicUrls.forward', () => {
  it("replaces an untrusted client's forwarded headers with the decided base", () => {
    const urls = new PublicUrls(settings({ PUBLIC_URL: 'https://api.example.com/cloud' }));
    const req = requestFrom('192.0.2.1', { ...FORWARDED, forwarded: 'host=evil', 'x-forwarded-for': '6.6.6.6', 'x-forwarded-port': '1' });
    urls.forward(req, 'lbaas', '/load-balancer');
    expect(req.headers).toEqual({
      host: 'gw.internal:8780',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'api.example.com',
      'x-forwarded-prefix': '/cloud/load-balancer',
    });
  });

  it("keeps a trusted proxy's X-Forwarded-For, and sends an empty prefix for a root base", () => {
    const urls = new PublicUrls(settings({ TRUSTED_PROXIES: parseTrustedProxies('10.0.0.0/8') }));
    const req = requestFrom('10.0.0.5', { host: 'gw.internal', 'x-forwarded-for': '203.0.113.9', 'x-forwarded-host': 'api.example.com' });
    urls.forward(req, 'event', '');
    expect(req.headers).toEqual({
      host: 'gw.internal',
      'x-forwarded-for': '203.0.113.9',
      'x-forwarded-proto': 'http',
      'x-forwarded-host': 'api.example.com',
      'x-forwarded-prefix': '',
    });
  });
});

describe('parseTrustedProxies', () => {
  it('is null for an empty list', () => {
    expect(parseTrustedProxies('')).toBeNull();
    expect(parseTrustedProxies(' , ')).toBeNull();
  });

  it('takes addresses and CIDR blocks of both families, separated by commas or spaces', () => {
    const list = parseTrustedProxies('10.0.0.0/8 192.0.2.7,2001:db8::/32');
    expect(list?.check('10.200.0.1', 'ipv4')).toBe(true);
    expect(list?.check('192.0.2.7', 'ipv4')).toBe(true);
    expect(list?.check('192.0.2.8', 'ipv4')).toBe(false);
    expect(list?.check('2001:db8::1', 'ipv6')).toBe(true);
    expect(list?.check('2001:db9::1', 'ipv6')).toBe(false);
  });

  it.each(['example.com', '10.0.0.0/33', '::1/129', '10.0.0.0/8/1', '10.0.0.0/x', '300.0.0.1'])('refuses %j', (entry) => {
    expect(() => parseTrustedProxies(`10.0.0.1, ${entry}`)).toThrow(`TRUSTED_PROXIES: "${entry}" is not an IP address or CIDR block`);
  });
});

describe('isPlainHost', () => {
  it.each(['api.example.com', 'api.example.com:8443', '127.0.0.1:80', '[::1]:8780', 'localhost'])('accepts %j', (host) => {
    expect(isPlainHost(host)).toBe(true);
  });

  it.each(['', 'a b', 'evil.example/x', 'x@evil.example', '-bad.example', 'a:port', `${'a'.repeat(65)}.example`])('refuses %j', (host) => {
    expect(isPlainHost(host)).toBe(false);
  });
});

describe('PublicUrls.clientAddress', () => {
  const trusted = settings({ TRUSTED_PROXIES: parseTrustedProxies('10.0.0.0/8, ::1') });
  it("is the peer's own address unless the peer is a trusted proxy", () => {
    expect(new PublicUrls(settings()).clientAddress(requestFrom('10.0.0.5', { 'x-forwarded-for': '192.0.2.9' }))).toBe('10.0.0.5');
    expect(new PublicUrls(trusted).clientAddress(requestFrom('192.0.2.1', { 'x-forwarded-for': '198.51.100.2' }))).toBe('192.0.2.1');
    expect(new PublicUrls(trusted).clientAddress(requestFrom('::ffff:192.0.2.1', {}))).toBe('192.0.2.1');
  });
  it('from a trusted proxy, the right-most forwarded hop that is not a trusted proxy (what the client sent itself is not believed)', () => {
    const urls = new PublicUrls(trusted);
    expect(urls.clientAddress(requestFrom('10.0.0.5', { 'x-forwarded-for': '203.0.113.7, 198.51.100.2, 10.1.1.1' }))).toBe('198.51.100.2');
    expect(urls.clientAddress(requestFrom('::1', { 'x-forwarded-for': '198.51.100.2:4711' }))).toBe('198.51.100.2');
    expect(urls.clientAddress(requestFrom('10.0.0.5', { forwarded: 'for=203.0.113.7, for="[2001:db8::1]:4711";proto=https' }))).toBe(
      '2001:db8::1',
    );
    expect(urls.clientAddress(requestFrom('10.0.0.5', { 'x-forwarded-for': 'unknown' }))).toBe('10.0.0.5');
    expect(urls.clientAddress(requestFrom('10.0.0.5', { 'x-forwarded-for': '203.0.113.7, unknown, 10.1.1.1' }))).toBe('10.1.1.1');
    expect(urls.clientAddress(requestFrom('10.0.0.5', {}))).toBe('10.0.0.5');
  });
});
