/**
 * RBAC for group B, as a table of action → rule (Octavia's `os_load-balancer_api:quota:*`, octavia/policies/quota.py,
 * with the "defaults readable by any project role" fix of reference/lbaas-quota.md §14).
 *
 * "Admin" is a cloud admin (`admin` on a token of the `default` domain, DESIGN.md "Roles"): a department's admin
 * holds `admin` too, but must not set other departments' load balancer quotas, so for this group they are a
 * project role holder like any other. Enforcement (consume, release, reconcile) is for cloud admins and for the
 * load balancer service's own user (role `service`, as Keystone's service users carry).
 */
import { AppError } from '@stratum/http-kit';
import { type Identity, isCloudAdmin } from '@stratum/identity';

type Rule = (id: Identity, target: { projectId?: string }) => boolean;

const PROJECT_ROLES = ['admin', 'member', 'reader', 'load-balancer_member', 'load-balancer_observer'];
const hasProjectRole = (id: Identity) => id.roles.some((r) => PROJECT_ROLES.includes(r));

/** Octavia's `load-balancer:read-quota` for a target project: a cloud admin, or a role holder of that project. */
const readQuota: Rule = (id, t) => isCloudAdmin(id) || (id.projectId !== null && id.projectId === t.projectId && hasProjectRole(id));
/** Cloud admins and service users (the load balancer service enforcing its quotas). */
const enforceQuota: Rule = (id) => isCloudAdmin(id) || id.roles.includes('service');

/** The policy table. Overridable per deployment in a later change; the defaults are documented in the service README. */
export const quotaPolicy = {
  /** List every project's quotas (no project scoping). */
  'quota:get_all-global': (id) => isCloudAdmin(id),
  /** List, scoped to the caller's own project. */
  'quota:get_all': (id) => id.projectId !== null && hasProjectRole(id),
  'quota:get_one': readQuota,
  'quota:get_defaults': (id) => isCloudAdmin(id) || hasProjectRole(id),
  'quota:put': (id) => isCloudAdmin(id),
  'quota:delete': (id) => isCloudAdmin(id),
  /** Read a project's limits and in_use counts: as get_one. */
  'quota:usage:get': readQuota,
  /** Consume or release in_use (a load balancer service's create and delete paths). */
  'quota:usage:post': enforceQuota,
  /** Set absolute in_use counts (reconciliation). */
  'quota:usage:put': enforceQuota,
} satisfies Record<string, Rule>;

export type QuotaAction = keyof typeof quotaPolicy;

/** True when `identity` may perform `action` on `target`. */
export function can(identity: Identity, action: QuotaAction, target: { projectId?: string } = {}): boolean {
  return quotaPolicy[action](identity, target);
}

/** @throws AppError 403 `Policy does not allow this request to be performed.` */
export function authorize(identity: Identity, action: QuotaAction, target: { projectId?: string } = {}): void {
  if (!can(identity, action, target)) throw new AppError(403, 'Policy does not allow this request to be performed.');
}
