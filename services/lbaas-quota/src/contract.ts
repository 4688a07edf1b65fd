/**
 * What group B states about its routes for anyone outside the service (subpath export `@stratum/lbaas-quota/contract`):
 * the path roots it serves, Octavia's error body and the `/openapi.json` sections, all built from the zod schemas the
 * routes validate with. Imports schemas and @stratum/openapi only: no express, no store, so importing it opens nothing.
 */
import type { OpenApiSection, ServiceContract } from '@stratum/openapi';
import { OctaviaError, quotasRoutes } from './quotas/quotas.openapi';

/**
 * The quota roots Octavia mounts its one quota controller at (docs/upstream/lbaas-quota.md §1), canonical first.
 * app.ts mounts the quota router at each of them.
 */
export const LBAAS_QUOTA_ROOTS = ['/v2.0/lbaas/quotas', '/v2/lbaas/quotas', '/v2.0/quotas', '/v2/quotas'] as const;

/** `/v2.0/lbaas/quotas` in full, then the other roots Octavia serves the same controller under. */
function openapiSections(): OpenApiSection[] {
  const [canonical, ...aliases] = LBAAS_QUOTA_ROOTS;
  return [
    {
      tag: 'Load balancer quotas',
      description: `Octavia v2 quotas and quota enforcement, under ${canonical}. Errors: Octavia \`{faultcode, faultstring, debuginfo}\`.`,
      routes: quotasRoutes(canonical),
    },
    {
      tag: 'Load balancer quota aliases',
      description: `The same operations under ${aliases.join(', ')} (Octavia mounts its quota controller at all of them).`,
      routes: aliases.flatMap((root) => quotasRoutes(root, `At${root.replace(/\/quotas$/, '').replace(/[^a-z0-9]+/gi, '_')}`)),
    },
  ];
}

/** Group B's contract: Octavia v2 load balancer quotas. */
export const contract: ServiceContract = {
  group: 'lbaas',
  paths: LBAAS_QUOTA_ROOTS,
  errorSchema: OctaviaError,
  openapiSections,
};
