/**
 * RBAC of the registry's admin endpoints, as an action → rule table. The registry spans every department, so it is
 * for cloud admins; actual usage may also be reported by a service user (role `service`), as the services that
 * count resources would.
 */
import { AppError } from '@stratum/http-kit';
import { type Identity, isCloudAdmin } from '@stratum/identity';

export const registryPolicy = {
  'registry:get': (id: Identity) => isCloudAdmin(id),
  'registry:update': (id: Identity) => isCloudAdmin(id),
  'registry:usage:update': (id: Identity) => isCloudAdmin(id) || id.roles.includes('service'),
} as const;

export type RegistryAction = keyof typeof registryPolicy;

/** @throws AppError 403 when `identity` may not perform `action`. */
export function authorize(identity: Identity, action: RegistryAction): void {
  if (!registryPolicy[action](identity)) throw new AppError(403, 'You are not authorized to perform the requested action.');
}
