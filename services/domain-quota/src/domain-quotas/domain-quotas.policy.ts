/**
 * RBAC for group C as named policy rules in Keystone's style (`identity:<action>`, with Keystone's target fields
 * `%(target.domain.id)s`), overridable by the file in POLICY_FILE; every rule of the service, its default and
 * description are in `etc/policy.yaml.sample`. The registry's rules (registry.policy.ts) are enforced here too.
 *
 * A cloud admin (`is_admin:True`) holds `admin` on a token of the `default` domain (or an unscoped-domain admin
 * token); a department admin holds `admin` on a token scoped to that department (domain) or to one of its projects.
 */
import { AppError } from '@stratum/http-kit';
import type { Identity } from '@stratum/identity';
import { credentialsOf, Policy, type RuleDefault } from '@stratum/policy';
import { REGISTRY_RULE_OF, REGISTRY_RULES, type RegistryAction } from '../registry/registry.policy';
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
    description: "Show a department's quotas, allocations and usage, or one of its projects' allocations (C1).",
    operations: [op('GET', QUOTAS), op('GET', `${QUOTAS}/projects/{project_id}`)],
  },
  {
    name: 'identity:update_domain_quota',
    check: 'rule:cloud_admin',
    description: "Change a department's quotas, or one of its projects' allocations (C2).",
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
    description: "Show the cloud's quotas and what the departments were given (C3).",
    operations: [op('GET', DOMAIN_USAGE_ROOT)],
  },
];

/** Every rule of the domain-quota service, in the sample file's order. */
export const DOMAIN_SERVICE_RULES: readonly RuleDefault[] = [...DOMAIN_QUOTA_RULES, ...REGISTRY_RULES];

/** The first line of etc/policy.yaml.sample. */
export const DOMAIN_POLICY_TITLE =
  'Policy of the domain-quota service (department quotas and their registry): every rule, commented out at its default.';

/** The department quota router's action names → the policy rules they check. */
const RULE_OF = {
  'domain_quota:get': 'identity:get_domain_quota',
  'domain_quota:update': 'identity:update_domain_quota',
  'domain_quota:audit': 'identity:get_domain_quota_audit',
  'domain_usage:get': 'identity:get_domain_usage',
  ...REGISTRY_RULE_OF,
} as const;

export type DomainQuotaAction = Exclude<keyof typeof RULE_OF, RegistryAction>;

/** The enforcer of this service: the defaults, or the defaults overridden by a policy file read once at start. */
export class DomainQuotaPolicy {
  constructor(readonly policy: Policy) {}

  /**
   * Loads every rule of the service, overridden by `file` when given.
   * @throws PolicyError naming the file, rule and position: the service must not start with a bad policy file.
   */
  static load(file?: string): DomainQuotaPolicy {
    return new DomainQuotaPolicy(Policy.load(DOMAIN_SERVICE_RULES, file));
  }

  /** True when `identity` may perform `action` on the department `target.domainId` (Keystone's `target.domain.id`). */
  can = (identity: Identity, action: DomainQuotaAction | RegistryAction, target: { domainId?: string } = {}): boolean =>
    this.policy.enforce(RULE_OF[action], { 'target.domain.id': target.domainId }, credentialsOf(identity));

  /** @throws AppError 403 (Keystone's ForbiddenAction) when `identity` may not perform `action`. */
  authorize = (identity: Identity, action: DomainQuotaAction | RegistryAction, target: { domainId?: string } = {}): void => {
    if (!this.can(identity, action, target)) throw new AppError(403, 'You are not authorized to perform the requested action.');
  };
}

/** The policy with its defaults (no file). */
export const DEFAULT_DOMAIN_POLICY = DomainQuotaPolicy.load();
