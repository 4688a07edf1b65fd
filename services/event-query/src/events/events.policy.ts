/**
 * Who sees which events (DESIGN.md §A "Visibility"; Panko `_build_rbac_query_filters`, relaxed to project scope).
 *
 * - non-admin: events whose project (the `project_id`, else `tenant_id`, trait) is the token's project;
 * - admin: their own project's events and events without a project;
 * - admin with `all_tenants=true`: every event.
 */
import type { Identity } from '@stratum/identity';
import { isAdmin } from '@stratum/identity';
import type { Filter } from 'mongodb';
import type { EventDoc } from './events.model';

/** The filter that limits a query to what `identity` may see. */
export function visibilityFilter(identity: Identity, allTenants = false): Filter<EventDoc> {
  if (isAdmin(identity)) {
    if (allTenants) return {};
    return identity.projectId ? { project_id: { $in: [identity.projectId, null] } } : { project_id: null };
  }
  // A non-admin without a project (domain-scoped token) sees nothing: no event belongs to "no project" for them.
  return identity.projectId ? { project_id: identity.projectId } : { _id: { $in: [] } };
}
