/**
 * oslo.policy's check-string language (oslo_policy/_parser.py and _checks.py), parsed into a tree.
 *
 * - `@` always passes, `!` never does, an empty string always passes;
 * - `rule:<name>` evaluates another rule; `role:<name>` passes when the caller holds the role (case-insensitive);
 * - any other `<kind>:<match>` compares a credential (`project_id`, `domain_id`, `is_admin`, a dotted path such as
 *   `token.project.id`) or, when `<kind>` is a literal (`'member'`, `True`, `1`), that literal, with `<match>`;
 * - `<match>` may hold target substitutions in Python's `%(name)s` form (`%(project_id)s`, `%(target.domain.id)s`);
 * - `not` binds tightest, then `and`, then `or`; parentheses group.
 *
 * Unlike oslo.policy, which logs a check it cannot understand and turns it into `!`, every mistake here is an error
 * with its column, so a typo cannot silently deny (or, inside a `not`, allow) a whole operation.
 */

/** One piece of a `<match>`: literal text, or a target field substituted at evaluation time. */
export type TemplatePart = string | { key: string };

export type Check =
  | { kind: 'true' }
  | { kind: 'false' }
  | { kind: 'and'; checks: Check[] }
  | { kind: 'or'; checks: Check[] }
  | { kind: 'not'; check: Check }
  | { kind: 'rule'; name: string }
  | { kind: 'role'; match: TemplatePart[] }
  /** `path` walks the credentials; `literal` (when set) is compared instead, as oslo's `ast.literal_eval(kind)`. */
  | { kind: 'generic'; path: string[]; literal?: string; match: TemplatePart[] };

/** A check string that does not parse; `column` is 1-based within the check string. */
export class CheckSyntaxError extends Error {
  constructor(
    readonly column: number,
    readonly reason: string,
  ) {
    super(`column ${column}: ${reason}`);
    this.name = 'CheckSyntaxError';
  }
}

/** Longest check string accepted (oslo's own rules stay under 1 KiB; this bounds a hostile file's cost). */
export const MAX_CHECK_LENGTH = 16_384;
/** Deepest nesting of parentheses and `not` accepted. */
export const MAX_DEPTH = 64;

type Token = { t: '(' | ')' | 'and' | 'or' | 'not'; col: number } | { t: 'check'; text: string; col: number };

/** oslo.policy's tokenizer: whitespace separates tokens; leading `(` and trailing `)` split off a word. */
function tokenize(rule: string): Token[] {
  const out: Token[] = [];
  const word = /\S+/g;
  for (let m = word.exec(rule); m !== null; m = word.exec(rule)) {
    let text = m[0];
    let col = m.index + 1;
    while (text.startsWith('(')) {
      out.push({ t: '(', col });
      text = text.slice(1);
      col += 1;
    }
    let closing = 0;
    // Trailing `)` close groups; a substitution's own `)` is followed by `s`, so `%(project_id)s)` keeps it.
    while (text.endsWith(')')) {
      text = text.slice(0, -1);
      closing += 1;
    }
    if (text !== '') {
      const lower = text.toLowerCase();
      if (lower === 'and' || lower === 'or' || lower === 'not') out.push({ t: lower, col });
      else out.push({ t: 'check', text, col });
    }
    for (let i = 0; i < closing; i++) out.push({ t: ')', col: col + text.length + i });
  }
  return out;
}

/** Parses `%(name)s` substitutions (and `%%`) of a match; `col` is where the match starts. */
function parseTemplate(match: string, col: number): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let text = '';
  for (let i = 0; i < match.length; i++) {
    const c = match[i];
    if (c === '(' || c === ')') throw new CheckSyntaxError(col + i, `unexpected "${c}" inside a check (put spaces around parentheses)`);
    if (c !== '%') {
      text += c;
      continue;
    }
    if (match[i + 1] === '%') {
      text += '%';
      i += 1;
      continue;
    }
    const m = /^%\(([^()%\s]+)\)s/.exec(match.slice(i));
    if (!m) throw new CheckSyntaxError(col + i, 'a "%" must start a target substitution such as %(project_id)s');
    if (text !== '') parts.push(text);
    text = '';
    parts.push({ key: m[1] as string });
    i += m[0].length - 1;
  }
  if (text !== '' || parts.length === 0) parts.push(text);
  return parts;
}

/**
 * oslo's GenericCheck interprets a kind that is a Python literal as that literal (`'member':%(role)s`,
 * `True:%(flag)s`): its text as Python's `str()` would give it, else undefined.
 */
function literalOf(kind: string): string | undefined {
  const q = kind[0];
  if ((q === "'" || q === '"') && kind.length >= 2 && kind.endsWith(q) && !kind.slice(1, -1).includes(q)) return kind.slice(1, -1);
  if (kind === 'True' || kind === 'False' || kind === 'None') return kind;
  if (/^-?(0|[1-9]\d*)$/.test(kind)) return String(BigInt(kind));
  return undefined;
}

