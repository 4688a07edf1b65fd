/**
 * Parser of the jsonpath-rw / jsonpath-rw-ext dialect (grammar and precedence as upstream; see jsonpath.ts for
 * what is supported). Produces the syntax tree that jsonpath.ts evaluates.
 */

export type Node =
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

export interface FilterExpr {
  path: Node;
  op?: string;
  value?: string | number | boolean;
}

export type NamedOp =
  | { name: 'this' | 'len' | 'sorted' }
  | { name: 'split'; sep: string; segment: number; maxSplit: number }
  | { name: 'sub'; regex: RegExp; repl: string };

/** A definitions file names a path this dialect cannot parse; the message says where. */
export class JsonPathSyntaxError extends Error {}

type Tok = { t: 'id'; v: string } | { t: 'num'; v: number } | { t: 'op'; v: string } | { t: 'named'; v: string } | { t: 'end' };

const FILTER_OPS = ['==', '!=', '<=', '>=', '=', '<', '>', '~'];

export function tokenize(src: string): Tok[] {
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

export class Parser {
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
