/**
 * The enforcer of the domain-quota service: the department quota rules (domain-quotas.policy.ts) and the registry's
 * (registry.policy.ts), Keystone-style `identity:*` rules overridable by the file in POLICY_FILE; every rule, its
 * default and description are in `etc/policy.yaml.sample`. Each router sees it as an Authorizer of its own actions.
 *
 * A cloud admin (`is_admin:True`) holds `admin` on a token of the `default` domain (or an unscoped-domain admin
 * token); a department admin holds `admin` on a token scoped to that department (domain) or to one of its projects.
 */
import type { Identity } from '@stratum/identity';
import { credentialsOf, Policy, type RuleDefault } from '@stratum/policy';
import { DOMAIN_QUOTA_RULE_OF, DOMAIN_QUOTA_RULES, type DomainQuotaAction } from './domain-quotas/domain-quotas.policy';
import { forbidden } from './errors';
import { REGISTRY_RULE_OF, REGISTRY_RULES, type RegistryAction } from './registry/registry.policy';

/** Every rule of the domain-quota service, in the sample file's order. */
export const DOMAIN_SERVICE_RULES: readonly RuleDefault[] = [...DOMAIN_QUOTA_RULES, ...REGISTRY_RULES];

/** The first line of etc/policy.yaml.sample. */
export const DOMAIN_POLICY_TITLE =
  'Policy of the domain-quota service (department quotas and their registry): every rule, commented out at its default.';

/** Every action name of the service's routers → the policy rule it checks. */
const RULE_OF = { ...DOMAIN_QUOTA_RULE_OF, ...REGISTRY_RULE_OF } as const;

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
    if (!this.can(identity, action, target)) throw forbidden();
  };
}