function parseCheck(tok: { text: string; col: number }): Check {
  const { text, col } = tok;
  if (text === '@') return { kind: 'true' };
  if (text === '!') return { kind: 'false' };
  const colon = text.indexOf(':');
  if (colon < 0) throw new CheckSyntaxError(col, `expected a check such as role:admin, "and", "or", "not", "@" or "!", got "${text}"`);
  const kind = text.slice(0, colon);
  const match = text.slice(colon + 1);
  if (kind === '') throw new CheckSyntaxError(col, `check "${text}" has no kind before ":"`);
  if (kind === 'http' || kind === 'https') throw new CheckSyntaxError(col, 'http and https checks are not supported');
  if (kind === 'rule') {
    if (match === '') throw new CheckSyntaxError(col, '"rule:" needs a rule name');
    if (match.includes('%')) throw new CheckSyntaxError(col + 5, 'a rule name cannot hold a target substitution');
    return { kind: 'rule', name: match };
  }
  if (kind.includes('(') || kind.includes(')') || kind.includes('%')) {
    throw new CheckSyntaxError(col, `unexpected character in check kind "${kind}"`);
  }
  const template = parseTemplate(match, col + colon + 1);
  if (kind === 'role') return { kind: 'role', match: template };
  const literal = literalOf(kind);
  if (literal !== undefined) return { kind: 'generic', path: [], literal, match: template };
  const path = kind.split('.');
  if (path.some((p) => p === '')) throw new CheckSyntaxError(col, `check kind "${kind}" has an empty path segment`);
  return { kind: 'generic', path, match: template };
}

/**
 * Parses one check string.
 * @throws CheckSyntaxError with the 1-based column of the first mistake.
 */
export function parseCheckString(rule: string): Check {
  if (typeof rule !== 'string') throw new CheckSyntaxError(1, 'a rule must be a string');
  if (rule.length > MAX_CHECK_LENGTH) throw new CheckSyntaxError(MAX_CHECK_LENGTH + 1, `longer than ${MAX_CHECK_LENGTH} characters`);
  const tokens = tokenize(rule);
  if (tokens.length === 0) return { kind: 'true' };
  let pos = 0;
  const peek = () => tokens[pos];
  const end = rule.length + 1;

  const orExpr = (depth: number): Check => {
    const checks = [andExpr(depth)];
    while (peek()?.t === 'or') {
      pos += 1;
      checks.push(andExpr(depth));
    }
    return checks.length === 1 ? (checks[0] as Check) : { kind: 'or', checks };
  };
  const andExpr = (depth: number): Check => {
    const checks = [notExpr(depth)];
    while (peek()?.t === 'and') {
      pos += 1;
      checks.push(notExpr(depth));
    }
    return checks.length === 1 ? (checks[0] as Check) : { kind: 'and', checks };
  };
  const notExpr = (depth: number): Check => {
    const tok = peek();
    if (depth > MAX_DEPTH) throw new CheckSyntaxError(tok?.col ?? end, `nested deeper than ${MAX_DEPTH} levels`);
    if (tok?.t === 'not') {
      pos += 1;
      return { kind: 'not', check: notExpr(depth + 1) };
    }
    return primary(depth);
  };
  const primary = (depth: number): Check => {
    const tok = peek();
    if (tok === undefined) throw new CheckSyntaxError(end, 'the rule ends where a check was expected');
    if (tok.t === '(') {
      pos += 1;
      const inner = orExpr(depth + 1);
      const close = peek();
      if (close?.t !== ')') throw new CheckSyntaxError(close?.col ?? end, `missing ")" for the "(" at column ${tok.col}`);
      pos += 1;
      return inner;
    }
    if (tok.t === 'check') {
      pos += 1;
      return parseCheck(tok);
    }
    throw new CheckSyntaxError(tok.col, `expected a check or "(", got "${tok.t}"`);
  };

  const tree = orExpr(0);
  const rest = peek();
  if (rest !== undefined) {
    const what = rest.t === 'check' ? `"${rest.text}"` : `"${rest.t}"`;
    throw new CheckSyntaxError(rest.col, `unexpected ${what}: checks must be joined by "and" or "or"`);
  }
  return tree;
}

/** Every rule a check refers to through `rule:`. */
export function referencedRules(check: Check, into: Set<string> = new Set()): Set<string> {
  switch (check.kind) {
    case 'rule':
      into.add(check.name);
      break;
    case 'and':
    case 'or':
      for (const c of check.checks) referencedRules(c, into);
      break;
    case 'not':
      referencedRules(check.check, into);
      break;
    default:
      break;
  }
  return into;
}
