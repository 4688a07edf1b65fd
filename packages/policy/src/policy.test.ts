import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheckSyntaxError, type Credentials, MAX_DEPTH, Policy, PolicyError, parseCheckString, type RuleDefault } from './index';

const creds = (over: Partial<Credentials> = {}): Credentials => ({
  user_id: 'u1',
  project_id: 'p1',
  domain_id: 'default',
  project_domain_id: 'default',
  roles: ['member', 'reader'],
  is_admin: false,
  ...over,
});

/** One rule `r` with `check`, plus `a`/`b` helper rules, evaluated for `c` on `target`. */
function allows(check: string, c: Credentials = creds(), target: Record<string, string | null> = { project_id: 'p1' }): boolean {
  const defaults: RuleDefault[] = [
    { name: 'yes', check: '@', description: 'always' },
    { name: 'no', check: '!', description: 'never' },
    { name: 'r', check, description: 'under test' },
  ];
  return Policy.load(defaults).enforce('r', target, c);
}

const dir = mkdtempSync(join(tmpdir(), 'policy-test-'));
let n = 0;
const file = (text: string) => {
  const path = join(dir, `policy-${n++}.yaml`);
  writeFileSync(path, text);
  return path;
};
const DEFAULTS: RuleDefault[] = [
  { name: 'admin', check: 'is_admin:True', description: 'cloud admin' },
  {
    name: 'svc:thing:get',
    check: 'rule:admin or project_id:%(project_id)s',
    description: 'read a thing',
    operations: [{ method: 'GET', path: '/things/{id}' }],
  },
  { name: 'svc:thing:put', check: 'rule:admin', description: 'write a thing' },
];

