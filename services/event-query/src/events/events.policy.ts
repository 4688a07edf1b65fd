/**
 * Who sees which events (DESIGN.md §A "Visibility"; Panko `_build_rbac_query_filters`, relaxed to project scope:
 * Panko also required the event's `user_id` to be the caller's, which hid teammates' events).
 *
 * - non-admin: events whose project (the `project_id`, else `tenant_id`, trait) is the token's project; a token
 *   without a project (domain-scoped) sees none;
 * - cloud admin (`admin` on a token of the `default` domain): their own project's events and events without a
 *   project; with `all_tenants=true`, every event;
 * - a department admin (`admin` on a token of another domain) counts as a non-admin here.
 *
 * The same rule covers the event-type summaries (they carry the same `project_id` scope).
 */
import type { Identity } from '@stratum/identity';
import { isCloudAdmin } from '@stratum/identity';

/** The MongoDB filter (on the `project_id` scope field) that limits a query to what `identity` may see. */
export function visibilityFilter(identity: Identity, allTenants = false): { project_id?: unknown; _id?: unknown } {
  if (isCloudAdmin(identity)) {
    if (allTenants) return {};
    return identity.projectId ? { project_id: { $in: [identity.projectId, null] } } : { project_id: null };
  }
  return identity.projectId ? { project_id: identity.projectId } : { _id: { $in: [] } };
}

/** The same rule for one event already read: may `identity` see an event whose scope is `scope`? */
export function canSee(identity: Identity, scope: string | null, allTenants = false): boolean {
  if (isCloudAdmin(identity)) return allTenants || scope === null || scope === identity.projectId;
  return identity.projectId !== null && scope === identity.projectId;
}

/**
 * Projects a caller may name in a filter without being refused (Ceilometer `_force_visibility`): non-admins only
 * their own; admins any.
 * @returns null when any project may be named.
 */
export function nameableProject(identity: Identity): string | null {
  return isCloudAdmin(identity) ? null : (identity.projectId ?? '');
}
