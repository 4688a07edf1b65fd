/**
 * The base URL links are built on (versions documents, `Link` headers, paging links, `WWW-Authenticate`), decided
 * without trusting what any client says about the host:
 *
 * 1. a configured public URL: PUBLIC_URL_<GROUP> for that group's links, else PUBLIC_URL (+ the group prefix the
 *    client used), as keystonemiddleware's `www_authenticate_uri` and Octavia's `api_base_uri` are configured;
 * 2. else, from a peer in TRUSTED_PROXIES only, the proxy's `Forwarded` (RFC 7239) or `X-Forwarded-Proto`/
 *    `X-Forwarded-Host`/`X-Forwarded-Prefix`, as oslo.middleware's HTTPProxyToWSGI does with
 *    `enable_proxy_headers_parsing` (off by default);
 * 3. else the request's own `Host` and whether the connection is TLS.
 *
 * Forwarded headers from anyone else are removed before proxying, and the services are sent the decided base in
 * `X-Forwarded-Proto`/`X-Forwarded-Host`/`X-Forwarded-Prefix` (they are reachable only with the gateway's signature).
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Group } from './routes';

/** `host[:port]` as a URL authority may hold it (a name, IPv4, or bracketed IPv6), nothing that could end a link. */
const HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;
/** A path prefix of plain segments (`/a/b`), or empty. */
const PREFIX = /^(?:\/[A-Za-z0-9._~%-]+)*$/;

/** Whether `host` is a syntactically plain `host[:port]`. */
export const isPlainHost = (host: string): boolean => host.length <= 255 && HOST.test(host);

/**
 * Parses TRUSTED_PROXIES: IP addresses and CIDR blocks (IPv4 or IPv6), separated by commas or spaces.
 * @returns null for an empty list (no proxy is trusted).
 * @throws Error naming the entry that is neither.
 */
export function parseTrustedProxies(text: string): BlockList | null {
  const entries = text.split(/[\s,]+/).filter((e) => e !== '');
  if (entries.length === 0) return null;
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', bits, extra] = entry.split('/');
    const family = isIP(address);
    const max = family === 4 ? 32 : 128;
    if (family === 0 || extra !== undefined || (bits !== undefined && !/^\d{1,3}$/.test(bits)) || Number(bits ?? 0) > max) {
      throw new Error(`TRUSTED_PROXIES: "${entry}" is not an IP address or CIDR block`);
    }
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(bits), type);
  }
  return list;
}

/** The peer's address as BlockList checks it (an IPv4-mapped IPv6 address as IPv4). */
function peerOf(req: IncomingMessage): { address: string; type: 'ipv4' | 'ipv6' } | null {
  let address = req.socket.remoteAddress;
  if (!address) return null;
  if (address.startsWith('::ffff:') && isIP(address.slice(7)) === 4) address = address.slice(7);
  const family = isIP(address);
  return family === 0 ? null : { address, type: family === 4 ? 'ipv4' : 'ipv6' };
}

/** The first value of a header that may be repeated or comma-joined. */
function first(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  const text = Array.isArray(v) ? v[0] : v;
  return text?.split(',')[0]?.trim() || undefined;
}

/** `host` and `proto` of the first element of an RFC 7239 `Forwarded` header. */
function forwardedPairs(header: string | undefined): { host?: string; proto?: string } {
  const out: { host?: string; proto?: string } = {};
  const element = header?.split(',')[0] ?? '';
  for (const pair of element.split(';')) {
    const eq = pair.indexOf('=');
    if (eq < 0) continue;
    const key = pair.slice(0, eq).trim().toLowerCase();
    let value = pair.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    if (key === 'host' || key === 'proto') out[key] = value;
  }
  return out;
}

/** An address as a forwarded hop gives it (`192.0.2.1`, `192.0.2.1:4711`, `[2001:db8::1]:4711`, `2001:db8::1`), or null. */
function hopAddress(text: string): { address: string; type: 'ipv4' | 'ipv6' } | null {
  let v = text.trim();
  if (v.startsWith('"') && v.endsWith('"') && v.length >= 2) v = v.slice(1, -1);
  if (v.startsWith('[')) v = v.slice(1, v.indexOf(']') < 0 ? v.length : v.indexOf(']'));
  else if (isIP(v) === 0 && /^[^:]+:\d+$/.test(v)) v = v.slice(0, v.lastIndexOf(':'));
  if (v.startsWith('::ffff:') && isIP(v.slice(7)) === 4) v = v.slice(7);
  const family = isIP(v);
  return family === 0 ? null : { address: v, type: family === 4 ? 'ipv4' : 'ipv6' };
}

/** The `for=` address of one element of an RFC 7239 `Forwarded` header, or null. */
function forwardedFor(element: string): { address: string; type: 'ipv4' | 'ipv6' } | null {
  for (const pair of element.split(';')) {
    const eq = pair.indexOf('=');
    if (eq >= 0 && pair.slice(0, eq).trim().toLowerCase() === 'for') return hopAddress(pair.slice(eq + 1));
  }
  return null;
}

