/**
 * What group A states about its routes for anyone outside the service (subpath export
 * `@stratum/event-query/contract`): the path roots it serves, Panko's error body and the `/openapi.json` sections,
 * all built from the zod schemas the routes validate with. Imports schemas and @stratum/openapi only: no express, no
 * store, so importing it opens nothing.
 */
import type { OpenApiSection, ServiceContract } from '@stratum/openapi';
import { eventsRoutes, PankoError } from './events/events.openapi';
import { CAPABILITIES_PATH, EVENT_TYPES_PATH, EVENTS_PATH, QUERY_PATH } from './events/events.schema';
import { ingestRoutes } from './ingest/ingest.openapi';
import { INGEST_PATH } from './ingest/ingest.schema';

export { INGEST_PATH };

/** The events tag (Panko's queries and the complex query), then the ingestion tag. */
function openapiSections(): OpenApiSection[] {
  return [
    {
      tag: 'Events',
      description: 'Panko v2 event queries and Ceilometer complex query. Errors: Panko `{"error_message": {…}}`.',
      routes: eventsRoutes(),
    },
    {
      tag: 'Event ingestion',
      description: 'Where Ceilometer\'s http:// publisher posts events (admin only). Errors: Panko `{"error_message": {…}}`.',
      routes: ingestRoutes(),
    },
  ];
}

/** Group A's contract: Panko v2 events, Ceilometer's complex query, and ingestion. */
export const contract: ServiceContract = {
  group: 'event',
  paths: [EVENTS_PATH, QUERY_PATH, EVENT_TYPES_PATH, CAPABILITIES_PATH, INGEST_PATH],
  errorSchema: PankoError,
  openapiSections,
};
