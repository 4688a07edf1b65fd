/**
 * Policy enforcement as oslo.policy's `Enforcer` does it: rules registered in code with a default check string and a
 * description (`DocumentedRuleDefault`), overridden per deployment by a policy file (`policy.yaml`, or JSON), each
 * rule evaluated against a target (what is acted on) and the caller's credentials.
 *
 * Stricter than oslo.policy at load time, so a mistake stops the service instead of silently changing who may do
 * what: a check string that does not parse, a rule that refers to a rule nobody defines, rules that refer to each
 * other in a cycle (oslo's `check_rules(raise_on_violation=True)`), and a file rule that is neither registered nor
 * referred to by another rule (a misspelt name) are all errors naming the file, the rule and the position.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { type Identity, isCloudAdmin } from '@stratum/identity';
import { isMap, isScalar, LineCounter, parseDocument } from 'yaml';
import { type Check, CheckSyntaxError, parseCheckString, referencedRules, type TemplatePart } from './parser';

/** One HTTP operation a rule protects, for the sample file. */
export interface Operation {
  method: string;
  path: string;
}

/** A rule registered in code: oslo.policy's `DocumentedRuleDefault`. */
export interface RuleDefault {
  name: string;
  /** The default check string. */
  check: string;
  description: string;
  /** Empty for a base rule that other rules refer to. */
  operations?: Operation[];
}

/**
 * What is acted on, by field name as `%(name)s` substitutions name them (flat keys, dots allowed:
 * `{ 'target.domain.id': 'd1' }`, as Keystone's targets are built).
 */
export type Target = Readonly<Record<string, string | number | boolean | null | undefined>>;

/** The caller's credentials as oslo.context's `to_policy_values()` gives them. */
export interface Credentials {
  user_id: string;
  project_id: string | null;
  domain_id: string | null;
  /** The project's domain on a project-scoped token. */
  project_domain_id: string | null;
  roles: readonly string[];
  /** True for a cloud admin: `admin` on a token of the `default` domain (or without a domain). */
  is_admin: boolean;
}

/** The credentials of a validated caller. */
export function credentialsOf(identity: Identity): Credentials {
  return {
    user_id: identity.userId,
    project_id: identity.projectId,
    domain_id: identity.domainId,
    project_domain_id: identity.projectId ? identity.domainId : null,
    roles: identity.roles.map((r) => r.toLowerCase()),
    is_admin: isCloudAdmin(identity),
  };
}

/** A policy file (or a set of defaults) that cannot be used; the message names the file, rule and position. */
export class PolicyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PolicyError';
  }
}

/** Largest policy file read, in bytes. */
const MAX_FILE_BYTES = 1_048_576;

/** Python's `str()` of a scalar, as oslo compares values; undefined for anything that cannot match. */
function pyStr(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return undefined;
}

/** A `%(name)s` template filled from the target; undefined when a field is missing (oslo: the check fails). */
function fill(match: TemplatePart[], target: Target): string | undefined {
  let out = '';
  for (const part of match) {
    if (typeof part === 'string') {
      out += part;
      continue;
    }
    const v = Object.hasOwn(target, part.key) ? pyStr(target[part.key]) : undefined;
    if (v === undefined) return undefined;
    out += v;
  }
  return out;
}

/**
 * oslo's `_find_in_dict`: walks `path` through the credentials (any element of a list may match). A missing or null
 * credential never matches (oslo would compare the text `None`, so `project_id:None` matched a project named `None`).
 */
function findIn(value: unknown, path: readonly string[], match: string): boolean {
  if (Array.isArray(value)) return value.some((v) => findIn(v, path, match));
  if (path.length === 0) return pyStr(value) === match;
  if (value === null || typeof value !== 'object') return false;
  const [key, ...rest] = path as [string, ...string[]];
  if (!Object.hasOwn(value, key)) return false;
  return findIn((value as Record<string, unknown>)[key], rest, match);
}

/** One rule's origin, for error messages. */
interface Source {
  check: string;
  /** `file:line:column` of the rule's value, or `default` for a registered default. */
  where: string;
}

/** A loaded policy: every registered rule with its effective check, read once at start. */
export class Policy {
  private constructor(
    private readonly rules: ReadonlyMap<string, Check>,
    /** The registered defaults, in registration order (the sample file's order). */
    readonly defaults: readonly RuleDefault[],
    /** Rule names the file overrode or added. */
    readonly overridden: ReadonlySet<string>,
  ) {}

