/**
 * RBAC for group B, as a table of action → rule (Octavia's `os_load-balancer_api:quota:*`, octavia/policies/quota.py,
 * with the "defaults readable by any project role" fix of reference/lbaas-quota.md §14).
 */
import { AppError } from '@stratum/http-kit';
import { type Identity, isAdmin } from '@stratum/identity';

type Rule = (id: Identity, target: { projectId?: string }) => boolean;

const PROJECT_ROLES = ['admin', 'member', 'reader', 'load-balancer_member', 'load-balancer_observer'];
const hasProjectRole = (id: Identity) => id.roles.some((r) => PROJECT_ROLES.includes(r));

/** The policy table. Overridable per deployment in a later change; the defaults are documented in the service README. */
export const quotaPolicy = {
  /** List every project's quotas (no project scoping). */
  'quota:get_all-global': (id) => isAdmin(id),
  /** List, scoped to the caller's own project. */
  'quota:get_all': (id) => id.projectId !== null && hasProjectRole(id),
  'quota:get_one': (id, t) => isAdmin(id) || (id.projectId !== null && id.projectId === t.projectId && hasProjectRole(id)),
  'quota:get_defaults': (id) => isAdmin(id) || hasProjectRole(id),
  'quota:put': (id) => isAdmin(id),
  'quota:delete': (id) => isAdmin(id),
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
