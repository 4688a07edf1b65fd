/**
 * Group A routes (Panko v2 plus the complex query; ids as in docs/api/events.md):
 * `GET /v2/events/{message_id}` (A1), `POST /v2/query/events` (A2), `GET|POST /v2/events` (A3),
 * `GET /v2/event_types`, `/v2/event_types/{type}/traits`, `/v2/event_types/{type}/traits/{name}`,
 * `GET /v2/capabilities`. Trailing slashes are accepted (python-pankoclient sends them).
 * Handlers are thin: validate() parses each part with events.schema.ts, events.service.ts does the work.
 */
import { forwardedBaseUrl, identityOf, methodNotAllowed, validate } from '@stratum/http-kit';
import { type Request, type Response, Router } from 'express';
import * as errors from '../errors';
import { eventJson, eventsJson } from './events.model';
import { QueryTimedOut } from './events.repository';
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
  listInput,
  MessageIdParams,
  PageQuery,
  QUERY_PATH,
  TraitNameParams,
} from './events.schema';
import type { EventsService, Page } from './events.service';

function sendJsonText(res: Response, text: string): void {
  res.type('application/json').send(text);
}

/**
 * Sets `Link: <url>; rel="next"` when the page has a successor: the same request as a GET with `marker` set to the
 * page's last row, on the base URL the client used.
 */
function setNextLink(req: Request, response: Response, page: Page<unknown>, params: URLSearchParams): void {
  if (!page.next) return;
  params.set('limit', String(page.limit));
  params.set('marker', page.next);
  response.setHeader('Link', `<${forwardedBaseUrl(req)}${req.path.replace(/\/$/, '')}?${params}>; rel="next"`);
}

/** Each route's validation step: its schemas (events.schema.ts) and Panko's 400s (errors.ts). */
const listArgs = validate({ query: ListQueryString, body: ListBody.optional() }, errors.invalidRequest);
const showEvent = validate({ params: MessageIdParams, query: AllTenantsQuery }, errors.invalidRequest);
const complexQuery = validate({ query: AllTenantsQuery, body: ComplexQueryBody.optional() }, errors.invalidRequest);
const eventTypes = validate({ query: AllTenantsQuery }, errors.invalidRequest);
const traitNames = validate({ params: EventTypeParams, query: AllTenantsQuery }, errors.invalidRequest);
const traitValues = validate({ params: TraitNameParams, query: PageQuery }, errors.invalidRequest);

export function eventsRouter(events: EventsService): Router {
  const r = Router({ strict: false });

  const list = async (req: Request, response: Response) => {
    const { query, body } = listArgs.input(response);
    const input = listInput(query, body);
    const page = await events.list(identityOf(response), input.q, input.limit, input.sort, input.marker);
    const params = new URLSearchParams();
    for (const q of input.q) {
      params.append('q.field', q.field);
      params.append('q.op', q.op);
      params.append('q.value', q.value);
      params.append('q.type', q.type);
    }
    for (const s of input.sort) params.append('sort', s);
    setNextLink(req, response, page, params);
    sendJsonText(response, eventsJson(page.rows));
  };
  r.get(EVENTS_PATH, listArgs, list);
  r.post(EVENTS_PATH, listArgs, list);
  r.all(EVENTS_PATH, methodNotAllowed('GET, POST'));

  r.get(`${EVENTS_PATH}/:message_id`, showEvent, async (_req, response) => {
    const { params, query } = showEvent.input(response);
    sendJsonText(response, eventJson(await events.get(identityOf(response), params.message_id, query.all_tenants ?? false)));
  });
  r.all(`${EVENTS_PATH}/:message_id`, methodNotAllowed('GET'));

  r.post(QUERY_PATH, complexQuery, async (_req, response) => {
    const { query, body = {} } = complexQuery.input(response);
    const rows = await events.query(identityOf(response), {
      filter: body.filter,
      orderby: body.orderby,
      desc: body.desc ?? true,
      limit: body.limit,
      allTenants: body.all_tenants ?? query.all_tenants ?? false,
    });
    sendJsonText(response, eventsJson(rows));
  });
  r.all(QUERY_PATH, methodNotAllowed('POST'));

  r.get(EVENT_TYPES_PATH, eventTypes, async (_req, response) => {
    const { query } = eventTypes.input(response);
    response.json(await events.eventTypes(identityOf(response), query.all_tenants ?? false));
  });
  // Panko's "Unused API": always 404.
  r.get(`${EVENT_TYPES_PATH}/:event_type`, (req) => {
    throw errors.eventTypeNotFound(req.params.event_type as string);
  });
  r.get(`${EVENT_TYPES_PATH}/:event_type/traits`, traitNames, async (_req, response) => {
    const { params, query } = traitNames.input(response);
    response.json(await events.traitDescriptions(identityOf(response), params.event_type, query.all_tenants ?? false));
  });
  r.get(`${EVENT_TYPES_PATH}/:event_type/traits/:trait_name`, traitValues, async (req, response) => {
    const { params, query } = traitValues.input(response);
    const allTenants = query.all_tenants ?? false;
    const page = await events.traitValues(identityOf(response), params.event_type, params.trait_name, {
      limit: query.limit,
      marker: query.marker,
      allTenants,
    });
    const next = new URLSearchParams();
    if (allTenants) next.set('all_tenants', 'true');
    setNextLink(req, response, page, next);
    response.json(page.rows);
  });

  r.all(EVENT_TYPES_PATH, methodNotAllowed('GET'));
  r.all(`${EVENT_TYPES_PATH}/:event_type`, methodNotAllowed('GET'));
  r.all(`${EVENT_TYPES_PATH}/:event_type/traits`, methodNotAllowed('GET'));
  r.all(`${EVENT_TYPES_PATH}/:event_type/traits/:trait_name`, methodNotAllowed('GET'));

  r.get(CAPABILITIES_PATH, (_req, response) => {
    response.json(CAPABILITIES);
  });
  r.all(CAPABILITIES_PATH, methodNotAllowed('GET'));

  // The store's time-out is the repository's; its HTTP answer is decided here.
  r.use((err: unknown, _req: Request, _res: Response, next: (err: unknown) => void) => {
    next(err instanceof QueryTimedOut ? errors.queryTimedOut(err.ms) : err);
  });

  return r;
}
