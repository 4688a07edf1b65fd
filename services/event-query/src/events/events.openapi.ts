/**
 * OpenAPI description of group A's query routes (events.router.ts), assembled by the gateway into `/openapi.json`.
 *
 * Parameters and bodies are the zod schemas the router parses with (events.schema.ts); responses are the wire shapes
 * of @stratum/traits and events.router.ts. Errors are Panko's envelope (`renderPankoError`).
 */
import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { errorResponses, jsonResponse } from '@stratum/openapi';
import { EventSchema, TRAIT_TYPES, TraitSchema } from '@stratum/traits';
import { z } from 'zod';
import {
  AllTenantsQuery,
  CAPABILITIES,
  CAPABILITIES_PATH,
  ComplexQueryBody,
  EVENT_TYPES_PATH,
  EVENTS_PATH,
  EventTypeParams,
  ListBody,
  ListQueryString,
  MessageIdParams,
  PageQuery,
  QUERY_PATH,
  TraitNameParams,
} from './events.schema';

/** Panko's error body (`ParsableErrorMiddleware` around a WSME fault). */
export const PankoError = z
  .object({
    error_message: z.object({
      faultcode: z.enum(['Client', 'Server']).describe('Client for a 4xx, Server for a 5xx'),
      faultstring: z.string(),
      debuginfo: z.null(),
    }),
  })
  .meta({ id: 'PankoError', description: "Panko's error envelope" });

/** Error responses in Panko's shape, one per status. */
export const pankoErrors = (statuses: Record<number, string>): RouteConfig['responses'] => errorResponses(PankoError, statuses);

const Trait = TraitSchema.meta({ id: 'Trait', description: 'value is a string for every type' });

const Event = EventSchema.extend({
  generated: EventSchema.shape.generated.describe('`YYYY-MM-DDThh:mm:ss.ffffff`, naive UTC, always six fractional digits'),
  traits: z.array(Trait),
}).meta({ id: 'Event', description: 'An event as Panko v2 serves it' });

const TraitDescription = z.object({ name: z.string(), type: z.enum(TRAIT_TYPES) }).meta({ id: 'TraitDescription' });

const Capabilities = z
  .object({ api: z.record(z.string(), z.boolean()), event_storage: z.record(z.string(), z.boolean()) })
  .meta({ id: 'EventCapabilities', example: CAPABILITIES });

const ListBodySchema = ListBody.meta({
  id: 'EventListBody',
  example: { q: [{ field: 'event_type', op: 'eq', value: 'port.update.end' }], limit: 5 },
});
const ComplexQuerySchema = ComplexQueryBody.meta({
  id: 'ComplexQueryBody',
  example: {
    filter:
      '{"and":[{"=":{"resource_id":"dfcadec6-3359-46cd-bbfb-a73575214001"}},{">=":{"timestamp":"2026-11-21T00:00:00"}},' +
      '{"<=":{"timestamp":"2026-11-22T00:00:00"}},{"=":{"event_type":"port.update.end"}}]}',
    orderby: '[{"timestamp":"desc"}]',
  },
});

const json = jsonResponse;

const nextLink = z.object({
  Link: z.string().optional().describe('`<url>; rel="next"` while more rows exist: the same query as a GET, with `marker`'),
});

const listDescription =
  'Panko\'s simple query: filters AND-ed, keyset paging (`limit`, `marker`, `Link: rel="next"`). Arguments come from the ' +
  'query string or from a JSON body (Panko reads the body on GET too); a key in both is a 400. Non-admins see only ' +
  "their project's events.";

/** Routes of events.router.ts. */
export function eventsRoutes(): RouteConfig[] {
  const listErrors = pankoErrors({ 400: 'Unknown argument, malformed filter, limit or marker' });
  return [
    {
      method: 'get',
      path: EVENTS_PATH,
      operationId: 'listEvents',
      summary: 'List events',
      description: listDescription,
      request: { query: ListQueryString },
      responses: { 200: json('One page of events', z.array(Event), nextLink), ...listErrors },
    },
    {
      method: 'post',
      path: EVENTS_PATH,
      operationId: 'listEventsPost',
      summary: 'List events, arguments in the body',
      description: listDescription,
      request: {
        query: ListQueryString,
        body: { required: false, content: { 'application/json': { schema: ListBodySchema } } },
      },
      responses: { 200: json('One page of events', z.array(Event), nextLink), ...listErrors },
    },
    {
      method: 'get',
      path: `${EVENTS_PATH}/{message_id}`,
      operationId: 'getEvent',
      summary: 'Get one event',
      request: { params: MessageIdParams, query: AllTenantsQuery },
      responses: {
        200: json('The event', Event),
        ...pankoErrors({ 400: 'Unknown argument', 404: '`Event <id> Not Found`, also outside the caller’s visibility' }),
      },
    },
    {
      method: 'post',
      path: QUERY_PATH,
      operationId: 'queryEvents',
      summary: 'Query events with a complex filter',
      description:
        "Ceilometer's complex query: `filter` and `orderby` hold JSON text. Operators and/or/not, = != < <= > >= in =~; " +
        'fields timestamp, event_type, message_id, resource_id, project_id, user_id or any trait name. No paging.',
      request: {
        query: AllTenantsQuery,
        body: { required: false, content: { 'application/json': { schema: ComplexQuerySchema } } },
      },
      responses: {
        200: json('Matching events, newest first unless ordered otherwise', z.array(Event)),
        ...pankoErrors({ 400: 'Invalid body, filter or order-by expression', 403: 'A non-admin named another project' }),
      },
    },
    {
      method: 'get',
      path: EVENT_TYPES_PATH,
      operationId: 'listEventTypes',
      summary: 'List the event types of visible events',
      request: { query: AllTenantsQuery },
      responses: { 200: json('Event types, sorted', z.array(z.string())), ...pankoErrors({ 400: 'Unknown argument' }) },
    },
    {
      method: 'get',
      path: `${EVENT_TYPES_PATH}/{event_type}`,
      operationId: 'getEventType',
      summary: "Panko's unused API: always 404",
      request: { params: EventTypeParams },
      responses: pankoErrors({ 404: '`Event type <type> Not Found`' }),
    },
    {
      method: 'get',
      path: `${EVENT_TYPES_PATH}/{event_type}/traits`,
      operationId: 'listTraitDescriptions',
      summary: 'List the trait names and types of an event type',
      request: { params: EventTypeParams, query: AllTenantsQuery },
      responses: {
        200: json('Distinct name and type pairs, sorted; [] for an unknown type', z.array(TraitDescription)),
        ...pankoErrors({ 400: 'Unknown argument' }),
      },
    },
    {
      method: 'get',
      path: `${EVENT_TYPES_PATH}/{event_type}/traits/{trait_name}`,
      operationId: 'listTraitValues',
      summary: "List a trait's values across events of a type",
      request: { params: TraitNameParams, query: PageQuery },
      responses: {
        200: json('One page of traits, in time order', z.array(Trait), nextLink),
        ...pankoErrors({ 400: 'Unknown argument, bad limit or marker' }),
      },
    },
    {
      method: 'get',
      path: CAPABILITIES_PATH,
      operationId: 'getEventCapabilities',
      summary: 'The API and storage capabilities',
      responses: { 200: json('Capabilities, flattened with `:` as Panko does', Capabilities) },
    },
  ];
}
