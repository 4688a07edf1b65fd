/**
 * RBAC for group B as named oslo.policy rules: Octavia's `os_load-balancer_api:quota:*` (octavia/policies/quota.py)
 * on Octavia's base rules (octavia/policies/base.py), overridable by the file in POLICY_FILE; every rule, its default
 * and description are in `etc/policy.yaml.sample`.
 *
 * The defaults differ from Octavia's in what "admin" means: `is_admin:True` is a cloud admin (`admin` on a token of
 * the `default` domain); a department's admin holds `admin` too, but must not set other departments' load balancer
 * quotas, so for this group they are a project role holder like any other. The defaults are readable by any project
 * role (Octavia's `get_defaults` refused readers of other projects' `/default`). Enforcement (consume, release,
 * reconcile) is for cloud admins and for the load balancer service's own user (role `service`).
 */

import type { Identity } from '@stratum/identity';
import { credentialsOf, Policy, type RuleDefault } from '@stratum/policy';
import { policyForbidden } from '../errors';

const QUOTAS = '/v2/lbaas/quotas';
const op = (method: string, path: string) => ({ method, path });

/** The rules, base rules first (Octavia's order), each with its default check string. */
export const QUOTA_RULES: readonly RuleDefault[] = [
  { name: 'load-balancer:owner', check: 'project_id:%(project_id)s', description: 'The caller is scoped to the target project.' },
  { name: 'load-balancer:admin', check: 'is_admin:True', description: 'A cloud admin (Octavia: is_admin:True or role:admin).' },
  {
    name: 'load-balancer:global_observer',
    check: 'rule:load-balancer:admin',
    description: 'May read every project (Octavia: role:admin or role:load-balancer_global_observer).',
  },
  {
    name: 'load-balancer:observer_and_owner',
    check: '(role:reader or role:load-balancer_observer) and rule:load-balancer:owner',
    description: 'A reader of the target project.',
  },
  {
    name: 'load-balancer:member_and_owner',
    check: '(role:member or role:admin or role:load-balancer_member) and rule:load-balancer:owner',
    description: 'A member (or a department admin) of the target project.',
  },
  {
    name: 'load-balancer:quota-admin',
    check: 'rule:load-balancer:admin',
    description: 'May set quotas (Octavia: role:admin or role:load-balancer_quota_admin).',
  },
  {
    name: 'load-balancer:read-quota',
    check:
      'rule:load-balancer:observer_and_owner or rule:load-balancer:global_observer or rule:load-balancer:member_and_owner or rule:load-balancer:quota-admin or rule:load-balancer:admin',
    description: "Read a project's quotas.",
  },
  {
    name: 'load-balancer:read-quota-global',
    check: 'rule:load-balancer:global_observer or rule:load-balancer:quota-admin or rule:load-balancer:admin',
    description: "Read every project's quotas.",
  },
  {
    name: 'load-balancer:write-quota',
    check: 'rule:load-balancer:quota-admin or rule:load-balancer:admin',
    description: "Set or reset a project's quotas.",
  },
  {
    name: 'load-balancer:enforce-quota',
    check: 'rule:load-balancer:admin or role:service',
    description: "Consume, release or reconcile a project's usage (the load balancer service's own user holds role service).",
  },
  {
    name: 'os_load-balancer_api:quota:get_all',
    check: 'rule:load-balancer:read-quota',
    description: "List Quotas (the caller's own project; target project_id is the caller's).",
    operations: [op('GET', QUOTAS)],
  },
  {
    name: 'os_load-balancer_api:quota:get_all-global',
    check: 'rule:load-balancer:read-quota-global',
    description: 'List Quotas including resources owned by others',
    operations: [op('GET', QUOTAS)],
  },
  {
    name: 'os_load-balancer_api:quota:get_one',
    check: 'rule:load-balancer:read-quota',
    description: 'Show Quota details',
    operations: [op('GET', `${QUOTAS}/{project_id}`)],
  },
  {
    name: 'os_load-balancer_api:quota:put',
    check: 'rule:load-balancer:write-quota',
    description: 'Update a Quota',
    operations: [op('PUT', `${QUOTAS}/{project_id}`)],
  },
  {
    name: 'os_load-balancer_api:quota:delete',
    check: 'rule:load-balancer:write-quota',
    description: 'Reset a Quota',
    operations: [op('DELETE', `${QUOTAS}/{project_id}`)],
  },
  {
    name: 'os_load-balancer_api:quota:get_defaults',
    check:
      'rule:load-balancer:admin or role:admin or role:member or role:reader or role:load-balancer_member or role:load-balancer_observer',
    description: 'Show Default Quota for a Project (any project role; no target project)',
    operations: [op('GET', `${QUOTAS}/{project_id}/default`), op('GET', `${QUOTAS}/defaults`)],
  },
  {
    name: 'os_load-balancer_api:quota:get_usage',
    check: 'rule:load-balancer:read-quota',
    description: "Show a project's limits and in_use counts",
    operations: [op('GET', `${QUOTAS}/{project_id}/usage`)],
  },
  {
    name: 'os_load-balancer_api:quota:post_usage',
    check: 'rule:load-balancer:enforce-quota',
    description: 'Consume or release in_use counts (a load balancer service creating or deleting)',
    operations: [op('POST', `${QUOTAS}/{project_id}/usage`)],
  },
  {
    name: 'os_load-balancer_api:quota:put_usage',
    check: 'rule:load-balancer:enforce-quota',
    description: 'Set absolute in_use counts (reconciliation)',
    operations: [op('PUT', `${QUOTAS}/{project_id}/usage`)],
  },
];