describe('check strings (oslo.policy language)', () => {
  it('@, ! and the empty string', () => {
    expect(allows('@')).toBe(true);
    expect(allows('!')).toBe(false);
    expect(allows('')).toBe(true);
    expect(allows('   ')).toBe(true);
  });

  it('role checks are case-insensitive and may substitute from the target', () => {
    expect(allows('role:member')).toBe(true);
    expect(allows('role:MEMBER')).toBe(true);
    expect(allows('role:admin')).toBe(false);
    expect(allows('role:%(wanted)s', creds(), { wanted: 'reader' })).toBe(true);
    expect(allows('role:%(wanted)s', creds(), {})).toBe(false);
  });

  it('generic checks compare credentials with target substitutions', () => {
    expect(allows('project_id:%(project_id)s')).toBe(true);
    expect(allows('project_id:%(project_id)s', creds(), { project_id: 'p2' })).toBe(false);
    expect(allows('project_id:%(project_id)s', creds(), {})).toBe(false);
    expect(allows('domain_id:%(target.domain.id)s', creds(), { 'target.domain.id': 'default' })).toBe(true);
    expect(allows('domain_id:default')).toBe(true);
    expect(allows('user_id:u1')).toBe(true);
    expect(allows('roles:reader')).toBe(true);
    expect(allows('is_admin:True')).toBe(false);
    expect(allows('is_admin:True', creds({ is_admin: true }))).toBe(true);
    expect(allows('is_admin:False')).toBe(true);
  });

  it('a missing or null credential never matches, not even the text None', () => {
    expect(allows('project_id:%(project_id)s', creds({ project_id: null }), { project_id: 'None' })).toBe(false);
    expect(allows('project_id:None', creds({ project_id: null }))).toBe(false);
    expect(allows('nothing:here')).toBe(false);
    expect(allows('user_id.deeper:x')).toBe(false);
    expect(allows('constructor:x')).toBe(false);
    expect(allows('__proto__:x')).toBe(false);
    expect(allows('toString:x')).toBe(false);
    expect(allows('project_id:%(constructor)s')).toBe(false);
    expect(allows('project_id:%(__proto__)s')).toBe(false);
  });

  it('a literal kind is compared to the substituted match', () => {
    expect(allows("'p1':%(project_id)s")).toBe(true);
    expect(allows('"p1":%(project_id)s')).toBe(true);
    expect(allows("'p2':%(project_id)s")).toBe(false);
    expect(allows('True:%(flag)s', creds(), { flag: 'True' })).toBe(true);
    expect(allows('1:%(n)s', creds(), { n: '1' })).toBe(true);
  });

  it('not binds tightest, then and, then or; parentheses group', () => {
    expect(allows('role:admin or role:member and role:reader')).toBe(true);
    expect(allows('role:member or role:admin and !')).toBe(true); // member or (admin and never)
    expect(allows('(role:member or role:admin) and !')).toBe(false);
    expect(allows('not role:admin and role:member')).toBe(true);
    expect(allows('not (role:member and role:reader)')).toBe(false);
    expect(allows('not not role:member')).toBe(true);
    expect(allows('((role:member))')).toBe(true);
    expect(allows('(role:admin or (role:reader and project_id:%(project_id)s))')).toBe(true);
    expect(allows('role:member AND role:reader OR !')).toBe(true);
  });

  it('rule: refers to another rule', () => {
    expect(allows('rule:yes')).toBe(true);
    expect(allows('rule:no or rule:yes')).toBe(true);
    expect(allows('not rule:no')).toBe(true);
  });

  it('rejects malformed check strings with the column of the mistake', () => {
    const bad: Array<[string, number, RegExp]> = [
      ['role:admin or', 14, /ends where a check was expected/],
      ['or role:admin', 1, /expected a check or "\(", got "or"/],
      ['role:admin role:member', 12, /joined by "and" or "or"/],
      ['(role:admin', 12, /missing "\)" for the "\(" at column 1/],
      ['role:admin)', 11, /unexpected "\)"/],
      ['admin', 1, /expected a check such as role:admin/],
      [':admin', 1, /no kind/],
      ['rule:', 1, /needs a rule name/],
      ['project_id:%(project_id', 12, /target substitution/],
      ['project_id:%(project_id)d', 12, /target substitution/],
      ['project_id:100%', 15, /target substitution/],
      ['role:a(b', 7, /unexpected "\("/],
      ['http://example.com/check', 1, /not supported/],
      ['a..b:c', 1, /empty path segment/],
      ['not', 4, /ends where a check was expected/],
      ['()', 2, /expected a check or "\(", got "\)"/],
    ];
    for (const [rule, column, reason] of bad) {
      let err: unknown;
      try {
        parseCheckString(rule);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(CheckSyntaxError);
      expect([rule, (err as CheckSyntaxError).column]).toEqual([rule, column]);
      expect((err as CheckSyntaxError).reason).toMatch(reason);
    }
  });

  it('survives hostile input: deep nesting, long strings, many nots, odd characters', () => {
    expect(() => parseCheckString(`${'('.repeat(5000)}@${')'.repeat(5000)}`)).toThrow(/nested deeper than/);
    expect(() => parseCheckString(`${'not '.repeat(4000)}@`)).toThrow(/nested deeper than/);
    expect(parseCheckString(`${'('.repeat(MAX_DEPTH)}@${')'.repeat(MAX_DEPTH)}`)).toEqual({ kind: 'true' });
    expect(() => parseCheckString('role:a '.repeat(5000))).toThrow(/longer than/);
    const wide = Array.from({ length: 1000 }, (_, i) => `role:r${i}`).join(' or ');
    expect(allows(wide)).toBe(false);
    expect(allows(`${wide} or role:member`)).toBe(true);
    expect(allows('role:\u0000admin')).toBe(false);
    expect(allows('role:m\u202eember')).toBe(false);
    expect(() => parseCheckString(42 as unknown as string)).toThrow(CheckSyntaxError);
  });
});

describe('Policy.load with a policy file', () => {
  it('no file, an empty file or a file of comments keeps the defaults', () => {
    for (const f of [undefined, '', file(''), file('# nothing\n'), file(Policy.load(DEFAULTS).sample('Sample'))]) {
      const p = Policy.load(DEFAULTS, f);
      expect(p.enforce('svc:thing:get', { project_id: 'p1' }, creds())).toBe(true);
      expect(p.enforce('svc:thing:put', { project_id: 'p1' }, creds())).toBe(false);
      expect(p.overridden.size).toBe(0);
    }
  });

  it('a rule in the file overrides its default; helper rules it refers to may be added', () => {
    const p = Policy.load(DEFAULTS, file('"svc:thing:put": "rule:writers"\nwriters: "role:member and project_id:%(project_id)s"\n'));
    expect(p.enforce('svc:thing:put', { project_id: 'p1' }, creds())).toBe(true);
    expect(p.enforce('svc:thing:put', { project_id: 'p2' }, creds())).toBe(false);
    expect(p.enforce('svc:thing:get', { project_id: 'p2' }, creds({ is_admin: true }))).toBe(true);
  });

  it('JSON files are read too', () => {
    const p = Policy.load(DEFAULTS, file('{"admin": "role:reader"}'));
    expect(p.enforce('svc:thing:put', {}, creds())).toBe(true);
  });

  it('a registered default that refers to an overridden base rule follows the override', () => {
    const p = Policy.load(DEFAULTS, file('admin: "!"\n'));
    expect(p.enforce('svc:thing:put', {}, creds({ is_admin: true }))).toBe(false);
  });

  it('rules referring to each other many times are evaluated once each', () => {
    const chain: RuleDefault[] = [{ name: 'r0', check: 'role:member', description: '' }];
    for (let i = 1; i <= 200; i++)
      chain.push({ name: `r${i}`, check: `rule:r${i - 1} and rule:r${i - 1} and rule:r${i - 1}`, description: '' });
    const started = Date.now();
    expect(Policy.load(chain).enforce('r200', {}, creds())).toBe(true);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  const refuses = (text: string, ...parts: Array<string | RegExp>) => {
    const f = file(text);
    let err: unknown;
    try {
      Policy.load(DEFAULTS, f);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(PolicyError);
    const message = (err as Error).message;
    expect(message).toContain(f);
    for (const p of parts) expect(message).toMatch(p);
  };

  it('refuses a check that does not parse, naming the file, line, rule and column', () => {
    refuses(
      '# header\n"svc:thing:get": "role:admin or"\n',
      ':2:18',
      'rule "svc:thing:get"',
      /column 14/,
      /ends where a check was expected/,
    );
    refuses('admin: "(role:admin"\n', ':1:8', 'rule "admin"', /column 12/);
  });

  it('refuses an unknown rule name, a dangling rule: and a cycle', () => {
    refuses('"svc:thing:gett": "@"\n', 'rule "svc:thing:gett"', /unknown rule name/);
    refuses('"svc:thing:get": "rule:nobody"\n', /refers to rule:nobody, which is not defined/);
    refuses('admin: "rule:svc:thing:put"\n', /cycle: .*admin.*svc:thing:put.*admin|cycle: .*svc:thing:put.*admin.*svc:thing:put/);
    refuses('a: "rule:b"\nb: "rule:a"\n"svc:thing:put": "rule:a"\n', /cycle/);
  });

  it('refuses files that are not a mapping of names to strings', () => {
    refuses('admin: [role:admin]\n', ':1:8', /must be a string/);
    refuses('admin: 1\n', /must be a string/);
    refuses('admin: \n', /must be a string/);
    refuses('- role:admin\n', /expected a mapping/);
    refuses('"just a string"\n', /expected a mapping/);
    refuses('admin: "@"\nadmin: "!"\n', ':2:1', /not valid YAML or JSON/);
    refuses('admin: "@\n', /not valid YAML or JSON/);
    refuses('{"admin": "@",}x', /not valid YAML or JSON/);
    refuses('base: &a "@"\nadmin: *a\n', /must be a string/);
    refuses('? [a, b]\n: "@"\n', /rule name must be a non-empty string/);
  });

  it('refuses a file that cannot be read or is huge', () => {
    expect(() => Policy.load(DEFAULTS, join(dir, 'missing.yaml'))).toThrow(/policy file .*missing.yaml: cannot be read \(ENOENT\)/);
    expect(() => Policy.load(DEFAULTS, file(`# ${'x'.repeat(1_100_000)}\n`))).toThrow(/larger than/);
  });

  it('an unregistered rule in enforce is a programming error', () => {
    expect(() => Policy.load(DEFAULTS).enforce('svc:nope', {}, creds())).toThrow(/not registered/);
  });

  it('the sample lists every rule commented, with its description, operations and default', () => {
    const sample = Policy.load(DEFAULTS).sample('Sample policy');
    expect(sample).toContain('# read a thing\n# GET    /things/{id}\n#"svc:thing:get": "rule:admin or project_id:%(project_id)s"\n');
    expect(sample).toContain('#"svc:thing:put": "rule:admin"');
  });
});
