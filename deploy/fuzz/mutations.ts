/**
 * Mutations of what a request names: its path ids, its query string and its JSON body.
 */
import fc from 'fast-check';
import type { Fixtures } from './draft';
import { type Draft, type Mutation, m } from './draft';
import {
  deepText,
  ENCODED_SPECIALS,
  HOSTILE_NUMBERS,
  HOSTILE_STRINGS,
  MALFORMED_PERCENT,
  PROTOTYPE_NAMES,
  RAW,
  RAW_NUMBERS,
  withOwnKey,
} from './hostile';
import type { Operation } from './operations';
import { encodeSegment, word } from './valid';

/** Mutations of a path id (operations with path parameters). */
export function idMutations(op: Operation): fc.Arbitrary<Mutation>[] {
  const names = op.params.filter((p) => p.in === 'path').map((p) => p.name);
  if (names.length === 0) return [];
  const name = fc.constantFrom(...names);
  const setId = (tag: string, values: fc.Arbitrary<string>) =>
    fc.tuple(name, values).map(([n, v]) =>
      m(tag, (d) => {
        d.params[n] = v;
      }),
    );
  return [
    setId('id: malformed percent-encoding', fc.constantFrom(...MALFORMED_PERCENT)),
    setId('id: encoded NUL/control/bidi/separator', fc.constantFrom(...ENCODED_SPECIALS)),
    setId('id: prototype name', fc.constantFrom(...PROTOTYPE_NAMES)),
    setId(
      'id: hostile text (encoded)',
      fc.constantFrom(...HOSTILE_STRINGS).map((s) => encodeSegment(s) || '%20'),
    ),
    setId(
      'id: overlong',
      fc.constantFrom(256, 1024, 4096, 8000).map((n) => 'a'.repeat(n)),
    ),
    setId('id: empty', fc.constant('')),
    setId('id: raw UTF-8 (bidi, non-ASCII)', fc.constantFrom('\u202eevil', '名前', 'é', '\u2066x\u2069')),
    setId(
      'id: raw space, NUL or control byte (unparsable request line)',
      fc.constantFrom('a b', 'a\u0000b', 'a\tb', 'a\u007fb', 'a\u0001b', 'a\rb'),
    ),
    fc.constantFrom('/x', '/..', '/%2e%2e', '/', '//', '/x/y/z').map((tail) =>
      m('path: extra segments', (d) => {
        d.path = `${d.path}${tail}`;
      }),
    ),
  ];
}

