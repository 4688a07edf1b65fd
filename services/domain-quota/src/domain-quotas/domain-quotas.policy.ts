/**
 * RBAC for group C as named policy rules in Keystone's style (`identity:<action>`, with Keystone's target fields
 * `%(target.domain.id)s`), overridable by the file in POLICY_FILE; every rule of the service, its default and
 * description are in `etc/policy.yaml.sample`. The service's enforcer (src/policy.ts) holds these and the registry's
 * rules; the router sees it as an Authorizer of these actions.
 *
 * A cloud admin (`is_admin:True`) holds `admin` on a token of the `default` domain (or an unscoped-domain admin
 * token); a department admin holds `admin` on a token scoped to that department (domain) or to one of its projects.
 */
import type { Identity } from '@stratum/identity';
import type { RuleDefault } from '@stratum/policy';
import { REGISTRY_PREFIX } from '../registry/registry.schema';
import { DOMAIN_QUOTAS_ROOT, DOMAIN_USAGE_ROOT } from './domain-quotas.schema';

const QUOTAS = `${DOMAIN_QUOTAS_ROOT}/{domain_id}`;
const op = (method: string, path: string) => ({ method, path });

/** The department quota rules, base rules first, each with its default check string. */
export const DOMAIN_QUOTA_RULES: readonly RuleDefault[] = [
  {
    name: 'cloud_admin',
    check: 'is_admin:True',
    description: 'A cloud admin: admin on a token of the default domain (Keystone policy.v3cloudsample cloud_admin).',
  },
  {
    name: 'domain_admin',
    check: 'role:admin and domain_id:%(target.domain.id)s',
    description: 'An admin of the target department: admin on a token scoped to the department or one of its projects.',
  },
  {
    name: 'identity:get_domain_quota',
    check: 'rule:cloud_admin or rule:domain_admin',
    description: "Show a department's quotas, allocations and usage, one of its projects' allocations, or its projects' summed actual use.",
    operations: [
      op('GET', QUOTAS),
      op('GET', `${QUOTAS}/projects/{project_id}`),
      op('GET', `${REGISTRY_PREFIX}/usage?domain_id={domain_id}`),
    ],
  },
  {
    name: 'identity:update_domain_quota',
    check: 'rule:cloud_admin',
    description: "Change a department's quotas, or one of its projects' allocations.",
    operations: [op('PATCH', QUOTAS), op('PATCH', `${QUOTAS}/projects/{project_id}`)],
  },
  {
    name: 'identity:get_domain_quota_audit',
    check: 'rule:cloud_admin',
    description: 'Read the audit log of a department (or of the cloud).',
    operations: [op('GET', `${QUOTAS}/audit`)],
  },
  {
    name: 'identity:get_domain_usage',
    check: 'rule:cloud_admin',
    description: "Show the cloud's quotas and what the departments were given.",
    operations: [op('GET', DOMAIN_USAGE_ROOT)],
  },
];

/** The department quota router's action names → the policy rules they check. */
export const DOMAIN_QUOTA_RULE_OF = {
  'domain_quota:get': 'identity:get_domain_quota',
  'domain_quota:update': 'identity:update_domain_quota',
  'domain_quota:audit': 'identity:get_domain_quota_audit',
  'domain_usage:get': 'identity:get_domain_usage',
} as const;

export type DomainQuotaAction = keyof typeof DOMAIN_QUOTA_RULE_OF;

/** What a router needs of the policy: a check of one action on an optional target department. */
export interface Authorizer<A extends string> {
  /** @throws AppError 403 (Keystone's ForbiddenAction) when `identity` may not perform `action` on the target. */
  authorize(identity: Identity, action: A, target?: { domainId?: string }): void;
}
