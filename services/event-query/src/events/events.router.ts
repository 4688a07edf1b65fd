/**
 * Group A routes: `GET /v2/events/{message_id}` (A1), `POST /v2/query/events` (A2), `GET|POST /v2/events` (A3).
 */
import { AppError, identityOf } from '@stratum/http-kit';
import { Router } from 'express';
import { type SortSpec, translateOrderBy, withTiebreak } from './events.query';
import { ComplexQueryBody, parseJsonText, parseLimit, parseListInput } from './events.schema';
import type { EventsService } from './events.service';

function descOf(desc: string | boolean | undefined): boolean {
  if (desc === undefined) return true;
  if (typeof desc === 'boolean') return desc;
  const v = desc.trim().toLowerCase();
  if (['true', '1', 'yes', 'desc'].includes(v)) return true;
  if (['false', '0', 'no', 'asc'].includes(v)) return false;
  throw new AppError(400, `Invalid input for field/attribute desc. Value: '${desc}'. Expected true/false or asc/desc.`);
}

export function eventsRouter(events: EventsService): Router {
  const r = Router({ strict: false });

  const list = async (req: import('express').Request, res: import('express').Response) => {
    const input = parseListInput(req.query as Record<string, unknown>, req.body);
    res.json(await events.list(identityOf(res), input.q, input.limit, input.sort));
  };
  r.get('/v2/events', list);
  r.post('/v2/events', list);

  r.get('/v2/events/:messageId', async (req, res) => {
    res.json(await events.get(identityOf(res), req.params.messageId as string));
  });

  r.post('/v2/query/events', async (req, res) => {
    const parsed = ComplexQueryBody.safeParse(req.body ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new AppError(400, `Invalid query body: ${issue?.path.join('.') || 'body'}: ${issue?.message}`);
    }
    const body = parsed.data;
    const filter = typeof body.filter === 'string' ? parseJsonText(body.filter, 'Filter expression not valid: ') : body.filter;
    const orderby = typeof body.orderby === 'string' ? parseJsonText(body.orderby, 'Order-by expression not valid: ') : body.orderby;
    const sort: SortSpec = orderby === undefined ? withTiebreak([['generated', descOf(body.desc) ? -1 : 1]]) : translateOrderBy(orderby);
    res.json(await events.query(identityOf(res), filter, sort, parseLimit(body.limit)));
  });

  return r;
}