/** A configured public URL without its trailing slash. */
const trimmed = (url: string) => url.replace(/\/+$/, '');

/** The settings PublicUrls reads (the gateway's configuration). */
export interface PublicUrlSettings {
  PUBLIC_URL: string;
  PUBLIC_URL_EVENT: string;
  PUBLIC_URL_LBAAS: string;
  PUBLIC_URL_DOMAIN: string;
  TRUSTED_PROXIES: BlockList | null;
}

export class PublicUrls {
  private readonly root: string;
  private readonly perGroup: Record<Group, string>;

  constructor(private readonly settings: PublicUrlSettings) {
    this.root = trimmed(settings.PUBLIC_URL);
    this.perGroup = {
      event: trimmed(settings.PUBLIC_URL_EVENT),
      lbaas: trimmed(settings.PUBLIC_URL_LBAAS),
      domain: trimmed(settings.PUBLIC_URL_DOMAIN),
    };
  }

  /** Whether the request came straight from a proxy listed in TRUSTED_PROXIES. */
  trusted(req: IncomingMessage): boolean {
    const list = this.settings.TRUSTED_PROXIES;
    const peer = list ? peerOf(req) : null;
    return peer !== null && (list as BlockList).check(peer.address, peer.type);
  }

  /**
   * The base URL (`proto://host[/path]`, no trailing slash) of links in answers to `req`: for `group`'s links its
   * configured public URL, else PUBLIC_URL or the request's own origin followed by `prefix` (the group prefix the
   * client addressed, e.g. `/load-balancer`, or '').
   */
  base(req: IncomingMessage, group?: Group, prefix = ''): string {
    const own = group ? this.perGroup[group] : '';
    if (own) return own;
    if (this.root) return `${this.root}${prefix}`;
    return `${this.origin(req)}${prefix}`;
  }

  /** The origin the client addressed: from a trusted proxy's forwarded headers, else the request's own. */
  private origin(req: IncomingMessage): string {
    const h = req.headers;
    const ownProto = (req.socket as TLSSocket).encrypted ? 'https' : 'http';
    const ownHost = typeof h.host === 'string' && isPlainHost(h.host) ? h.host : 'localhost';
    if (!this.trusted(req)) return `${ownProto}://${ownHost}`;
    const fwd = forwardedPairs(typeof h.forwarded === 'string' ? h.forwarded : undefined);
    const proto = (fwd.proto ?? first(h, 'x-forwarded-proto') ?? '').toLowerCase();
    const host = fwd.host ?? first(h, 'x-forwarded-host') ?? '';
    const prefix = first(h, 'x-forwarded-prefix') ?? '';
    return `${proto === 'http' || proto === 'https' ? proto : ownProto}://${isPlainHost(host) ? host : ownHost}${PREFIX.test(prefix) ? prefix.replace(/\/$/, '') : ''}`;
  }

  /**
   * The client's address, for per-client limits (the console's sign-in): the peer's own, unless the peer is a proxy
   * in TRUSTED_PROXIES; then the hops of its `Forwarded` (`for=`) or else `X-Forwarded-For` are read from the right,
   * each trusted proxy skipped, and the first address not trusted is the client's. A hop that is not an IP address
   * (`unknown`, an obfuscated name) stops the walk at the last trusted proxy's address.
   */
  clientAddress(req: IncomingMessage): string {
    const peer = peerOf(req);
    if (!peer) return req.socket.remoteAddress ?? '';
    const list = this.settings.TRUSTED_PROXIES;
    if (!list?.check(peer.address, peer.type)) return peer.address;
    const h = req.headers;
    const joined = (name: string) => (Array.isArray(h[name]) ? (h[name] as string[]).join(',') : (h[name] as string | undefined));
    const forwarded = joined('forwarded');
    const hops = forwarded
      ? forwarded.split(',').map((element) => forwardedFor(element))
      : (joined('x-forwarded-for') ?? '').split(',').map((v) => hopAddress(v.trim()));
    let client = peer.address;
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hops[i];
      if (!hop) break;
      client = hop.address;
      if (!list.check(hop.address, hop.type)) break;
    }
    return client;
  }

  /**
   * Replaces every forwarded header of a request about to be proxied with the base the gateway decided
   * (`X-Forwarded-Proto`, `-Host`, `-Prefix`); a trusted proxy's `X-Forwarded-For` is kept.
   */
  forward(req: IncomingMessage, group: Group, prefix: string): void {
    const base = new URL(this.base(req, group, prefix));
    const h = req.headers;
    const forwardedFor = this.trusted(req) ? h['x-forwarded-for'] : undefined;
    for (const name of Object.keys(h)) if (name === 'forwarded' || name.startsWith('x-forwarded-')) delete h[name];
    if (forwardedFor !== undefined) h['x-forwarded-for'] = forwardedFor;
    h['x-forwarded-proto'] = base.protocol.slice(0, -1);
    h['x-forwarded-host'] = base.host;
    h['x-forwarded-prefix'] = base.pathname === '/' ? '' : base.pathname.replace(/\/$/, '');
  }
}
