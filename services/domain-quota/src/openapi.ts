/**
 * Group C's part of the gateway's OpenAPI document (subpath export `@stratum/domain-quota/openapi`): route
 * descriptions built from the zod schemas; importing it opens no connection.
 */
import type { OpenApiSection } from '@stratum/openapi';
import { domainQuotasRoutes, KeystoneError } from './domain-quotas/domain-quotas.openapi';
import { registryRoutes } from './registry/registry.openapi';

export { KeystoneError as errorSchema };

export function openapiSections(): OpenApiSection[] {
  return [
    {
      tag: 'Department quotas',
      description:
        'Department (Keystone domain) and cloud platform quotas per region (SPEC.md C). Errors: Keystone `{"error": {code, title, message}}`.',
      routes: domainQuotasRoutes(),
    },
    {
      tag: 'Department quota registry',
      description: 'Regions, departments, projects and actual usage the quota tree stands on. Errors: Keystone `{"error": {…}}`.',
      routes: registryRoutes(),
    },
  ];
}
