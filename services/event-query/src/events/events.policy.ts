/**
 * Who sees which events, as Panko's named policy rules (panko/policies: `context_is_admin`, `segregation`,
 * `telemetry:events:index`, `telemetry:events:show`), overridable by the file in POLICY_FILE; every rule of the
 * service, its default and description are in `etc/policy.yaml.sample`.
 *
 * Visibility (Panko's `_build_rbac_query_filters`, relaxed to project scope: Panko also required the event's
 * `user_id` to be the caller's, which hid teammates' events):
 * - a caller `segregation` holds for (by default a cloud admin: `admin` on a token of the `default` domain): their own
 *   project's events and events without a project; with `all_tenants=true`, every event;
 * - anyone else: events whose project (the `project_id`, else `tenant_id`, trait) is the token's project; a token
 *   without a project (domain-scoped) sees none. A department admin (`admin` on a token of another domain) is one.
 *
 * The same rule covers the event-type summaries (they carry the same `project_id` scope).
 */
import type { Identity } from '@stratum/identity';
import { credentialsOf, Policy, type RuleDefault } from '@stratum/policy';
import { rbacFailed } from '../errors';
import { INGEST_RULES } from '../ingest/ingest.policy';

const op = (method: string, path: string) => ({ method, path });
const READS = [
  op('GET', '/v2/events'),
  op('GET', '/v2/events/{message_id}'),
  op('POST', '/v2/query/events'),
  op('GET', '/v2/event_types'),
  op('GET', '/v2/event_types/{event_type}/traits'),
  op('GET', '/v2/event_types/{event_type}/traits/{trait_name}'),
];

/** The event read rules, each with its default check string. */
export const EVENT_RULES: readonly RuleDefault[] = [
  { name: 'context_is_admin', check: 'is_admin:True', description: 'A cloud admin (Panko: role:admin).' },
  {
    name: 'segregation',
    check: 'rule:context_is_admin',
    description:
      "Callers it holds for are not limited to their own project: they see project-less events, and with\nall_tenants=true every project's events. Others see only their own project's events.",
    operations: READS,
  },
  {
    name: 'telemetry:events:index',
    check: '',
    description: 'Return all events matching the query filters.',
    operations: [op('GET', '/v2/events'), op('POST', '/v2/query/events')],
  },
  {
    name: 'telemetry:events:show',
    check: '',
    description: 'Return a single event with the given message id.',
    operations: [op('GET', '/v2/events/{message_id}')],
  },
  {
    name: 'telemetry:event_types:index',
    check: '',
    description: 'Return the event types, their trait descriptions and trait values.',
    operations: READS.slice(3),
  },
];

/** Every rule of the event-query service, in the sample file's order. */
export const EVENT_SERVICE_RULES: readonly RuleDefault[] = [...EVENT_RULES, ...INGEST_RULES];

/** The first line of etc/policy.yaml.sample. */
export const EVENT_POLICY_TITLE = 'Policy of the event-query service (Panko API): every rule, commented out at its default.';

/** The operations checked against a named rule (the visibility rules are `segregation`). */
export type EventAction = 'telemetry:events:index' | 'telemetry:events:show' | 'telemetry:event_types:index' | 'telemetry:events:create';

/** The enforcer of this service: the defaults, or the defaults overridden by a policy file read once at start. */
export class EventPolicy {
  constructor(readonly policy: Policy) {}

  /**
   * Loads every rule of the service, overridden by `file` when given.
   * @throws PolicyError naming the file, rule and position: the service must not start with a bad policy file.
   */
  static load(file?: string): EventPolicy {
    return new EventPolicy(Policy.load(EVENT_SERVICE_RULES, file));
  }

  private check(identity: Identity, rule: string): boolean {
    return this.policy.enforce(rule, { project_id: identity.projectId, user_id: identity.userId }, credentialsOf(identity));
  }

  /** True when `segregation` holds: the caller is not limited to their own project (Panko's admin). */
  unsegregated(identity: Identity): boolean {
    return this.check(identity, 'segregation');
  }

  /** @throws AppError 403 `RBAC Authorization Failed` (Panko's) when `identity` may not perform `action`. */
  authorize(identity: Identity, action: EventAction): void {
    if (!this.check(identity, action)) throw rbacFailed();
  }

  /** The MongoDB filter (on the `project_id` scope field) that limits a query to what `identity` may see. */
  visibilityFilter(identity: Identity, allTenants = false): { project_id?: unknown; _id?: unknown } {
    if (this.unsegregated(identity)) {
      if (allTenants) return {};
      return identity.projectId ? { project_id: { $in: [identity.projectId, null] } } : { project_id: null };
    }
    return identity.projectId ? { project_id: identity.projectId } : { _id: { $in: [] } };
  }

  /** The same rule for one event already read: may `identity` see an event whose scope is `scope`? */
  canSee(identity: Identity, scope: string | null, allTenants = false): boolean {
    if (this.unsegregated(identity)) return allTenants || scope === null || scope === identity.projectId;
    return identity.projectId !== null && scope === identity.projectId;
  }

  /**
   * Projects a caller may name in a filter without being refused (Ceilometer `_force_visibility`): segregated
   * callers only their own; others any.
   * @returns null when any project may be named.
   */
  nameableProject(identity: Identity): string | null {
    return this.unsegregated(identity) ? null : (identity.projectId ?? '');
  }
}

/** The policy with its defaults (no file). */
export const DEFAULT_EVENT_POLICY = EventPolicy.load();

/** The default visibility filter (for tools that read the store directly, e.g. the benchmarks). */
export function visibilityFilter(identity: Identity, allTenants = false): { project_id?: unknown; _id?: unknown } {
  return DEFAULT_EVENT_POLICY.visibilityFilter(identity, allTenants);
}
