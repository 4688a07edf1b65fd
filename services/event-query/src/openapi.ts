/**
 * Group A's part of the gateway's OpenAPI document (subpath export `@stratum/event-query/openapi`): route
 * descriptions built from the zod schemas; importing it opens no connection.
 */
import type { OpenApiSection } from '@stratum/openapi';
import { eventsRoutes, PankoError } from './events/events.openapi';
import { ingestRoutes } from './ingest/ingest.openapi';

export { PankoError as errorSchema };

export function openapiSections(): OpenApiSection[] {
  return [
    {
      tag: 'Events',
      description: 'Panko v2 event queries (SPEC.md A) and Ceilometer complex query. Errors: Panko `{"error_message": {…}}`.',
      routes: eventsRoutes(),
    },
    {
      tag: 'Event ingestion',
      description: 'Where Ceilometer\'s http:// publisher posts events (admin only). Errors: Panko `{"error_message": {…}}`.',
      routes: ingestRoutes(),
    },
  ];
}