/** The first line of etc/policy.yaml.sample. */
export const QUOTA_POLICY_TITLE = 'Policy of the lbaas-quota service (Octavia quota API): every rule, commented out at its default.';

/** The router's action names → the policy rules they check. */
const RULE_OF = {
  'quota:get_all-global': 'os_load-balancer_api:quota:get_all-global',
  'quota:get_all': 'os_load-balancer_api:quota:get_all',
  'quota:get_one': 'os_load-balancer_api:quota:get_one',
  'quota:get_defaults': 'os_load-balancer_api:quota:get_defaults',
  'quota:put': 'os_load-balancer_api:quota:put',
  'quota:delete': 'os_load-balancer_api:quota:delete',
  'quota:usage:get': 'os_load-balancer_api:quota:get_usage',
  'quota:usage:post': 'os_load-balancer_api:quota:post_usage',
  'quota:usage:put': 'os_load-balancer_api:quota:put_usage',
} as const;

export type QuotaAction = keyof typeof RULE_OF;

/** The enforcer of this service: the defaults, or the defaults overridden by a policy file read once at start. */
export class QuotaPolicy {
  constructor(readonly policy: Policy) {}

  /**
   * Loads the rules, overridden by `file` when given.
   * @throws PolicyError naming the file, rule and position: the service must not start with a bad policy file.
   */
  static load(file?: string): QuotaPolicy {
    return new QuotaPolicy(Policy.load(QUOTA_RULES, file));
  }

  /**
   * True when `identity` may perform `action` on `target`. Octavia's target is `{project_id}`; a list without a
   * project in the path is checked against the caller's own project.
   */
  can = (identity: Identity, action: QuotaAction, target: { projectId?: string } = {}): boolean =>
    this.policy.enforce(RULE_OF[action], { project_id: target.projectId ?? identity.projectId }, credentialsOf(identity));

  /** @throws AppError 403 (errors.ts policyForbidden, Octavia's PolicyForbidden) when the rule does not allow `action`. */
  authorize = (identity: Identity, action: QuotaAction, target: { projectId?: string } = {}): void => {
    if (!this.can(identity, action, target)) throw policyForbidden();
  };
}

/** The policy with its defaults (no file). */
export const DEFAULT_QUOTA_POLICY = QuotaPolicy.load();
