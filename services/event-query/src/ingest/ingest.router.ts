/**
 * `POST /v2/ingest/events`: the body of Ceilometer's `http://` publisher (docs/upstream/events.md §13): a JSON array of
 * serialized events (`batch=True`, the default) or one event object (`batch=False`). Notifications in either
 * oslo envelope are accepted too and converted with the definitions file.
 *
 * All or nothing: if any record cannot be converted, nothing is stored and the 400 lists every reason
 * (`records[i]: …`). Answers 200 `{"stored": n, "duplicates": m, "dropped": [...]}`; a duplicate message_id is not
 * stored again; `dropped` lists the notifications Ceilometer makes no event of (`records[i]: <reason>`: a priority
 * other than INFO/ERROR, an unknown priority, an unmatched type with EVENT_DROP_UNMATCHED), each also logged at warn.
 * Admin only by default (`telemetry:events:create`, ingest.policy.ts), 403 otherwise; 503 when the store is down (the publisher may retry).
 */
import { identityOf, methodNotAllowed } from '@stratum/http-kit';
import { type Request, type Response, Router } from 'express';
import type { Logger } from 'pino';
import * as errors from '../errors';
import { DEFAULT_EVENT_POLICY, type EventPolicy } from '../events/events.policy';
import { INGEST_PATH } from './ingest.schema';
import type { IngestService } from './ingest.service';
import { type DecodeOptions, decodeBatch, describeRecord, RejectedRecord } from './notification';
import { mayHoldInexactNumbers, parsePyJson } from './python';

/**
 * The body's records: an array, or one record. express.json has parsed the body already; only a body holding
 * numbers JSON.parse would change is read again from its bytes, exactly.
 * @throws AppError 400 for no body at all (an empty one included), or bytes that are not JSON.
 */
function recordsOf(req: Request, res: Response): unknown[] {
  const raw = res.locals.rawBody as Buffer | undefined;
  if (!raw || raw.length === 0) throw errors.ingestBodyMissing();
  const text = raw.toString('utf8');
  let body: unknown = req.body;
  if (mayHoldInexactNumbers(text)) {
    try {
      body = parsePyJson(text);
    } catch {
      throw errors.notJson();
    }
  }
  return Array.isArray(body) ? body : [body];
}

/** The ingest route; `policy` is the service's enforcer (its defaults unless POLICY_FILE overrides them). */
export function ingestRouter(ingest: IngestService, decode: DecodeOptions, policy: EventPolicy = DEFAULT_EVENT_POLICY): Router {
  const r = Router({ strict: false });
  r.post(INGEST_PATH, async (req: Request, res: Response) => {
    policy.authorize(identityOf(res), 'telemetry:events:create');
    const batch = decodeBatch(recordsOf(req, res), decode);
    const log = (req as Request & { log?: Logger }).log;
    for (const d of batch.dropped) {
      log?.warn({ ...describeRecord(d.record), kind: d.kind, reason: d.reason }, 'notification dropped: Ceilometer makes no event of it');
    }
    if (batch.rejected.length > 0) throw errors.nothingStored(batch.rejected);
    try {
      const result = await ingest.store(batch.events);
      res.json({ ...result, dropped: batch.dropped.map((d) => `records[${d.index}]: ${d.reason}`) });
    } catch (err) {
      if (err instanceof RejectedRecord) throw errors.nothingStored([err.message]);
      throw err;
    }
  });
  r.all(INGEST_PATH, methodNotAllowed('POST'));
  return r;
}
