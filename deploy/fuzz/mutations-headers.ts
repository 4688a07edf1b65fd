/**
 * Mutations of how a request is framed: the headers (Content-Type lies, Content-Encoding, forged identity), the HTTP
 * wire itself (what node's parser refuses), and another method on the operation's path.
 */
import fc from 'fast-check';
import { type Mutation, m } from './draft';
import type { Operation } from './operations';

/** Mutations of the headers that frame the body (Content-Type lies, Content-Encoding), and of others. */
export function headerMutations(op: Operation): fc.Arbitrary<Mutation>[] {
  const out: fc.Arbitrary<Mutation>[] = [
    fc.constantFrom('evil.example', 'evil.example:666', 'evil.example, gateway', 'evil.example/<script>').map((h) =>
      m('X-Forwarded-Host: untrusted', (d) => {
        d.headers.push(['X-Forwarded-Host', h], ['X-Forwarded-Proto', 'https']);
        // A page of one, so that a list answers with links (where a forwarded host would show).
        if (op.params.some((p) => p.name === 'limit')) d.query.push(['limit', '1']);
      }),
    ),
    fc
      .constantFrom('', 'req-\u00ff', 'x'.repeat(5000), 'req-00000000-0000-0000-0000-000000000000', '../../etc')
      .map((v) => m('X-Openstack-Request-Id: hostile', (d) => void d.headers.push(['X-Openstack-Request-Id', v]))),
  ];
  if (!op.body) return out;
  out.push(
    fc
      .constantFrom(
        'text/plain',
        'application/xml',
        'multipart/form-data; boundary=x',
        'application/x-www-form-urlencoded',
        'application/json; charset=utf-16',
        'application/json; charset=latin1',
        'application/json; charset=bogus',
        'a/b/c',
        '',
        'application/merge-patch+json',
        'APPLICATION/JSON',
      )
      .map((ct) =>
        m('Content-Type: a lie', (d) => {
          d.contentType = ct;
        }),
      ),
    fc.constant(
      m('Content-Type: none', (d) => {
        d.contentType = undefined;
      }),
    ),
    fc.constantFrom('gzip', 'deflate', 'br', 'x-gzip').map((ce) =>
      m(`Content-Encoding: ${ce}, valid`, (d) => {
        d.contentEncoding = ce;
        d.encode = 'valid';
      }),
    ),
    fc.constantFrom('gzip', 'deflate', 'br').map((ce) =>
      m(`Content-Encoding: ${ce}, garbage`, (d) => {
        d.contentEncoding = ce;
        d.encode = 'garbage';
      }),
    ),
    fc.constantFrom('gzip', 'deflate', 'br').map((ce) =>
      m(`Content-Encoding: ${ce}, truncated`, (d) => {
        d.contentEncoding = ce;
        d.encode = 'truncated';
      }),
    ),
    fc.constantFrom('gzip', 'deflate', 'br').map((ce) =>
      m(`Content-Encoding: ${ce}, bomb past the limit`, (d) => {
        d.contentEncoding = ce;
        d.encode = 'bomb';
      }),
    ),
    fc.constantFrom('compress', 'gzip, br', 'identity', 'GZIP', 'zstd', 'gzip;q=1', '\u0000').map((ce) =>
      m('Content-Encoding: unknown or listed', (d) => {
        d.contentEncoding = ce;
        d.encode = 'valid';
      }),
    ),
    fc.constant(
      m('Transfer-Encoding: chunked', (d) => {
        d.chunked = true;
      }),
    ),
    fc.constant(
      m('Expect: 100-continue', (d) => {
        d.headers.push(['Expect', '100-continue']);
      }),
    ),
    fc.constant(
      m('client gives up mid-upload', (d) => {
        d.abandon = true;
      }),
    ),
  );
  return out;
}

/** Identity headers a client sets itself to impersonate someone (the gateway must drop them all). */
export function forgedIdentity(): fc.Arbitrary<Mutation> {
  const sets: [string, string][][] = [
    [
      ['X-Roles', 'admin'],
      ['X-Project-Id', 'default'],
      ['X-User-Id', 'root'],
      ['X-Identity-Status', 'Confirmed'],
    ],
    [
      ['X-Identity-Timestamp', String(Math.floor(Date.now() / 1000))],
      ['X-Identity-Signature', 'deadbeef'],
      ['X-Roles', 'admin,service'],
    ],
    [
      ['X-Service-Roles', 'service'],
      ['X-Tenant-Id', 'other'],
      ['X-Domain-Id', 'default'],
    ],
  ];
  return fc.constantFrom(...sets).map((hs) =>
    m('identity headers forged by the client', (d) => {
      d.headers.push(...hs);
    }),
  );
}

/**
 * Requests the HTTP parser itself refuses or reads oddly: Content-Length beside chunked (request smuggling), a header
 * over 16 KiB, invalid header names or values, an absolute-form target, HTTP/1.0 and unknown protocol versions.
 */
export function wireMutations(): fc.Arbitrary<Mutation>[] {
  return [
    fc.constant(
      m('wire: Content-Length beside Transfer-Encoding: chunked', (d) => {
        d.chunked = true;
        d.headers.push(['Content-Length', '3']);
      }),
    ),
    fc.constant(
      m('wire: a header over 16 KiB', (d) => {
        d.headers.push(['X-Big', 'b'.repeat(17_000)]);
      }),
    ),
    fc
      .constantFrom<[string, string]>(
        ['X Bad', 'y'],
        ['X-Ctl', 'a\u0001b'],
        ['X-Nul', 'a\u0000b'],
        ['', 'empty name'],
        ['X-Fold', 'a\r\n b'],
      )
      .map((h) =>
        m('wire: invalid header name or value', (d) => {
          d.headers.push(h);
        }),
      ),
    fc.constantFrom('http://evil.example', 'http://127.0.0.1:1', '//evil.example').map((origin) =>
      m('wire: absolute-form target', (d) => {
        d.rawTarget = (t) => `${origin}${t}`;
      }),
    ),
    fc.constantFrom('HTTP/1.0', 'HTTP/2.0', 'HTTP/9.9', 'HTTP/1.1 extra').map((version) =>
      m('wire: another protocol version', (d) => {
        d.version = version;
      }),
    ),
  ];
}

/** Another method on the operation's path (405 or 404 in the group's shape). */
export function methodMutation(op: Operation): fc.Arbitrary<Mutation> {
  const others = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'PROPFIND'].filter((x) => x !== op.method);
  return fc.constantFrom(...others).map((method) =>
    m('method: another one', (d) => {
      d.method = method;
    }),
  );
}
