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

import { toNumber } from './python';

export type Json = unknown;

export interface Match {
  value: Json;
  /** Dotted path of the match from the root (`payload.port.id`, `payload.list.[0]`). */
  path: string;
}

type Node =
  | { kind: 'root' }
  | { kind: 'this' }
  | { kind: 'fields'; names: string[] } // '*' alone means every key
  | { kind: 'child'; left: Node; right: Node }
  | { kind: 'descendants'; left: Node; right: Node }
  | { kind: 'union'; left: Node; right: Node }
  | { kind: 'where'; left: Node; right: Node }
  | { kind: 'index'; target: Node | null; index: number }
  | { kind: 'slice'; target: Node | null; start?: number; end?: number }
  | { kind: 'filter'; target: Node | null; exprs: FilterExpr[] }
  | { kind: 'op'; op: NamedOp };

interface FilterExpr {
  path: Node;
  op?: string;
  value?: string | number | boolean;
}

type NamedOp =
  | { name: 'this' | 'len' | 'sorted' }
  | { name: 'split'; sep: string; segment: number; maxSplit: number }
  | { name: 'sub'; regex: RegExp; repl: string };

/** A definitions file names a path this dialect cannot parse; the message says where. */
export class JsonPathSyntaxError extends Error {}

type Tok = { t: 'id'; v: string } | { t: 'num'; v: number } | { t: 'op'; v: string } | { t: 'named'; v: string } | { t: 'end' };

const FILTER_OPS = ['==', '!=', '<=', '>=', '=', '<', '>', '~'];

function tokenize(src: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i] as string;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '`') {
      const end = src.indexOf('`', i + 1);
      if (end < 0) throw new JsonPathSyntaxError(`unterminated \` in ${src}`);
      out.push({ t: 'named', v: src.slice(i + 1, end) });
      i = end + 1;
      continue;
    }
    if (c === "'" || c === '"') {
      let j = i + 1;
      let s = '';
      while (j < src.length && src[j] !== c) {
        if (src[j] === '\\' && j + 1 < src.length) j++;
        s += src[j];
        j++;
      }
      if (j >= src.length) throw new JsonPathSyntaxError(`unterminated quote in ${src}`);
      out.push({ t: 'id', v: s });
      i = j + 1;
      continue;
    }
    if (src.startsWith('..', i)) {
      out.push({ t: 'op', v: '..' });
      i += 2;
      continue;
    }
    const two = src.slice(i, i + 2);
    if (FILTER_OPS.includes(two)) {
      out.push({ t: 'op', v: two });
      i += 2;
      continue;
    }
    if ('.|&[]()*,:?$=<>~'.includes(c)) {
      out.push({ t: 'op', v: c });
      i++;
      continue;
    }
    const num = /^-?\d+/.exec(src.slice(i));
    if (num && (c === '-' || /\d/.test(c))) {
      // A number directly followed by identifier characters is an identifier (`1abc`), as jsonpath-rw's lexer.
      const idm = /^[A-Za-z0-9_@-]+/.exec(src.slice(i));
      if (idm && idm[0] !== num[0]) {
        out.push({ t: 'id', v: idm[0] });
        i += idm[0].length;
      } else {
        out.push({ t: 'num', v: Number(num[0]) });
        i += num[0].length;
      }
      continue;
    }
    const id = /^[A-Za-z_@][A-Za-z0-9_@-]*/.exec(src.slice(i));
    if (id) {
      out.push({ t: 'id', v: id[0] });
      i += id[0].length;
      continue;
    }
    throw new JsonPathSyntaxError(`unexpected character '${c}' at ${i} in ${src}`);
  }
  out.push({ t: 'end' });
  return out;
}

function parseNamed(text: string, src: string): NamedOp {
  const t = text.trim();
  if (t === 'this' || t === 'len' || t === 'sorted') return { name: t };
  // jsonpath-rw-ext: split(<one character>, <segment>, <maxsplit>), maxsplit -1 = no limit.
  const split = /^split\((.),\s*(-?\d+),\s*(-?\d+)\)$/.exec(t);
  if (split) {
    return { name: 'split', sep: split[1] as string, segment: Number(split[2]), maxSplit: Number(split[3]) };
  }
  const sub = /^sub\(\/(.*)\/,\s*(.*)\)$/.exec(t);
  if (sub) {
    try {
      return { name: 'sub', regex: new RegExp(sub[1] as string), repl: (sub[2] as string).replace(/\\(\d)/g, '$$$1') };
    } catch (err) {
      throw new JsonPathSyntaxError(`bad regex in \`${t}\` of ${src}: ${(err as Error).message}`);
    }
  }
  throw new JsonPathSyntaxError(`unknown operator \`${t}\` in ${src}`);
}

/** Binding strength of the binary operators, as jsonpath-rw's PLY precedence table (higher binds tighter). */
const PRECEDENCE: Record<string, number> = { '..': 1, '.': 2, '|': 3, where: 5 };

class Parser {
  private pos = 0;
  constructor(
    private readonly toks: Tok[],
    private readonly src: string,
  ) {}

  private peek(): Tok {
    return this.toks[this.pos] as Tok;
  }
  private next(): Tok {
    return this.toks[this.pos++] as Tok;
  }
  private isOp(v: string): boolean {
    const t = this.peek();
    return t.t === 'op' && t.v === v;
  }
  private expect(v: string): void {
    if (!this.isOp(v)) throw this.error(`expected '${v}'`);
    this.pos++;
  }
  private error(msg: string): JsonPathSyntaxError {
    const t = this.peek();
    const at = t.t === 'end' ? 'end' : `'${'v' in t ? t.v : ''}'`;
    return new JsonPathSyntaxError(`${msg} at ${at} in ${this.src}`);
  }

