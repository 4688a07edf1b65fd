/**
 * What the department quota service states about its routes for anyone outside it (subpath export
 * `@stratum/domain-quota/contract`): the path roots it serves, Keystone's error body and the `/openapi.json` sections,
 * all built from the zod schemas the routes validate with. Imports schemas and @stratum/openapi only: no express, no
 * store, no router, so importing it opens nothing.
 */
import type { OpenApiSection, ServiceContract } from '@stratum/openapi';
import { domainQuotasRoutes, KeystoneError } from './domain-quotas/domain-quotas.openapi';
import { DOMAIN_QUOTAS_ROOT, DOMAIN_USAGE_ROOT } from './domain-quotas/domain-quotas.schema';
import { registryRoutes } from './registry/registry.openapi';
import { REGISTRY_PREFIX } from './registry/registry.schema';

/** The department quota routes, then the registry's admin routes. */
function openapiSections(): OpenApiSection[] {
  return [
    {
      tag: 'Department quotas',
      description:
        'Department (Keystone domain) and cloud platform quotas per region. Errors: Keystone `{"error": {code, title, message}}`.',
      routes: domainQuotasRoutes(),
    },
    {
      tag: 'Department quota registry',
      description: 'Regions, departments, projects and actual usage the quota tree stands on. Errors: Keystone `{"error": {…}}`.',
      routes: registryRoutes(),
    },
  ];
}

/** Group C's contract: department (Keystone domain) and cloud platform quotas, and their registry. */
export const contract: ServiceContract = {
  group: 'domain',
  paths: [DOMAIN_QUOTAS_ROOT, DOMAIN_USAGE_ROOT, REGISTRY_PREFIX],
  errorSchema: KeystoneError,
  openapiSections,
};