/** Mutations of the query string. */
export function queryMutations(op: Operation): fc.Arbitrary<Mutation>[] {
  const names = op.params.filter((p) => p.in === 'query').map((p) => p.name);
  const triad = names.includes('q.field');
  const add = (tag: string, pairs: fc.Arbitrary<[string, string][]>, refuse = false) =>
    pairs.map((ps) => m(tag, (d) => void d.query.push(...ps), refuse));
  const out: fc.Arbitrary<Mutation>[] = [
    fc
      .constantFrom(
        '?&&=&',
        '?a[b]=c&__proto__[x]=1&constructor[prototype][y]=2',
        '?=%ZZ',
        '?%',
        '?q.field=%ZZ&limit=%',
        '?;;;',
        '?a=1&a=2&a=3',
        '?%00=%00',
      )
      .map((q) =>
        m('query: odd syntax / malformed percent-encoding', (d) => {
          d.rawQuery = q;
        }),
      ),
    add(
      'query: unknown parameter',
      fc.constantFrom(...PROTOTYPE_NAMES, 'foo', 'all_tenants', 'fields', 'dry_run').map((k): [string, string][] => [[k, 'x']]),
    ),
  ];
  if (names.length > 0) {
    out.push(
      add(
        'query: hostile value',
        fc
          .tuple(fc.constantFrom(...names), fc.constantFrom(...HOSTILE_STRINGS, 'x'.repeat(3000)))
          .map(([k, v]): [string, string][] => [[k, v]]),
      ),
      add(
        'query: repeated parameter',
        fc.tuple(fc.constantFrom(...names), word, word).map(([k, a, b]): [string, string][] => [
          [k, a],
          [k, b],
        ]),
      ),
    );
  }
  if (names.includes('limit')) {
    out.push(
      add(
        'query: hostile limit',
        fc
          .constantFrom('-1', '0', '1.5', '1e309', '99999999999999999999', 'abc', '', ' 1', '0x10', 'Infinity', 'NaN')
          .map((v): [string, string][] => [['limit', v]]),
      ),
    );
  }
  if (names.includes('sort')) {
    out.push(
      add(
        'query: hostile sort',
        fc
          .constantFrom(...PROTOTYPE_NAMES, ':', 'generated:sideways', '__proto__:asc', 'constructor:desc', ':asc', 'a:b:c')
          .map((v): [string, string][] => [['sort', v]]),
        true, // no documented sort key: a 2xx is accepted input
      ),
    );
  }
  if (names.includes('marker')) {
    out.push(
      add(
        'query: hostile marker',
        fc.constantFrom(...HOSTILE_STRINGS, 'z'.repeat(2000)).map((v): [string, string][] => [['marker', v]]),
      ),
    );
  }
  if (names.includes('page_reverse')) {
    out.push(
      add(
        'query: page_reverse',
        fc.constantFrom('maybe', 'TRUE', '1', '', 'yes').map((v): [string, string][] => [['page_reverse', v]]),
      ),
    );
  }
  if (triad) {
    out.push(
      add(
        'q.field: prototype name',
        fc.constantFrom(...PROTOTYPE_NAMES).map((f): [string, string][] => [
          ['q.field', f],
          ['q.value', 'x'],
        ]),
      ),
      add(
        'q.field: empty, NUL, control or bidi',
        fc.constantFrom('', 'a\u0000b', '\u0000', '\u0001', '\u202eevil', ' ', 'a b', '$where', 'a.b').map((f): [string, string][] => [
          ['q.field', f],
          ['q.value', 'x'],
        ]),
      ),
      add(
        'q.*: mismatched counts, bad op, type or value',
        fc.constantFrom<[string, string][]>(
          [
            ['q.field', 'event_type'],
            ['q.field', 'message_id'],
            ['q.value', 'x'],
          ],
          [['q.value', 'x']],
          [['q.op', 'eq']],
          [
            ['q.field', 'event_type'],
            ['q.op', 'like'],
            ['q.value', 'x'],
          ],
          [
            ['q.field', 'start_timestamp'],
            ['q.value', 'not-a-date'],
          ],
          [
            ['q.field', 'start_timestamp'],
            ['q.value', '99999-99-99T99:99:99'],
          ],
          [
            ['q.field', 'x'],
            ['q.type', 'integer'],
            ['q.value', 'abc'],
          ],
          [
            ['q.field', 'x'],
            ['q.type', 'float'],
            ['q.value', '1e400'],
          ],
          [
            ['q.field', 'x'],
            ['q.type', 'datetime'],
            ['q.value', '2026-13-45'],
          ],
          [
            ['q.field', 'x'],
            ['q.type', 'object'],
            ['q.value', '{}'],
          ],
          [
            ['q.field', 'all_tenants'],
            ['q.value', 'maybe'],
          ],
          [
            ['q.field', 'x'],
            ['q.value', 'x'],
            ['q.type', 'integer'],
            ['q.type', 'string'],
          ],
        ),
      ),
    );
  }
  return out;
}

/** A value to put where the schema wants something else. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...HOSTILE_NUMBERS),
  fc.constantFrom(...RAW_NUMBERS.map(RAW)),
  fc.constantFrom(...HOSTILE_STRINGS),
  fc.constantFrom(null, true, false, [], {}, [1, 2], { $gt: 0 }, { __proto__x: 1 }, 'x'.repeat(100_000)),
  fc.constant(JSON.parse('{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}}}')),
);

/** Paths of every value inside `v` (root first). */
function pathsOf(v: unknown, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(at);
  if (Array.isArray(v)) for (const [i, x] of v.entries()) pathsOf(x, [...at, i], out);
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) pathsOf(x, [...at, k], out);
  return out;
}