  /**
   * The registered defaults overridden by `file` (YAML or JSON: a mapping of rule name → check string); no file
   * (undefined or '') = the defaults.
   * @throws PolicyError naming the file, the rule and the line/column when the file cannot be read or parsed, a
   *   rule does not parse, a name is unknown, a `rule:` refers to nothing, or rules form a cycle. Also thrown for a
   *   default that does not parse (a programming error).
   */
  static load(defaults: readonly RuleDefault[], file?: string): Policy {
    const sources = new Map<string, Source>();
    for (const d of defaults) {
      if (sources.has(d.name)) throw new PolicyError(`policy default "${d.name}" is registered twice`);
      sources.set(d.name, { check: d.check, where: 'default' });
    }
    const overridden = new Set<string>();
    const fileRules = file ? readPolicyFile(file) : [];
    for (const r of fileRules) {
      sources.set(r.name, { check: r.check, where: r.where });
      overridden.add(r.name);
    }

    const rules = new Map<string, Check>();
    for (const [name, src] of sources) {
      try {
        rules.set(name, parseCheckString(src.check));
      } catch (err) {
        if (!(err instanceof CheckSyntaxError)) throw err;
        throw new PolicyError(`${describe(src.where, name)}: ${err.reason} at column ${err.column} of "${clip(src.check)}"`);
      }
    }

    const referenced = new Set<string>();
    for (const [name, check] of rules) {
      for (const ref of referencedRules(check)) {
        referenced.add(ref);
        if (!rules.has(ref)) {
          throw new PolicyError(`${describe((sources.get(name) as Source).where, name)}: refers to rule:${ref}, which is not defined`);
        }
      }
    }
    const registered = new Set(defaults.map((d) => d.name));
    for (const r of fileRules) {
      if (!registered.has(r.name) && !referenced.has(r.name)) {
        throw new PolicyError(
          `${describe(r.where, r.name)}: unknown rule name (not one of this service's rules, nor referred to by one through rule:${r.name}); the sample file lists every rule`,
        );
      }
    }
    const cycle = findCycle(rules);
    if (cycle) {
      const first = cycle[0] as string;
      throw new PolicyError(
        `${describe((sources.get(first) as Source).where, first)}: rules refer to each other in a cycle: ${cycle.join(' → ')}`,
      );
    }
    return new Policy(rules, defaults, overridden);
  }

  /** The registered rule names. */
  get names(): string[] {
    return this.defaults.map((d) => d.name);
  }

  /**
   * Evaluates rule `name` for a caller on a target.
   * @throws Error for a name no default registers (a programming error, never a caller's).
   */
  enforce(name: string, target: Target, creds: Credentials): boolean {
    const check = this.rules.get(name);
    if (!check) throw new Error(`policy rule "${name}" is not registered`);
    // Each rule is evaluated at most once per call, so rules referring to rules cost linear time.
    const memo = new Map<string, boolean>();
    const evaluate = (c: Check): boolean => {
      switch (c.kind) {
        case 'true':
          return true;
        case 'false':
          return false;
        case 'and':
          return c.checks.every(evaluate);
        case 'or':
          return c.checks.some(evaluate);
        case 'not':
          return !evaluate(c.check);
        case 'rule': {
          const known = memo.get(c.name);
          if (known !== undefined) return known;
          const sub = this.rules.get(c.name);
          const result = sub ? evaluate(sub) : false;
          memo.set(c.name, result);
          return result;
        }
        case 'role': {
          const role = fill(c.match, target);
          return role !== undefined && creds.roles.includes(role.toLowerCase());
        }
        case 'generic': {
          const match = fill(c.match, target);
          if (match === undefined) return false;
          if (c.literal !== undefined) return c.literal === match;
          return findIn(creds, c.path, match);
        }
      }
    };
    return evaluate(check);
  }

  /**
   * The sample policy file, as oslopolicy-sample-generator writes it: every rule's description, operations and
   * default check, commented out (a file of only comments changes nothing).
   */
  sample(title: string): string {
    return policySample(title, this.defaults);
  }
}

