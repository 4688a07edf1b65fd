/**
 * Who may publish events over HTTP: cloud admins only (a publisher such as Ceilometer runs with an admin service
 * account). Events carry other projects' data, so a project member or a department admin may not inject them.
 */
import { type Identity, isCloudAdmin } from '@stratum/identity';

export function canIngest(identity: Identity): boolean {
  return isCloudAdmin(identity);
}
