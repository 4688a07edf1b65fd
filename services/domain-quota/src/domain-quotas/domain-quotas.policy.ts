/**
 * RBAC for group C (reference/domain-quota.md §6.4 step 1), as an action → rule table.
 * A cloud admin holds `admin` on a token of the `default` domain (or an unscoped-domain admin token); a department
 * admin holds `admin` on a token scoped to that department (domain).
 */
import { AppError } from '@stratum/http-kit';
import { type Identity, isAdmin, isCloudAdmin } from '@stratum/identity';

export { isCloudAdmin };

export const domainQuotaPolicy = {
  /** C1: the cloud admin, or the department's own admin. */
  'domain_quota:get': (id: Identity, t: { domainId: string }) => isCloudAdmin(id) || (isAdmin(id) && id.domainId === t.domainId),
  /** C2: the cloud admin only. */
  'domain_quota:update': (id: Identity) => isCloudAdmin(id),
  /** The audit log of a department (or of the cloud): the cloud admin only. */
  'domain_quota:audit': (id: Identity) => isCloudAdmin(id),
  /** C3: the cloud admin only. */
  'domain_usage:get': (id: Identity) => isCloudAdmin(id),
} as const;

export type DomainQuotaAction = keyof typeof domainQuotaPolicy;

/** @throws AppError 403 when `identity` may not perform `action`. */
export function authorize(identity: Identity, action: DomainQuotaAction, target: { domainId: string } = { domainId: '' }): void {
  if (!domainQuotaPolicy[action](identity, target)) {
    throw new AppError(403, 'You are not authorized to perform the requested action.');
  }
}
