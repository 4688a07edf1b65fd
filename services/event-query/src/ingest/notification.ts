/**
 * What arrives on the bus or in a file, decoded into events:
 * - an oslo.messaging notification, plain or in the 2.0 envelope (`{"oslo.version":"2.0","oslo.message":"<JSON text>"}`,
 *   reference/events.md §10), converted with the definitions file;
 * - Ceilometer's `notifier://` publisher output: a notification whose payload is a list of serialized events;
 * - a serialized event itself (Ceilometer's `http://` publisher body is an array of them; reference/events.md §13).
 */
import type { Event } from '@stratum/traits';
import { canonicalTimestamp, DTYPE_TO_TRAIT_TYPE, parseTraitType } from '@stratum/traits';
import { ConversionError, convertValue, type EventConverter, type NotificationBody } from './definitions';
import { isJsonObject as isObject, mayHoldInexactNumbers, parsePyJson } from './python';
import { verifySignature } from './signature';

/** A record that is not a notification or a serialized event; the reason goes with it to the dead-letter queue. */
export class RejectedRecord extends Error {}

/** Notification priorities Ceilometer's EventEndpoint converts; others are consumed and ignored. */
const EVENT_PRIORITIES = new Set(['info', 'error']);

export interface DecodeOptions {
  converter: EventConverter;
  /** Ceilometer `[publisher] telemetry_secret`; when set, `notifier://` events must carry a valid `message_signature`. */
  telemetrySecret?: string;
}

/** The outcome of decoding one record: its events (possibly none, with the reason they are ignored). */
export interface Decoded {
  events: Event[];
  ignored?: string;
}

/**
 * Parses a record's text (an AMQP body, a line of a file) into a JSON value, unwrapping the oslo 2.0 envelope.
 * @throws RejectedRecord when it is not JSON.
 */
export function parseRecord(text: string | Buffer): unknown {
  const s = typeof text === 'string' ? text : text.toString('utf8');
  let value: unknown;
  try {
    // The 2.0 envelope's values are strings, so JSON.parse reads it exactly; only its inner text needs parsePyJson.
    value = JSON.parse(s);
  } catch (err) {
    throw new RejectedRecord(`not valid JSON: ${(err as Error).message}`);
  }
  if (isObject(value) && typeof value['oslo.message'] === 'string') return unwrapEnvelope(value);
  return mayHoldInexactNumbers(s) ? parsePyJson(s) : value;
}

/** `{"oslo.version","oslo.message": "<JSON text>"}` → the message; anything else unchanged. */
export function unwrapEnvelope(value: unknown): unknown {
  if (isObject(value) && typeof value['oslo.message'] === 'string') {
    try {
      return parsePyJson(value['oslo.message']);
    } catch (err) {
      throw new RejectedRecord(`oslo.message is not valid JSON: ${(err as Error).message}`);
    }
  }
  return value;
}

function looksSerialized(v: unknown): v is Record<string, unknown> {
  return isObject(v) && Array.isArray(v.traits) && typeof v.generated === 'string' && !('payload' in v);
}

/**
 * Decodes a parsed record (see `parseRecord`) into events.
 * @throws RejectedRecord with the reason when it cannot be converted (bad shape, trait value, timestamp, signature).
 */
export function decodeRecord(value: unknown, opts: DecodeOptions): Decoded {
  const record = unwrapEnvelope(value);
  if (looksSerialized(record)) return { events: [fromSerialized(record, opts.telemetrySecret, false)] };
  if (!isObject(record)) throw new RejectedRecord('not a notification: expected a JSON object');
  for (const key of ['message_id', 'event_type', 'timestamp'] as const) {
    if (typeof record[key] !== 'string' || record[key] === '') {
      throw new RejectedRecord(`not a notification: missing ${key}`);
    }
  }
  if (!('payload' in record)) throw new RejectedRecord('not a notification: missing payload');
  const payload = record.payload;
  if (Array.isArray(payload) && payload.length > 0 && payload.every(looksSerialized)) {
    // Ceilometer's notifier:// publisher: the events were converted already and are signed.
    return { events: payload.map((e) => fromSerialized(e, opts.telemetrySecret, true)) };
  }
  const priority = typeof record.priority === 'string' ? record.priority : 'INFO';
  if (!EVENT_PRIORITIES.has(priority.toLowerCase())) {
    return { events: [], ignored: `priority ${priority} is not converted into events` };
  }
  const body = toNotificationBody(record, priority);
  try {
    const event = opts.converter.toEvent(body);
    return event ? { events: [event] } : { events: [], ignored: `no definition matches ${body.event_type}` };
  } catch (err) {
    if (err instanceof ConversionError) throw new RejectedRecord(err.message);
    throw err;
  }
}

/** The converter's view of a message: `_context_<key>` keys become `ctxt.<key>`, as oslo.messaging hands them over. */
export function toNotificationBody(msg: Record<string, unknown>, priority: string): NotificationBody {
  const ctxt: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(msg)) {
    if (k.startsWith('_context_')) ctxt[k.slice(9)] = v;
  }
  return {
    ctxt,
    publisher_id: typeof msg.publisher_id === 'string' ? msg.publisher_id : null,
    event_type: msg.event_type as string,
    payload: msg.payload,
    metadata: { message_id: msg.message_id as string, timestamp: msg.timestamp as string },
    priority,
  };
}

/**
 * A serialized Ceilometer event → our event. Traits are `[name, dtype, value]` (dtype 1 text, 2 int, 3 float,
 * 4 datetime); objects `{name, type, value}` as Panko serves them are accepted too.
 * @param signed whether a `message_signature` is required (notifier://) when a secret is configured; an http://
 *   body carries none, but a signature that is present is always checked.
 * @throws RejectedRecord
 */
export function fromSerialized(e: Record<string, unknown>, secret: string | undefined, signed: boolean): Event {
  if (typeof e.message_id !== 'string' || e.message_id === '') throw new RejectedRecord('event without message_id');
  if (typeof e.event_type !== 'string' || e.event_type === '') {
    throw new RejectedRecord(`event ${e.message_id}: missing event_type`);
  }
  if (secret && (signed || 'message_signature' in e) && !verifySignature(e, secret)) {
    throw new RejectedRecord(`event ${e.message_id}: invalid message_signature`);
  }
  const generated = canonicalTimestamp(String(e.generated));
  if (!generated) throw new RejectedRecord(`event ${e.message_id}: unparsable generated ${String(e.generated)}`);
  const traits = (e.traits as unknown[]).map((t, i) => {
    let name: unknown;
    let dtype: unknown;
    let value: unknown;
    if (Array.isArray(t) && t.length === 3) [name, dtype, value] = t;
    else if (isObject(t)) ({ name, type: dtype, value } = t);
    const traitType =
      typeof dtype === 'number' ? DTYPE_TO_TRAIT_TYPE[dtype] : typeof dtype === 'string' ? parseTraitType(dtype) : undefined;
    if (typeof name !== 'string' || name === '' || !traitType || value === null || value === undefined) {
      throw new RejectedRecord(`event ${e.message_id}: trait ${i} is not [name, dtype 1-4, value]`);
    }
    try {
      return { name, type: traitType, value: convertValue(name, traitType, value) };
    } catch (err) {
      throw new RejectedRecord(`event ${e.message_id}: ${(err as Error).message}`);
    }
  });
  const raw = isObject(e.raw) ? e.raw : {};
  return { message_id: e.message_id, event_type: e.event_type, generated, traits, raw };
}
