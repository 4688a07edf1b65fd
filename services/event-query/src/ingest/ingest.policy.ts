/**
 * Who may publish events over HTTP, as a named policy rule enforced by EventPolicy (events.policy.ts): cloud admins
 * only by default (a publisher such as Ceilometer runs with an admin service account). Events carry other projects'
 * data, so a project member or a department admin may not inject them.
 */
import type { RuleDefault } from '@stratum/policy';

export const INGEST_RULES: readonly RuleDefault[] = [
  {
    name: 'telemetry:events:create',
    check: 'rule:context_is_admin',
    description: 'Store events sent over HTTP (a Ceilometer http:// publisher).',
    operations: [{ method: 'POST', path: '/v2/ingest/events' }],
  },
];
