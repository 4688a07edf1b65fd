/**
 * A raw HTTP/1.1 client for the fuzz suite: the request line, headers and body go on the socket exactly as given
 * (no re-encoding of the target, no header validation), so malformed percent-encoding, raw UTF-8, control bytes and
 * header lies reach the gateway as a hostile client would send them. One connection per request (`Connection: close`).
 */
import { connect } from 'node:net';

/** A request as bytes on the wire. */
export interface WireRequest {
  method: string;
  /** The request target exactly as sent (path and query), not re-encoded. */
  target: string;
  /** Header lines in order; repeated names are sent repeatedly. Host and Connection are added. */
  headers: [string, string][];
  body?: Buffer;
  /** Send the body with `Transfer-Encoding: chunked` instead of Content-Length. */
  chunked?: boolean;
  /** Send the head and half the body, then close the connection (a client that gives up mid-upload). */
  abandon?: boolean;
  /** The request line's protocol (default `HTTP/1.1`). */
  version?: string;
}

export interface WireResponse {
  status: number;
  /** Header names lower-cased; repeated headers joined with `, `. */
  headers: Record<string, string>;
  body: Buffer;
}

/** What came back: a whole response, nothing within the time limit, or a connection closed without a whole response. */
export type WireOutcome =
  | { kind: 'response'; response: WireResponse; ms: number }
  | { kind: 'timeout'; ms: number; partial: string }
  | { kind: 'closed'; ms: number; error: string; partial: string };

const HEAD_END = Buffer.from('\r\n\r\n');

/** Decodes a chunked body; `complete` once the last (zero-size) chunk was read. */
function dechunk(raw: Buffer): { body: Buffer; complete: boolean } {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = raw.indexOf('\r\n', at);
    if (eol < 0) return { body: Buffer.concat(parts), complete: false };
    const size = Number.parseInt(raw.subarray(at, eol).toString('latin1').split(';')[0] ?? '', 16);
    if (!Number.isFinite(size)) return { body: Buffer.concat(parts), complete: false };
    if (size === 0) return { body: Buffer.concat(parts), complete: true };
    if (raw.length < eol + 2 + size + 2) return { body: Buffer.concat(parts), complete: false };
    parts.push(raw.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}

/**
 * Parses what was received so far. @returns the response and whether it is complete (`ended`: the server closed the
 * connection, which ends a body without a length), or null before the whole head arrived.
 */
export function parseResponse(buf: Buffer, method: string, ended: boolean): { response: WireResponse; complete: boolean } | null {
  const end = buf.indexOf(HEAD_END);
  if (end < 0) return null;
  const lines = buf.subarray(0, end).toString('latin1').split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '');
  if (!m) return null;
  const status = Number(m[1]);
  // An interim answer (100 Continue to `Expect: 100-continue`) comes before the real one.
  if (status >= 100 && status < 200 && status !== 101) return parseResponse(buf.subarray(end + 4), method, ended);
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  const rest = buf.subarray(end + 4);
  if (method === 'HEAD' || status === 204 || status === 304 || status === 101) {
    return { response: { status, headers, body: Buffer.alloc(0) }, complete: true };
  }
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
    const { body, complete } = dechunk(rest);
    return { response: { status, headers, body }, complete: complete || ended };
  }
  const length = headers['content-length'];
  if (length !== undefined) {
    const n = Number(length);
    return { response: { status, headers, body: rest.subarray(0, n) }, complete: rest.length >= n || ended };
  }
  return { response: { status, headers, body: rest }, complete: ended };
}

/** The request's bytes: request line, headers (Host, Connection: close, the body's framing added), body. */
export function encodeRequest(host: string, req: WireRequest): Buffer {
  const lines = [`${req.method} ${req.target} ${req.version ?? 'HTTP/1.1'}`, `Host: ${host}`, 'Connection: close'];
  for (const [name, value] of req.headers) lines.push(`${name}: ${value}`);
  const body = req.body ?? Buffer.alloc(0);
  if (req.chunked) {
    lines.push('Transfer-Encoding: chunked');
    const framed = body.length > 0 ? [Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n')] : [];
    return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'utf8'), ...framed, Buffer.from('0\r\n\r\n')]);
  }
  if (req.body !== undefined) lines.push(`Content-Length: ${body.length}`);
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'utf8'), body]);
}

/**
 * Sends one request on a new connection to `host:port` and waits at most `timeoutMs` for the whole response.
 * Never rejects: a refused or reset connection is a `closed` outcome (with whatever partial response came).
 */
export function sendRaw(host: string, port: number, req: WireRequest, timeoutMs: number): Promise<WireOutcome> {
  const t0 = performance.now();
  const ms = () => Math.round(performance.now() - t0);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let done = false;
    const socket = connect({ host, port });
    const finish = (outcome: WireOutcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const received = () => Buffer.concat(chunks);
    const preview = () => received().subarray(0, 200).toString('latin1');
    const timer = setTimeout(() => finish({ kind: 'timeout', ms: ms(), partial: preview() }), timeoutMs);
    const settle = (ended: boolean, error?: string) => {
      const parsed = parseResponse(received(), req.method, ended);
      if (parsed?.complete) finish({ kind: 'response', response: parsed.response, ms: ms() });
      else if (ended) finish({ kind: 'closed', ms: ms(), error: error ?? 'closed', partial: preview() });
    };
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      settle(false);
    });
    socket.on('end', () => settle(true));
    socket.on('close', () => settle(true));
    socket.on('error', (err: NodeJS.ErrnoException) => settle(true, err.code ?? err.message));
    socket.on('connect', () => {
      const bytes = encodeRequest(`${host}:${port}`, req);
      if (req.abandon) {
        const cut = bytes.length - Math.ceil((req.body?.length ?? 0) / 2);
        socket.write(bytes.subarray(0, cut), () =>
          setTimeout(() => finish({ kind: 'closed', ms: ms(), error: 'abandoned by the client', partial: '' }), 20),
        );
        return;
      }
      // The server may answer (413, 415, 431) and close before the whole body is written: an EPIPE then is not a failure.
      socket.write(bytes, () => undefined);
    });
  });
}
