import { identityOfToken } from '../tokens/tokens.keystone';
import { StaticTokens } from '../tokens/tokens.static';
import { callerToken, scopeOf } from './sign-in.presenter';

const expires_at = '2099-01-01T00:00:00Z';
const user = { id: 'u1' };
const roles = [
  { id: 'r1', name: 'Admin' },
  { id: 'r2', name: 'member' },
];

describe('scopeOf, of the identities the token validators give', () => {
  it.each([
    ['a project-scoped Keystone token', { expires_at, user, roles, project: { id: 'p1', domain: { id: 'd1' } } }, 'project'],
    ['a domain-scoped Keystone token', { expires_at, user, roles, domain: { id: 'd1' } }, 'domain'],
    ['a system-scoped Keystone token', { expires_at, user, roles, system: { all: true } }, 'system'],
    ['an unscoped Keystone token (roles dropped)', { expires_at, user, roles }, 'unscoped'],
    ['an unscoped Keystone token without roles', { expires_at, user }, 'unscoped'],
  ])('%s', (_name, token, scope) => {
    expect(scopeOf(identityOfToken(token))).toBe(scope);
  });

  it('of static tokens: project, domain, or system when neither (a static token always has a role)', async () => {
    const tokens = new StaticTokens({
      tokens: {
        ['p'.repeat(16)]: { user_id: 'u', project_id: 'p1', domain_id: 'default', roles: ['member'] },
        ['d'.repeat(16)]: { user_id: 'u', project_id: null, domain_id: 'd1', roles: ['admin'] },
        ['s'.repeat(16)]: { user_id: 'u', project_id: null, domain_id: null, roles: ['admin'] },
      },
    });
    const scopes = await Promise.all(
      ['p', 'd', 's'].map(async (c) => {
        const identity = await tokens.validate(c.repeat(16));
        return identity && scopeOf(identity);
      }),
    );
    expect(scopes).toEqual(['project', 'domain', 'system']);
  });

  it('takes a project before a domain, and a domain before roles', () => {
    expect(scopeOf({ userId: 'u', projectId: 'p', domainId: 'd', roles: [] })).toBe('project');
    expect(scopeOf({ userId: 'u', projectId: null, domainId: 'd', roles: [] })).toBe('domain');
    expect(scopeOf({ userId: 'u', projectId: null, domainId: null, roles: ['reader'] })).toBe('system');
    expect(scopeOf({ userId: 'u', projectId: null, domainId: null, roles: [] })).toBe('unscoped');
  });
});

describe('callerToken', () => {
  it('names the project and its domain for a project-scoped token, with no scope domain', () => {
    expect(callerToken(identityOfToken({ expires_at, user, roles, project: { id: 'p1', domain: { id: 'd1' } } }))).toEqual({
      token: {
        user: { id: 'u1' },
        project: { id: 'p1', domain: { id: 'd1' } },
        domain: null,
        roles: [{ name: 'admin' }, { name: 'member' }],
        scope: 'project',
      },
    });
  });

  it('names the domain of a domain-scoped token, and neither for system and unscoped tokens', () => {
    expect(callerToken({ userId: 'u', projectId: null, domainId: 'd1', roles: ['admin'] }).token).toEqual({
      user: { id: 'u' },
      project: null,
      domain: { id: 'd1' },
      roles: [{ name: 'admin' }],
      scope: 'domain',
    });
    expect(callerToken(identityOfToken({ expires_at, user, roles, system: { all: true } })).token).toMatchObject({
      project: null,
      domain: null,
      scope: 'system',
    });
    expect(callerToken(identityOfToken({ expires_at, user, roles })).token).toMatchObject({
      project: null,
      domain: null,
      roles: [],
      scope: 'unscoped',
    });
  });
});
