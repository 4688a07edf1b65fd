/**
 * The JSONPath dialect of Ceilometer's event definitions: python-jsonpath-rw with the jsonpath-rw-ext extensions
 * (Ceilometer's `declarative.Definition` uses `jsonpath_rw_ext.parser.ExtentedJsonPathParser`).
 *
 * Why our own parser: the dialect is not RFC 9535 JSONPath (no leading `$`, unquoted filter values as in
 * `payload.glance_metadata[?key=image_id].value`, backtick operators such as `` publisher_id.`split(., 1, 1)` ``,
 * `|` unions that bind tighter than `.`), and no JavaScript library implements it. Supported:
 * - fields `a`, quoted fields `'org.openstack__1__architecture'` / `"a b"`, field lists `a,b`, `*`, `$` (root);
 * - child `a.b`, descendants `a..b`, union `a|b`, `a where b`, parentheses;
 * - indexes `[0]`, `[-1]`, `[*]`, slices `[1:3]`;
 * - filters `[?expr & expr]` where expr is `path` (exists) or `path OP value`, OP one of `== = != < <= > >= ~`,
 *   value a number, `true`/`false`, a quoted string or a bare word; `~` is Python's `re.match` (anchored at the
 *   start); an integer or boolean right side compares against `int()` of the left side, as jsonpath-rw-ext;
 * - backtick operators `` `this` ``, `` `len` ``, `` `sorted` ``, `` `split(sep, segment, maxsplit)` ``,
 *   `` `sub(/regex/, repl)` `` (no match when the value is unchanged).
 * `find` returns matches in document order with their path (`payload.volume_attachment.[0].server_id`, the form
 * jsonpath-rw's `str(match.path)` gives, which the bitfield plugin compares against).
 */

import { type NamedOp, type Node, Parser, tokenize } from './jsonpath.parser';
import { isJsonObject as isObject, toNumber } from './python';

export { JsonPathSyntaxError } from './jsonpath.parser';

export type Json = unknown;

export interface Match {
  value: Json;
  /** Dotted path of the match from the root (`payload.port.id`, `payload.list.[0]`). */
  path: string;
}

/** Parses an expression once; reuse the result (Ceilometer caches getters the same way). */
export function compileJsonPath(src: string): JsonPath {
  return new JsonPath(new Parser(tokenize(src), src).parseAll(), src);
}

const join = (base: string, part: string) => (base === '' ? part : `${base}.${part}`);

function compare(op: string, a: Json, b: string | number | boolean): boolean {
  if (a === null || a === undefined) return false;
  let left: Json = a;
  let right: Json = b;
  if ((typeof b === 'number' && Number.isInteger(b)) || typeof b === 'boolean') {
    // jsonpath-rw-ext: int() of the left side; a value int() refuses skips the element.
    right = Number(b);
    const n = toNumber(a);
    left =
      typeof a === 'boolean'
        ? Number(a)
        : n !== undefined
          ? Math.trunc(n)
          : typeof a === 'string' && /^\s*[+-]?\d+\s*$/.test(a)
            ? Number(a)
            : undefined;
    if (left === undefined) return false;
  } else if (typeof b === 'number') {
    left = toNumber(a) ?? a;
  }
  const r = right as number;
  switch (op) {
    case '==':
      return left === r;
    case '!=':
      return left !== r;
    case '<':
      return (left as number) < r;
    case '<=':
      return (left as number) <= r;
    case '>':
      return (left as number) > r;
    case '>=':
      return (left as number) >= r;
    case '~':
      return typeof left === 'string' && new RegExp(`^(?:${String(b)})`).test(left);
    default:
      return false;
  }
}

/** Python `str.split(sep, maxsplit)`: maxsplit -1 = unlimited; the remainder stays in the last piece. */
export function pySplit(value: string, sep: string, maxSplit: number): string[] {
  const parts = value.split(sep);
  if (maxSplit < 0 || parts.length <= maxSplit + 1) return parts;
  return [...parts.slice(0, maxSplit), parts.slice(maxSplit).join(sep)];
}

/** A compiled expression. */
export class JsonPath {
  constructor(
    private readonly node: Node,
    /** The expression as written. */
    readonly source: string,
  ) {}

  /** Every match in `root`, in jsonpath-rw's order (a `|` union lists its left side first). */
  find(root: Json): Match[] {
    return this.eval(this.node, [{ value: root, path: '' }], root);
  }

