/**
 * OpenAPI description of `POST /v2/ingest/events` (ingest.router.ts), assembled by the gateway into `/openapi.json`.
 *
 * The body is what Ceilometer's `http://` publisher posts (IngestBody, ingest.schema.ts); notification.ts decides
 * what a record is.
 */
import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { pankoErrors } from '../events/events.openapi';
import { INGEST_PATH, IngestBody } from './ingest.schema';

const IngestResult = z
  .object({
    stored: z.int().min(0),
    duplicates: z.int().min(0),
    dropped: z
      .array(z.string())
      .describe(
        '`records[i]: <reason>` for each notification Ceilometer makes no event of (a priority other than INFO/ERROR, an unmatched type when dropped)',
      ),
  })
  .meta({ id: 'IngestResult' });

/** Routes of ingest.router.ts. */
export function ingestRoutes(): RouteConfig[] {
  return [
    {
      method: 'post',
      path: INGEST_PATH,
      operationId: 'ingestEvents',
      summary: "Store events posted by Ceilometer's http:// publisher (admin)",
      description:
        'All or nothing: if any record cannot be converted nothing is stored and the 400 lists every reason. A ' +
        'duplicate message_id is not stored again. The token may also come as the HTTP Basic password.',
      request: { body: { required: true, content: { 'application/json': { schema: IngestBody } } } },
      responses: {
        200: {
          description: 'Stored and duplicate counts, and the notifications dropped with their reasons',
          content: { 'application/json': { schema: IngestResult } },
        },
        ...pankoErrors({ 400: 'Missing body, or records that cannot be converted (`records[i]: …`)', 403: 'Not an admin' }),
      },
    },
  ];
}
