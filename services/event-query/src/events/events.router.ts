/**
 * Group A routes (Panko v2 plus the complex query):
 * `GET /v2/events/{message_id}` (A1), `POST /v2/query/events` (A2), `GET|POST /v2/events` (A3),
 * `GET /v2/event_types`, `/v2/event_types/{type}/traits`, `/v2/event_types/{type}/traits/{name}`,
 * `GET /v2/capabilities`. Trailing slashes are accepted (python-pankoclient sends them).
 */
import { AppError, forwardedBaseUrl, identityOf, methodNotAllowed } from '@stratum/http-kit';
import { type Request, type Response, Router } from 'express';
import { parseQueryJson } from './events.complex';
import { eventJson, eventsJson } from './events.model';
import {
  CAPABILITIES,
  CAPABILITIES_PATH,
  ComplexQueryBody,
  EVENT_TYPES_PATH,
  EVENTS_PATH,
  parseBoolean,
  parseDesc,
  parseLimit,
  parseListInput,
  parsePageInput,
  QUERY_PATH,
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

export function eventsRouter(events: EventsService): Router {
  const r = Router({ strict: false });

  const list = async (req: Request, response: Response) => {
    const input = parseListInput(req.query as Record<string, unknown>, req.body);
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
  r.get(EVENTS_PATH, list);
  r.post(EVENTS_PATH, list);
  r.all(EVENTS_PATH, methodNotAllowed('GET, POST'));

  r.get(`${EVENTS_PATH}/:messageId`, async (req, response) => {
    const { allTenants } = parsePageInput(req.query as Record<string, unknown>, ['all_tenants']);
    sendJsonText(response, eventJson(await events.get(identityOf(response), req.params.messageId as string, allTenants)));
  });
  r.all(`${EVENTS_PATH}/:messageId`, methodNotAllowed('GET'));

  r.post(QUERY_PATH, async (req, response) => {
    const parsed = ComplexQueryBody.safeParse(req.body === undefined ? {} : req.body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new AppError(400, `Invalid query body: ${issue?.path.join('.') || 'body'}: ${issue?.message}`);
    }
    const body = parsed.data;
    const { allTenants } = parsePageInput(req.query as Record<string, unknown>, ['all_tenants']);
    const rows = await events.query(identityOf(response), {
      filter: typeof body.filter === 'string' ? parseQueryJson(body.filter, 'Filter expression not valid: ') : body.filter,
      orderby: typeof body.orderby === 'string' ? parseQueryJson(body.orderby, 'Order-by expression not valid: ') : body.orderby,
      desc: parseDesc(body.desc),
      limit: parseLimit(body.limit),
      allTenants: body.all_tenants === undefined ? allTenants : parseBoolean(body.all_tenants, 'all_tenants'),
    });
    sendJsonText(response, eventsJson(rows));
  });
  r.all(QUERY_PATH, methodNotAllowed('POST'));

  r.get(EVENT_TYPES_PATH, async (req, response) => {
    const { allTenants } = parsePageInput(req.query as Record<string, unknown>, ['all_tenants']);
    response.json(await events.eventTypes(identityOf(response), allTenants));
  });
  // Panko's "Unused API": always 404.
  r.get(`${EVENT_TYPES_PATH}/:type`, (req) => {
    throw new AppError(404, `Event type ${req.params.type} Not Found`);
  });
  r.get(`${EVENT_TYPES_PATH}/:type/traits`, async (req, response) => {
    const { allTenants } = parsePageInput(req.query as Record<string, unknown>, ['all_tenants']);
    response.json(await events.traitDescriptions(identityOf(response), req.params.type as string, allTenants));
  });
  r.get(`${EVENT_TYPES_PATH}/:type/traits/:name`, async (req, response) => {
    const input = parsePageInput(req.query as Record<string, unknown>, ['limit', 'marker', 'all_tenants']);
    const page = await events.traitValues(identityOf(response), req.params.type as string, req.params.name as string, input);
    const params = new URLSearchParams();
    if (input.allTenants) params.set('all_tenants', 'true');
    setNextLink(req, response, page, params);
    response.json(page.rows);
  });

  r.all(EVENT_TYPES_PATH, methodNotAllowed('GET'));
  r.all(`${EVENT_TYPES_PATH}/:type`, methodNotAllowed('GET'));
  r.all(`${EVENT_TYPES_PATH}/:type/traits`, methodNotAllowed('GET'));
  r.all(`${EVENT_TYPES_PATH}/:type/traits/:name`, methodNotAllowed('GET'));

  r.get(CAPABILITIES_PATH, (_req, response) => {
    response.json(CAPABILITIES);
  });
  r.all(CAPABILITIES_PATH, methodNotAllowed('GET'));

  return r;
}
