/**
 * Building blocks of the route descriptions each service gives the gateway's OpenAPI document
 * (@asteasolutions/zod-to-openapi `RouteConfig`s). Type-level only at runtime: importing this opens nothing.
 */
import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import type { z } from 'zod';

/** One tag of the reference page and its routes (paths as the service serves them). */
export interface OpenApiSection {
  tag: string;
  description: string;
  routes: RouteConfig[];
}

/** A JSON response: `description`, `schema`, and optional response `headers`. */
export const jsonResponse = (description: string, schema: z.ZodType, headers?: z.ZodObject) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema } },
});

/** A required JSON request body. */
export const jsonRequestBody = (schema: z.ZodType) => ({ required: true, content: { 'application/json': { schema } } });

/** Error responses with one body `schema` (the group's error shape): status → description. */
export function errorResponses(schema: z.ZodType, statuses: Record<number, string>): RouteConfig['responses'] {
  return Object.fromEntries(Object.entries(statuses).map(([status, description]) => [status, jsonResponse(description, schema)]));
}

/**
 * What a service states about its routes, for anyone outside the service (the gateway's path table and its
 * `/openapi.json`, the route-coverage test). Exported as `@stratum/<service>/contract`; the module holds paths and
 * zod schemas only (no express, no store), so importing it opens nothing.
 */
export interface ServiceContract {
  /** The API group the service serves: `event`, `lbaas` or `domain`. */
  group: 'event' | 'lbaas' | 'domain';
  /** Path roots the service serves (as it serves them, without a gateway prefix), matched as whole segments. */
  paths: readonly string[];
  /** The group's error body. */
  errorSchema: z.ZodType;
  /** The tagged route descriptions of `/openapi.json`, built from the same schemas the routes validate with. */
  openapiSections(): OpenApiSection[];
}
