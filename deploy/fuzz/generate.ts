/**
 * fast-check arbitraries of requests for the operations of the gateway's OpenAPI document: a valid-ish request built
 * from the operation's schemas and the stack's known ids, then at most a couple of hostile mutations, each tagged
 * so that a failure names its cause (`id: malformed percent-encoding`, `body: unknown key`, `Content-Encoding: gzip
 * garbage`, …), and an identity (admin, member, reader, another project's member, department admin, none, bad token).
 */
import { brotliCompressSync, brotliDecompressSync, deflateSync, gunzipSync, gzipSync, inflateSync } from 'node:zlib';
import fc from 'fast-check';
import { type Draft, type Fixtures, type FuzzRequest, type Mutation, m, type Who } from './draft';
import { toJson } from './hostile';
import { bodyMutations, idMutations, queryMutations } from './mutations';
import { forgedIdentity, headerMutations, methodMutation, wireMutations } from './mutations-headers';
import { specificMutations } from './mutations-specific';
import type { Operation, Schema } from './operations';
import { baseDraft, encodeSegment } from './valid';
import { accepts } from './validate';

const BOMB_BYTES = 3 * 1024 * 1024;
const cached = new Map<string, Buffer>();
/** `{"a":1}` followed by 3 MiB of spaces (valid JSON once inflated), compressed: a few KiB on the wire. */
function bomb(coding: string): Buffer {
  let b = cached.get(coding);
  if (!b) {
    const plain = Buffer.concat([Buffer.from('{"a":1}'), Buffer.alloc(BOMB_BYTES, 0x20)]);
    b = compress(coding, plain);
    cached.set(coding, b);
  }
  return b;
}

function compress(coding: string, plain: Buffer): Buffer {
  const c = coding.toLowerCase();
  if (c === 'br') return brotliCompressSync(plain);
  if (c === 'deflate') return deflateSync(plain);
  if (c.includes('gzip')) return gzipSync(plain);
  return plain;
}

/** The wire request of a draft. */
function finish(op: Operation, resolve: (s: Schema) => Schema, d: Draft, who: Who, fx: Fixtures, garbage: Buffer): FuzzRequest {
  let path = d.path.replace(/\{([^}]+)\}/g, (_, name: string) => d.params[name] ?? 'x');
  path = `${d.prefix}${path}`;
  const query =
    d.rawQuery ?? (d.query.length > 0 ? `?${d.query.map(([k, v]) => `${encodeSegment(k)}=${encodeSegment(v)}`).join('&')}` : '');
  const headers: [string, string][] = [];
  if (who !== 'none') headers.push(['X-Auth-Token', who === 'badToken' ? 'not-a-token-0123456789abcdef' : fx.tokens[who]]);
  headers.push(['Accept', 'application/json']);
  let bytes: Buffer | undefined;
  let note: string | undefined;
  if (d.body) {
    if ('json' in d.body) bytes = Buffer.from(toJson(d.body.json));
    else {
      bytes = d.body.bytes;
      note = d.body.note;
    }
  }
  if (d.contentEncoding !== undefined) {
    const plain = bytes ?? Buffer.from('{}');
    if (d.encode === 'garbage') {
      bytes = garbage;
      note = `${garbage.length} random bytes`;
    } else if (d.encode === 'bomb') {
      bytes = bomb(d.contentEncoding);
      note = `${d.contentEncoding} of {"a":1} and 3 MiB of spaces (${bytes.length} bytes sent)`;
    } else if (d.encode === 'truncated') {
      const full = compress(d.contentEncoding, plain);
      bytes = full.subarray(0, Math.max(1, Math.floor(full.length / 2)));
      note = `the first half of the ${d.contentEncoding} of ${toPreview(plain)}`;
    } else {
      bytes = compress(d.contentEncoding, plain);
      note = `${d.contentEncoding} of ${toPreview(plain)}`;
    }
    headers.push(['Content-Encoding', d.contentEncoding]);
  }
  if (d.contentType !== undefined && bytes !== undefined) headers.push(['Content-Type', d.contentType]);
  headers.push(...d.headers);
  return {
    op,
    who,
    tags: d.tags,
    wire: {
      method: d.method,
      target: d.rawTarget ? d.rawTarget(`${path}${query}`) : `${path}${query}`,
      headers,
      ...(bytes !== undefined ? { body: bytes } : {}),
      ...(d.chunked ? { chunked: true } : {}),
      ...(d.abandon ? { abandon: true } : {}),
      ...(d.version ? { version: d.version } : {}),
    },
    ...(note ? { bodyNote: note } : {}),
    mustRefuse:
      d.mustRefuse ||
      d.encode === 'bomb' ||
      ((d.encode === 'garbage' || d.encode === 'truncated') && !decodes(d.contentEncoding ?? '', bytes)) ||
      invalidId(op, d.params) ||
      (d.method === op.method && invalidBody(op, resolve, d)),
    oversized: d.oversized,
  };
}

/** True when `bytes` decode as `coding` (random bytes sometimes are a valid, empty brotli stream). */
function decodes(coding: string, bytes: Buffer | undefined): boolean {
  try {
    const c = coding.toLowerCase();
    if (c === 'br') brotliDecompressSync(bytes ?? Buffer.alloc(0));
    else if (c === 'deflate') inflateSync(bytes ?? Buffer.alloc(0));
    else gunzipSync(bytes ?? Buffer.alloc(0));
    return true;
  } catch {
    return false;
  }
}

