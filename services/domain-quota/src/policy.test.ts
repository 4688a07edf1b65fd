import { join } from 'node:path';
import type { Identity } from '@stratum/identity';
import { checkSampleFile } from '@stratum/policy';
import { forbidden } from './errors';
import { DOMAIN_POLICY_TITLE, DOMAIN_SERVICE_RULES, DomainQuotaPolicy } from './policy';

describe('domain-quota policy sample', () => {
  it('etc/policy.yaml.sample lists every rule with its default (UPDATE_POLICY_SAMPLES=1 rewrites it)', () => {
    const { actual, expected } = checkSampleFile(
      join(__dirname, '..', 'etc', 'policy.yaml.sample'),
      DOMAIN_POLICY_TITLE,
      DOMAIN_SERVICE_RULES,
    );
    expect(actual).toBe(expected);
  });
});

describe('domain-quota policy defaults', () => {
  const policy = DomainQuotaPolicy.load();
  const who = (roles: string[], domainId: string | null, projectId: string | null = null): Identity => ({
    userId: 'u',
    projectId,
    domainId,
    roles,
  });
  const personas = {
    cloudAdmin: who(['admin'], 'default', 'admin-project'),
    cloudAdminDomainScoped: who(['admin'], 'default'),
    deptAdmin: who(['admin'], 'dept-a'),
    deptAdminViaProject: who(['admin'], 'dept-a', 'p-a'),
    otherDeptAdmin: who(['admin'], 'dept-b'),
    member: who(['member'], 'dept-a', 'p-a'),
    service: who(['service'], 'default', 'service'),
  };
  type Persona = keyof typeof personas;
  const ALL = Object.keys(personas) as Persona[];
  const CLOUD_ADMINS: Persona[] = ['cloudAdmin', 'cloudAdminDomainScoped'];

  /** Action → who may perform it on department `dept-a` (every other persona is refused). */
  const table: [Parameters<DomainQuotaPolicy['can']>[1], Persona[]][] = [
    ['domain_quota:get', [...CLOUD_ADMINS, 'deptAdmin', 'deptAdminViaProject']],
    ['domain_quota:update', CLOUD_ADMINS],
    ['domain_quota:audit', CLOUD_ADMINS],
    ['domain_usage:get', CLOUD_ADMINS],
    ['registry:get', CLOUD_ADMINS],
    ['registry:update', CLOUD_ADMINS],
    ['registry:usage:update', [...CLOUD_ADMINS, 'service']],
    ['registry:domain_usage:get', [...CLOUD_ADMINS, 'deptAdmin', 'deptAdminViaProject']],
  ];

  it.each(table)('%s on dept-a: allowed to %j only', (action, allowed) => {
    const got = ALL.filter((p) => policy.can(personas[p], action, { domainId: 'dept-a' }));
    expect(got.sort()).toEqual([...allowed].sort());
  });

  it("authorize throws Keystone's ForbiddenAction (403) for a refused action and nothing for an allowed one", () => {
    expect(() => policy.authorize(personas.member, 'domain_quota:update', { domainId: 'dept-a' })).toThrow(forbidden());
    expect(() => policy.authorize(personas.cloudAdmin, 'domain_quota:update', { domainId: 'dept-a' })).not.toThrow();
    expect(forbidden()).toMatchObject({ status: 403, message: 'You are not authorized to perform the requested action.' });
  });
});