  private eval(node: Node, input: Match[], root: Json): Match[] {
    const out: Match[] = [];
    for (const m of input) out.push(...this.one(node, m, root));
    return out;
  }

  private one(node: Node, m: Match, root: Json): Match[] {
    switch (node.kind) {
      case 'root':
        return [{ value: root, path: '$' }];
      case 'this':
        return [m];
      case 'fields': {
        if (!isObject(m.value)) return [];
        const obj = m.value;
        const names = node.names.includes('*') ? Object.keys(obj) : node.names;
        return names.filter((n) => Object.hasOwn(obj, n)).map((n) => ({ value: obj[n], path: join(m.path, n) }));
      }
      case 'child':
        return this.eval(node.right, this.one(node.left, m, root), root);
      case 'union':
        return [...this.one(node.left, m, root), ...this.one(node.right, m, root)];
      case 'where':
        return this.one(node.left, m, root).filter((l) => this.one(node.right, l, root).length > 0);
      case 'descendants': {
        const out: Match[] = [];
        const walk = (d: Match) => {
          out.push(...this.one(node.right, d, root));
          if (Array.isArray(d.value)) {
            for (const [i, v] of d.value.entries()) walk({ value: v, path: join(d.path, `[${i}]`) });
          } else if (isObject(d.value)) {
            for (const [k, v] of Object.entries(d.value)) walk({ value: v, path: join(d.path, k) });
          }
        };
        for (const l of this.one(node.left, m, root)) walk(l);
        return out;
      }
      case 'index': {
        const targets = node.target ? this.one(node.target, m, root) : [m];
        return targets.flatMap((d) => {
          if (!Array.isArray(d.value)) return [];
          const i = node.index < 0 ? d.value.length + node.index : node.index;
          return i >= 0 && i < d.value.length ? [{ value: d.value[i], path: join(d.path, `[${i}]`) }] : [];
        });
      }
      case 'slice': {
        const targets = node.target ? this.one(node.target, m, root) : [m];
        return targets.flatMap((d) => {
          // jsonpath-rw treats a non-list as a list of one for slices.
          const list = Array.isArray(d.value) ? d.value : [d.value];
          const from = node.start === undefined ? 0 : node.start < 0 ? list.length + node.start : node.start;
          const to = node.end === undefined ? list.length : node.end < 0 ? list.length + node.end : node.end;
          const out: Match[] = [];
          for (let i = Math.max(0, from); i < Math.min(list.length, to); i++) {
            out.push({ value: list[i], path: join(d.path, `[${i}]`) });
          }
          return out;
        });
      }
      case 'filter': {
        const targets = node.target ? this.one(node.target, m, root) : [m];
        return targets.flatMap((d) => {
          // jsonpath-rw-ext filters the values of a dict as if they were a list.
          const list = Array.isArray(d.value) ? d.value : isObject(d.value) ? Object.values(d.value) : undefined;
          if (!list) return [];
          const out: Match[] = [];
          list.forEach((item, i) => {
            const el = { value: item, path: join(d.path, `[${i}]`) };
            const ok = node.exprs.every((e) => {
              const found = this.one(e.path, el, root);
              return e.op === undefined
                ? found.length > 0
                : found.some((f) => compare(e.op as string, f.value, e.value as string | number | boolean));
            });
            if (ok) out.push(el);
          });
          return out;
        });
      }
      case 'op':
        return this.named(node.op, m);
    }
  }

  private named(op: NamedOp, m: Match): Match[] {
    const at = (value: Json, name: string) => [{ value, path: join(m.path, `\`${name}\``) }];
    switch (op.name) {
      case 'this':
        return [m];
      case 'len':
        return Array.isArray(m.value) || typeof m.value === 'string' ? at(m.value.length, 'len') : [];
      case 'sorted':
        if (Array.isArray(m.value)) return at([...m.value].sort(), 'sorted');
        return isObject(m.value) ? at(Object.keys(m.value).sort(), 'sorted') : [];
      case 'split': {
        if (typeof m.value !== 'string') return [];
        const parts = pySplit(m.value, op.sep, op.maxSplit);
        const i = op.segment < 0 ? parts.length + op.segment : op.segment;
        return i >= 0 && i < parts.length ? at(parts[i], 'split') : [];
      }
      case 'sub': {
        if (typeof m.value !== 'string') return [];
        const replaced = m.value.replace(op.regex, op.repl);
        return replaced === m.value ? [] : at(replaced, 'sub');
      }
    }
  }
}