/** True when the draft's body is not one the operation's schema accepts (missing, not JSON, or not matching). */
function invalidBody(op: Operation, resolve: (s: Schema) => Schema, d: Draft): boolean {
  if (!op.body) return false;
  if (d.body === undefined || ('bytes' in d.body && d.body.bytes.length === 0)) return op.bodyRequired;
  if ('json' in d.body) return !accepts(op.body, d.body.json, resolve);
  try {
    // A leading BOM may be ignored (RFC 8259 §8.1), as body-parser does.
    return !accepts(op.body, JSON.parse(d.body.bytes.toString('utf8').replace(/^\ufeff/, '')), resolve);
  } catch {
    return true;
  }
}

/** Characters no stored id may hold: controls (C0, DEL, C1) and format characters (zero-width, bidi, the BOM). */
const CONTROL_OR_BIDI = (v: string) => /[\p{Cc}\p{Cf}]/u.test(v);

/**
 * True when a path id the registry would store (a PUT under /v3/domain_quota_registry) breaks its documented schema
 * (length, pattern) or holds control or bidi characters, or does not decode at all: a 2xx to it is accepted input.
 */
function invalidId(op: Operation, params: Record<string, string>): boolean {
  if (op.method !== 'PUT' || !op.path.startsWith('/v3/domain_quota_registry/')) return false;
  return op.params.some((p) => {
    if (p.in !== 'path') return false;
    let v: string;
    try {
      v = decodeURIComponent(params[p.name] ?? '');
    } catch {
      return true;
    }
    const s = p.schema;
    if (s.minLength !== undefined && v.length < s.minLength) return true;
    if (s.maxLength !== undefined && v.length > s.maxLength) return true;
    if (s.pattern && !new RegExp(s.pattern, 'u').test(v)) return true;
    return CONTROL_OR_BIDI(v);
  });
}

const toPreview = (b: Buffer) => (b.length > 120 ? `${b.subarray(0, 120).toString('utf8')}… (${b.length} bytes)` : b.toString('utf8'));

const WHO = fc.oneof(
  { arbitrary: fc.constant<Who>('admin'), weight: 7 },
  { arbitrary: fc.constant<Who>('member'), weight: 3 },
  { arbitrary: fc.constant<Who>('reader'), weight: 2 },
  { arbitrary: fc.constant<Who>('otherMember'), weight: 2 },
  { arbitrary: fc.constant<Who>('deptAdmin'), weight: 2 },
  { arbitrary: fc.constant<Who>('none'), weight: 1 },
  { arbitrary: fc.constant<Who>('badToken'), weight: 1 },
);

/**
 * Requests for one operation, as a list of arbitraries: the first is an identity, the valid-ish draft and then none
 * (a quarter of them), one or two random mutations; each of the others applies one mutation kind first (then, a
 * third of the time, a random second one), with a valid-ish one after every three. Cycling through the list covers every mutation kind of every operation
 * evenly, so that even a short run meets each class. A URL over 16 KiB (431) is among the kinds.
 */
export function operationArbitraries(op: Operation, resolve: (s: Schema) => Schema, fx: Fixtures): fc.Arbitrary<FuzzRequest>[] {
  const kinds = [
    ...idMutations(op),
    ...queryMutations(op),
    ...bodyMutations(op, fx),
    ...headerMutations(op),
    methodMutation(op),
    forgedIdentity(),
    // One slot for all of them: they stop at the gateway's HTTP parser, before anything else is exercised.
    fc.oneof(...wireMutations()),
    fc.constant(
      m('url: over 16 KiB', (d) => {
        d.rawQuery = `?marker=${'u'.repeat(17_000)}`;
      }),
    ),
    // Mutations only some operations have (trait filters, complex queries).
    ...specificMutations(op, resolve, fx),
  ];
  const one = fc.oneof(...kinds);
  const random = fc.oneof(
    { arbitrary: fc.constant<Mutation[]>([]), weight: 1 },
    { arbitrary: one.map((x) => [x]), weight: 2 },
    { arbitrary: fc.tuple(one, one), weight: 1 },
  );
  const build = (muts: fc.Arbitrary<Mutation[]>) =>
    fc.tuple(baseDraft(op, resolve, fx), WHO, muts, fc.uint8Array({ minLength: 1, maxLength: 48 })).map(([draft, who, ms, garbage]) => {
      const d: Draft = { ...draft, params: { ...draft.params }, query: [...draft.query], headers: [...draft.headers], tags: [] };
      for (const mu of ms) {
        mu.apply(d);
        if (!d.tags.includes(mu.tag)) d.tags.push(mu.tag);
      }
      return finish(op, resolve, d, who, fx, Buffer.from(garbage));
    });
  // A valid-ish request after every three mutation kinds: a quarter of the requests reach the handlers' success paths.
  const validish = build(fc.constant([]));
  return [
    build(random),
    ...kinds.flatMap((kind, i) => [
      build(fc.oneof({ arbitrary: kind.map((x) => [x]), weight: 2 }, { arbitrary: fc.tuple(kind, one), weight: 1 })),
      ...(i % 3 === 2 ? [validish] : []),
    ]),
  ];
}
