import { SignInBody, userKey } from './sign-in.schema';

const user = (over: Record<string, unknown> = {}) => ({ name: 'admin', domain: { name: 'Default' }, password: 'pa ss wörd', ...over });
const body = (scope: unknown, u: unknown = user(), methods: unknown = ['password']) => ({
  auth: { identity: { methods, password: { user: u } }, scope },
});
const ok = (b: unknown) => SignInBody.safeParse(b).success;
/** `text` parsed as JSON, as express.json gives it (`__proto__` an own key). */
const parsed = (text: string) => JSON.parse(text) as unknown;

describe('SignInBody', () => {
  it.each([
    ['project by name in a domain by name', { project: { name: 'admin', domain: { name: 'Default' } } }],
    ['project by name in a domain by id', { project: { name: 'admin', domain: { id: 'default' } } }],
    ['project by id', { project: { id: '0123abcd' } }],
    ['domain by name', { domain: { name: 'Finance' } }],
    ['domain by id', { domain: { id: 'default' } }],
    ['system', { system: { all: true } }],
  ])('accepts Keystone password auth scoped to a %s', (_name, scope) => {
    expect(ok(body(scope))).toBe(true);
    expect(SignInBody.parse(body(scope))).toEqual(body(scope));
  });

  it('accepts a user domain by id, and names and passwords at their longest', () => {
    expect(ok(body({ domain: { id: 'default' } }, user({ domain: { id: 'default' } })))).toBe(true);
    expect(
      ok(
        body(
          { project: { name: 'p'.repeat(255), domain: { name: 'd'.repeat(255) } } },
          user({ name: 'u'.repeat(255), password: 'x'.repeat(4096) }),
        ),
      ),
    ).toBe(true);
  });

  const scope = { project: { name: 'admin', domain: { name: 'Default' } } };
  it.each([
    ['no body', undefined],
    ['an array', [body(scope)]],
    ['no scope (unscoped tokens are not offered)', body(undefined)],
    ['an empty scope', body({})],
    ['two scopes', body({ domain: { id: 'default' }, system: { all: true } })],
    ['system all false', body({ system: { all: false } })],
    ['a project by name without its domain', body({ project: { name: 'admin' } })],
    ['a domain by both name and id', body({ domain: { name: 'Default', id: 'default' } })],
    ['the token method', body(scope, user(), ['token'])],
    ['two methods', body(scope, user(), ['password', 'token'])],
    ['no method', body(scope, user(), [])],
    ['no password', body(scope, { name: 'admin', domain: { name: 'Default' } })],
    ['an empty password', body(scope, user({ password: '' }))],
    ['a password that is not a string', body(scope, user({ password: 1234 }))],
    ['a password past 4096 characters', body(scope, user({ password: 'x'.repeat(4097) }))],
    ['a password with a control character', body(scope, user({ password: 'abc\u0000def' }))],
    ['a password with a newline', body(scope, user({ password: 'abc\ndef' }))],
    ['a user name past 255 characters', body(scope, user({ name: 'u'.repeat(256) }))],
    ['a user name with a control character', body(scope, user({ name: 'ad\u0007min' }))],
    ['a user name with a bidirectional override', body(scope, user({ name: 'ad\u202emin' }))],
    ['a user without a domain', body(scope, { name: 'admin', password: 'x' })],
    ['a user by id (the console names users)', body(scope, { id: 'abc', password: 'x' })],
    ['a project name with a tab', body({ project: { name: 'a\tb', domain: { name: 'Default' } } })],
    ['a project id past 64 characters', body({ project: { id: 'a'.repeat(65) } })],
    ['an unknown key', { ...body(scope), extra: 1 }],
    ['an unknown key in the user', body(scope, user({ extra: 1 }))],
    ['a __proto__ key at the top', parsed(`{"__proto__": {"x": 1}, "auth": ${JSON.stringify(body(scope).auth)}}`)],
    ['a __proto__ key in the user', parsed(JSON.stringify(body(scope)).replace('"name":"admin"', '"__proto__":{"a":1},"name":"admin"'))],
    ['a constructor key in the scope', body({ ...scope, constructor: { name: 'x' } })],
  ])('refuses %s', (_name, b) => {
    expect(ok(b)).toBe(false);
  });

  it('never echoes the password in its issues', () => {
    const r = SignInBody.safeParse(body(scope, user({ password: `secret-${'x'.repeat(5000)}` })));
    expect(r.success).toBe(false);
    expect(JSON.stringify(r.error?.issues)).not.toContain('secret-');
  });
});

describe('userKey', () => {
  it("is the user's domain and name, lower-cased, a domain id told from a domain name", () => {
    const scope = { system: { all: true } };
    expect(userKey(SignInBody.parse(body(scope, user({ name: 'Admin', domain: { name: 'Default' } }))))).toBe('name:default/admin');
    expect(userKey(SignInBody.parse(body(scope, user({ name: 'admin', domain: { id: 'default' } }))))).toBe('id:default/admin');
  });
});
