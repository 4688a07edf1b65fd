/**
 * OpenAPI description of `POST /v2/ingest/events` (ingest.router.ts), assembled by the gateway into `/openapi.json`.
 *
 * The body is what Ceilometer's `http://` publisher posts (reference/events.md §13); notification.ts decides what a
 * record is, so the schema names the accepted shapes without repeating every rule.
 */
import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { pankoErrors } from '../events/events.openapi';
import { INGEST_PATH } from './ingest.router';

/** `[name, dtype, value]` (dtype 1 String, 2 integer, 3 float, 4 datetime) or `{name, type, value}`. */
const SerializedTrait = z.union([
  z.tuple([z.string(), z.int().min(1).max(4), z.unknown()]),
  z.object({ name: z.string(), type: z.string(), value: z.unknown() }),
]);

/** One record: a serialized event, or an oslo notification (plain or in the 2.0 envelope) converted by the definitions. */
const IngestRecord = z
  .union([
    z
      .looseObject({
        message_id: z.string().min(1),
        event_type: z.string().min(1),
        generated: z.string().describe('ISO 8601'),
        traits: z.array(SerializedTrait),
        raw: z.record(z.string(), z.unknown()).optional(),
        message_signature: z.string().optional().describe('checked when TELEMETRY_SECRET is set'),
      })
      .describe('A serialized event'),
    z
      .looseObject({
        message_id: z.string(),
        event_type: z.string(),
        timestamp: z.string(),
        priority: z.string().optional(),
        payload: z.unknown(),
      })
      .describe('An oslo.messaging notification'),
    z
      .object({ 'oslo.version': z.string(), 'oslo.message': z.string() })
      .describe('A notification in the oslo 2.0 envelope (`oslo.version` 2.0; another major version is refused, as oslo.messaging does)'),
  ])
  .meta({ id: 'IngestRecord' });

export const IngestBody = z
  .union([z.array(IngestRecord), IngestRecord])
  .meta({ id: 'IngestBody', description: 'An array of records (`batch=True`, the default) or one record' });

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