/** A copy of `root` with the value at `path` replaced by `f(old)`. */
function setAt(root: unknown, path: (string | number)[], f: (old: unknown) => unknown): unknown {
  if (path.length === 0) return f(root);
  const [head, ...rest] = path as [string | number, ...(string | number)[]];
  if (Array.isArray(root)) return root.map((x, i) => (i === head ? setAt(x, rest, f) : x));
  const copy: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(root as object))
    Object.defineProperty(copy, k, { value: k === head ? setAt(x, rest, f) : x, enumerable: true, writable: true });
  return copy;
}

/** Mutations of the JSON body (operations with a body schema), and bodies sent where none is described. */
export function bodyMutations(op: Operation, fx: Fixtures): fc.Arbitrary<Mutation>[] {
  if (!op.body) {
    return [
      fc.constantFrom('{"a":1}', '[]', 'garbage', '{"constructor":1}').map((t) =>
        m('body: where none is expected', (d) => {
          d.body = { bytes: Buffer.from(t) };
          d.contentType = 'application/json';
        }),
      ),
    ];
  }
  const jsonOf = (d: Draft) => (d.body && 'json' in d.body ? d.body.json : {});
  return [
    fc.tuple(fc.nat(), hostileValue).map(([i, h]) =>
      m('body: a value of the wrong type or out of range', (d) => {
        const v = jsonOf(d);
        const ps = pathsOf(v).filter((p) => p.length > 0);
        const p = ps.length > 0 ? ps[i % ps.length] : [];
        d.body = { json: setAt(v, p ?? [], () => h) };
      }),
    ),
    fc
      .tuple(fc.nat(), fc.constantFrom(...PROTOTYPE_NAMES, 'unknown_key', '$set', 'a.b', ''), fc.oneof(fc.constant(1), hostileValue))
      .map(([i, key, val]) =>
        m('body: unknown or prototype-named key', (d) => {
          const v = jsonOf(d);
          const objs = pathsOf(v).filter((p) => {
            const x = p.reduce<unknown>((o, k) => (o as Record<string | number, unknown>)[k], v);
            return x !== null && typeof x === 'object' && !Array.isArray(x);
          });
          const p = objs.length > 0 ? objs[i % objs.length] : [];
          d.body = { json: setAt(v, p ?? [], (o) => withOwnKey(o, key, val)) };
        }),
      ),
    fc
      .constantFrom(
        '',
        '{',
        '{"a":}',
        'nul',
        '[1,]',
        '\u0000',
        '{"a":1}{"b":2}',
        '"string"',
        '123',
        'null',
        '[]',
        '{}',
        "{'a':1}",
        '\ufeff{}',
      )
      .map((t) =>
        m('body: not the JSON the schema describes', (d) => {
          d.body = { bytes: Buffer.from(t) };
        }),
      ),
    fc.tuple(fc.constantFrom(64, 1000, 5000, 100_000), fc.constantFrom<'array' | 'object'>('array', 'object')).map(([n, k]) =>
      m('body: deep nesting', (d) => {
        d.body = { bytes: Buffer.from(deepText(n, k)), note: `nesting depth ${n} (${k}s)` };
      }),
    ),
    fc.constant(
      m('body: over MAX_BODY_BYTES', (d) => {
        const pad = 'x'.repeat(fx.maxBodyBytes + 1024);
        d.body = { bytes: Buffer.from(`{"pad":"${pad}"}`), note: `{"pad":"x…"} of ${fx.maxBodyBytes + 1034} bytes` };
        d.oversized = true;
      }),
    ),
    fc.constant(
      m('body: none', (d) => {
        d.body = undefined;
      }),
    ),
  ];
}