  parseAll(): Node {
    const node = this.parseExpr(0);
    if (this.peek().t !== 'end') throw this.error('unexpected token');
    return node;
  }

  private binaryOp(): string | undefined {
    const t = this.peek();
    if (t.t === 'op' && (t.v === '.' || t.v === '..' || t.v === '|')) return t.v;
    if (t.t === 'id' && t.v === 'where') return 'where';
    if (t.t === 'op' && t.v === '&') throw this.error('intersection (&) is not implemented by jsonpath-rw either');
    return undefined;
  }

  private parseExpr(minPrec: number): Node {
    let left = this.parsePostfix(this.parseAtom());
    for (;;) {
      const op = this.binaryOp();
      if (!op) return left;
      const prec = PRECEDENCE[op] as number;
      if (prec <= minPrec) return left;
      this.pos++;
      const right = this.parseExpr(prec);
      left =
        op === '.'
          ? { kind: 'child', left, right }
          : op === '..'
            ? { kind: 'descendants', left, right }
            : op === '|'
              ? { kind: 'union', left, right }
              : { kind: 'where', left, right };
    }
  }

  private parseAtom(): Node {
    const t = this.peek();
    if (t.t === 'op' && t.v === '$') {
      this.pos++;
      return { kind: 'root' };
    }
    if (t.t === 'op' && t.v === '(') {
      this.pos++;
      const inner = this.parseExpr(0);
      this.expect(')');
      return inner;
    }
    if (t.t === 'named') {
      this.pos++;
      const op = parseNamed(t.v, this.src);
      return op.name === 'this' ? { kind: 'this' } : { kind: 'op', op };
    }
    if (t.t === 'op' && t.v === '[') return this.parseBracket(null);
    if ((t.t === 'op' && t.v === '*') || t.t === 'id' || t.t === 'num') return this.parseFields();
    throw this.error('expected a field');
  }

  private parseFields(): Node {
    const names: string[] = [];
    for (;;) {
      const t = this.next();
      if (t.t === 'op' && t.v === '*') names.push('*');
      else if (t.t === 'id') names.push(t.v);
      else if (t.t === 'num') names.push(String(t.v));
      else {
        this.pos--;
        throw this.error('expected a field name');
      }
      if (!this.isOp(',')) break;
      this.pos++;
    }
    return { kind: 'fields', names };
  }

  private parsePostfix(node: Node): Node {
    let cur = node;
    while (this.isOp('[')) cur = this.parseBracket(cur);
    return cur;
  }

  private parseBracket(target: Node | null): Node {
    this.expect('[');
    const t = this.peek();
    if (t.t === 'op' && t.v === '?') {
      this.pos++;
      const exprs: FilterExpr[] = [this.parseFilterExpr()];
      while (this.isOp('&')) {
        this.pos++;
        exprs.push(this.parseFilterExpr());
      }
      this.expect(']');
      return { kind: 'filter', target, exprs };
    }
    if (t.t === 'op' && t.v === '*') {
      this.pos++;
      this.expect(']');
      return { kind: 'slice', target };
    }
    let start: number | undefined;
    if (t.t === 'num') {
      start = t.v;
      this.pos++;
    }
    if (this.isOp(':')) {
      this.pos++;
      let end: number | undefined;
      const e = this.peek();
      if (e.t === 'num') {
        end = e.v;
        this.pos++;
      }
      this.expect(']');
      return { kind: 'slice', target, start, end };
    }
    if (start === undefined) {
      // `[field]` is a field access in jsonpath-rw.
      const fields = this.parseFields();
      this.expect(']');
      return target ? { kind: 'child', left: target, right: fields } : fields;
    }
    this.expect(']');
    return { kind: 'index', target, index: start };
  }

  private parseFilterExpr(): FilterExpr {
    const path = this.parseFilterPath();
    const t = this.peek();
    if (t.t !== 'op' || !FILTER_OPS.includes(t.v)) return { path };
    this.pos++;
    const v = this.next();
    let value: string | number | boolean;
    if (v.t === 'num') value = v.v;
    else if (v.t === 'id') value = v.v === 'true' ? true : v.v === 'false' ? false : v.v;
    else throw this.error('expected a value');
    // `1.5` arrives as num '.' num.
    if (typeof value === 'number' && this.isOp('.') && this.toks[this.pos + 1]?.t === 'num') {
      this.pos++;
      value = Number(`${value}.${(this.next() as { v: number }).v}`);
    }
    return { path, op: t.v === '=' ? '==' : t.v, value };
  }

  private parseFilterPath(): Node {
    // A filter's path stops at its operator, '&' or ']'.
    let left = this.parsePostfix(this.parseAtom());
    while (this.isOp('.') || this.isOp('..')) {
      const op = this.next() as { v: string };
      const right = this.parsePostfix(this.parseAtom());
      left = op.v === '.' ? { kind: 'child', left, right } : { kind: 'descendants', left, right };
    }
    return left;
  }
}

/** Parses an expression once; reuse the result (Ceilometer caches getters the same way). */
export function compileJsonPath(src: string): JsonPath {
  return new JsonPath(new Parser(tokenize(src), src).parseAll(), src);
}

const join = (base: string, part: string) => (base === '' ? part : `${base}.${part}`);

function isObject(v: Json): v is Record<string, Json> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

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