/** The sample policy file of `defaults` (see Policy.sample). */
export function policySample(title: string, defaults: readonly RuleDefault[]): string {
  const lines = [`# ${title}`, '#', '# Uncomment a rule and change its check string to override it; see the README for the language.', ''];
  for (const d of defaults) {
    for (const line of d.description.split('\n')) lines.push(`# ${line}`.trimEnd());
    for (const op of d.operations ?? []) lines.push(`# ${op.method.padEnd(6)} ${op.path}`.trimEnd());
    lines.push(`#${JSON.stringify(d.name)}: ${JSON.stringify(d.check)}`, '');
  }
  return `${lines.join('\n')}\n`;
}

const clip = (s: string) => (s.length > 120 ? `${s.slice(0, 117)}...` : s);
const describe = (where: string, rule: string) =>
  where === 'default' ? `policy default "${rule}"` : `policy file ${where}: rule "${rule}"`;

/** A rule cycle (names, first repeated last), or null. */
function findCycle(rules: ReadonlyMap<string, Check>): string[] | null {
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (name: string): string[] | null => {
    const s = state.get(name);
    if (s === 'done') return null;
    if (s === 'visiting') return [...stack.slice(stack.indexOf(name)), name];
    state.set(name, 'visiting');
    stack.push(name);
    const check = rules.get(name);
    if (check) {
      for (const ref of referencedRules(check)) {
        const found = visit(ref);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(name, 'done');
    return null;
  };
  for (const name of rules.keys()) {
    const found = visit(name);
    if (found) return found;
  }
  return null;
}

/** One rule read from a file, with where its value starts. */
interface FileRule {
  name: string;
  check: string;
  where: string;
}

/**
 * Reads a policy file: a YAML (or JSON, which is YAML) mapping of rule name → check string. An empty file, or one
 * of only comments, has no rules.
 * @throws PolicyError naming the file and the line/column of the problem.
 */
export function readPolicyFile(file: string): FileRule[] {
  let text: string;
  try {
    const buf = readFileSync(file);
    if (buf.length > MAX_FILE_BYTES) throw new PolicyError(`policy file ${file}: larger than ${MAX_FILE_BYTES} bytes`);
    text = buf.toString('utf8');
  } catch (err) {
    if (err instanceof PolicyError) throw err;
    throw new PolicyError(`policy file ${file}: cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  const at = (offset: number | undefined) => {
    const p = lines.linePos(offset ?? 0);
    return `${file}:${p.line}:${p.col}`;
  };
  const first = doc.errors[0];
  if (first) throw new PolicyError(`policy file ${at(first.pos[0])}: not valid YAML or JSON: ${first.message.split('\n')[0]}`);
  const root = doc.contents;
  if (root === null || (isScalar(root) && (root.value === null || root.value === ''))) return [];
  if (!isMap(root)) throw new PolicyError(`policy file ${at(root.range?.[0])}: expected a mapping of rule name to check string`);
  const out: FileRule[] = [];
  for (const pair of root.items) {
    const key = pair.key;
    if (!isScalar(key) || typeof key.value !== 'string' || key.value === '') {
      throw new PolicyError(`policy file ${at(isScalar(key) ? key.range?.[0] : undefined)}: a rule name must be a non-empty string`);
    }
    const value = pair.value;
    if (!isScalar(value) || typeof value.value !== 'string') {
      const where = at((value as { range?: [number] } | null)?.range?.[0] ?? key.range?.[0]);
      throw new PolicyError(`policy file ${where}: rule "${key.value}": the check must be a string (quote it, e.g. "role:admin")`);
    }
    // The column of a check-string error is counted within the string; the location is where its value starts.
    out.push({ name: key.value, check: value.value, where: at(value.range?.[0]) });
  }
  return out;
}

/**
 * Compares a committed sample file with the one the defaults give, for a test: rewrites it instead when the
 * environment sets UPDATE_POLICY_SAMPLES=1.
 * @returns the committed text and the expected text.
 */
export function checkSampleFile(path: string, title: string, defaults: readonly RuleDefault[]): { actual: string; expected: string } {
  const expected = policySample(title, defaults);
  if (process.env.UPDATE_POLICY_SAMPLES === '1') writeFileSync(path, expected);
  let actual = '';
  try {
    actual = readFileSync(path, 'utf8');
  } catch {
    // missing: the comparison fails and says how to write it
  }
  return { actual, expected };
}
