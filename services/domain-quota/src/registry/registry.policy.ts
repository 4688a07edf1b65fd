/**
 * RBAC of the registry's admin endpoints as named policy rules (Keystone-style `identity:*` names), enforced with the
 * department quota rules by DomainQuotaPolicy (domain-quotas.policy.ts) and overridable by POLICY_FILE. The registry
 * spans every department, so it is for cloud admins; actual usage may also be reported by a service user (role
 * `service`), as the services that count resources would. A department's summed actual use
 * (`GET /usage?domain_id=`) is read under C1's rule `identity:get_domain_quota`, so its admin sees their own.
 */
import type { RuleDefault } from '@stratum/policy';
import { REGISTRY_PREFIX as REGISTRY } from './registry.schema';

const op = (method: string, path: string) => ({ method, path });

/** The registry's rules, each with its default check string (they refer to `cloud_admin` of DOMAIN_QUOTA_RULES). */
export const REGISTRY_RULES: readonly RuleDefault[] = [
  {
    name: 'identity:get_domain_quota_registry',
    check: 'rule:cloud_admin',
    description: 'Read the registry: regions, departments, projects, usage, and the sum check.',
    operations: [
      op('GET', `${REGISTRY}/regions[/{region}]`),
      op('GET', `${REGISTRY}/domains[/{domain_id}]`),
      op('GET', `${REGISTRY}/projects[/{project_id}]`),
      op('GET', `${REGISTRY}/projects/{project_id}/usage`),
      op('GET', `${REGISTRY}/usage`),
      op('GET', `${REGISTRY}/check`),
    ],
  },
  {
    name: 'identity:update_domain_quota_registry',
    check: 'rule:cloud_admin',
    description: 'Create, replace or delete regions, departments and projects of the registry; repair its sums.',
    operations: [
      op('PUT', `${REGISTRY}/regions/{region}`),
      op('DELETE', `${REGISTRY}/regions/{region}`),
      op('PUT', `${REGISTRY}/domains/{domain_id}`),
      op('DELETE', `${REGISTRY}/domains/{domain_id}`),
      op('PUT', `${REGISTRY}/projects/{project_id}`),
      op('DELETE', `${REGISTRY}/projects/{project_id}`),
      op('POST', `${REGISTRY}/check`),
    ],
  },
  {
    name: 'identity:update_domain_quota_registry_usage',
    check: 'rule:cloud_admin or role:service',
    description: "Report a region's or a project's actual usage (a cloud admin, or a service user of a service that counts resources).",
    operations: [op('PUT', `${REGISTRY}/usage/{region}`), op('PUT', `${REGISTRY}/projects/{project_id}/usage/{region}`)],
  },
];

/** The registry router's action names → the policy rules they check. */
export const REGISTRY_RULE_OF = {
  'registry:get': 'identity:get_domain_quota_registry',
  'registry:update': 'identity:update_domain_quota_registry',
  'registry:usage:update': 'identity:update_domain_quota_registry_usage',
  // A department's actual use is read as its quotas are (C1's rule, domain-quotas.policy.ts): a cloud admin, or an
  // admin of that department.
  'registry:domain_usage:get': 'identity:get_domain_quota',
} as const;

export type RegistryAction = keyof typeof REGISTRY_RULE_OF;
