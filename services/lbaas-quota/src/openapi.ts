/**
 * Group B's part of the gateway's OpenAPI document (subpath export `@stratum/lbaas-quota/openapi`): route
 * descriptions built from the zod schemas; importing it opens no connection.
 */
import type { OpenApiSection } from '@stratum/openapi';
import { LBAAS_PREFIXES } from './app';
import { OctaviaError, quotasRoutes } from './quotas/quotas.openapi';

export { OctaviaError as errorSchema };

/** `/v2.0/lbaas` in full, then the other prefixes Octavia serves the same controller under. */
export function openapiSections(): OpenApiSection[] {
  const [canonical, ...aliases] = LBAAS_PREFIXES as [string, ...string[]];
  return [
    {
      tag: 'Load balancer quotas',
      description: `Octavia v2 quotas (SPEC.md B) and quota enforcement, under ${canonical}. Errors: Octavia \`{faultcode, faultstring, debuginfo}\`.`,
      routes: quotasRoutes(canonical),
    },
    {
      tag: 'Load balancer quota aliases',
      description: `The same operations under ${aliases.join(', ')} (Octavia mounts its quota controller at all of them).`,
      routes: aliases.flatMap((prefix) => quotasRoutes(prefix, `At${prefix.replace(/[^a-z0-9]+/gi, '_')}`)),
    },
  ];
}
