/**
 * Path and body shape of `POST /v2/ingest/events`: what Ceilometer's `http://` publisher posts
 * (docs/upstream/events.md §13). The body is not parsed with this schema: notification.ts `decodeRecord` is the one
 * parser of records, shared with the AMQP consumer and the file import, and names every refused record's reason
 * (`records[i]: …`). IngestBody names the accepted shapes for the OpenAPI document without repeating its rules.
 */
import { z } from 'zod';

/**
 * Where Ceilometer's `http://` publisher posts events (admin only). Not `POST /v2/events`, which is the list.
 * Ceilometer's publisher cannot send `X-Auth-Token`, only HTTP Basic credentials from its URL, so on this path the
 * gateway also takes the token from the Basic password (`http://ceilometer:<token>@host/v2/ingest/events`).
 */
export const INGEST_PATH = '/v2/ingest/events';

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
