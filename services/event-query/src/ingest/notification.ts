/**
 * What arrives on the bus or in a file, decoded into events:
 * - an oslo.messaging notification, plain or in the 2.0 envelope (`{"oslo.version":"2.0","oslo.message":"<JSON text>"}`,
 *   docs/upstream/events.md §10), converted with the definitions file;
 * - Ceilometer's `notifier://` publisher output: a notification whose payload is a list of serialized events;
 * - a serialized event itself (Ceilometer's `http://` publisher body is an array of them; docs/upstream/events.md §13).
 */
import type { Event } from '@stratum/traits';
import { canonicalTimestamp, DTYPE_TO_TRAIT_TYPE, parseTraitType } from '@stratum/traits';
import { ConversionError, convertValue, type EventConverter, type NotificationBody } from './definitions';
import { isJsonObject as isObject, mayHoldInexactNumbers, parsePyJson } from './python';
import { verifySignature } from './signature';

/** A record that is not a notification or a serialized event; the reason goes with it to the dead-letter queue. */
export class RejectedRecord extends Error {}

/** oslo.messaging's notification priorities (`oslo_messaging/notify/dispatcher.py` PRIORITIES), lower case. */
const OSLO_PRIORITIES = new Set(['audit', 'debug', 'info', 'warn', 'error', 'critical', 'sample']);
/** Notification priorities Ceilometer's EventEndpoint converts (it has only `info` and `error` methods). */
const EVENT_PRIORITIES = new Set(['info', 'error']);

/** The oslo envelope version this endpoint reads (`_RPC_ENVELOPE_VERSION`). */
const ENVELOPE_VERSION = [2, 0, 0] as const;
const VERSION_KEY = 'oslo.version';
const MESSAGE_KEY = 'oslo.message';

/** Longest message_id, event_type and trait name stored, in characters (Panko's columns are VARCHAR(255)). */
export const MAX_NAME_LENGTH = 255;

/**
 * Deepest nesting of objects and lists in a record. Notifications nest a few levels (Nova's versioned ones about
 * ten); Python's json module gives up near 1000, and every step after parsing (definitions, signature, raw) walks
 * the value recursively, so deeper records are refused up front.
 */
export const MAX_NESTING = 100;

/** @throws RejectedRecord when `value` nests objects/lists deeper than MAX_NESTING (checked without recursion). */
function checkNesting(value: unknown): void {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (v === null || typeof v !== 'object') continue;
    if (depth > MAX_NESTING) throw new RejectedRecord(`nested deeper than ${MAX_NESTING} levels`);
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
}

export interface DecodeOptions {
  converter: EventConverter;
  /** Ceilometer `[publisher] telemetry_secret`; when set, `notifier://` events must carry a valid `message_signature`. */
  telemetrySecret?: string;
}

/**
 * Why a well-formed notification gives no event, as Ceilometer would consume and drop it:
 * - `priority`: a known priority other than info/error (debug, audit, warn, critical, sample);
 * - `unknown_priority`: a priority oslo.messaging does not know (its dispatcher logs `Unknown priority` and drops it);
 * - `unmatched`: no definition matches and EVENT_DROP_UNMATCHED is on.
 */
export type DropKind = 'priority' | 'unknown_priority' | 'unmatched';
export const DROP_KINDS: readonly DropKind[] = ['priority', 'unknown_priority', 'unmatched'];

/** The outcome of decoding one record: its events, or none with why it was dropped. */
export interface Decoded {
  events: Event[];
  dropped?: { kind: DropKind; reason: string };
}

/**
 * oslo.messaging's `version_is_compatible(_RPC_ENVELOPE_VERSION, v)`: same major, minor and revision not above ours.
 * Anything but a `"major.minor[.rev]"` string is incompatible (oslo fails on it as well).
 */
export function isCompatibleEnvelopeVersion(v: unknown): boolean {
  if (typeof v !== 'string') return false;
  const parts = v.split('.');
  if (parts.length < 2 || !parts.slice(0, 3).every((p) => /^\s*[-+]?\d+\s*$/.test(p))) return false;
  const [major, minor, rev = 0] = parts.slice(0, 3).map(Number) as [number, number, number?];
  if (major !== ENVELOPE_VERSION[0] || minor > ENVELOPE_VERSION[1]) return false;
  return !(minor === ENVELOPE_VERSION[1] && rev > ENVELOPE_VERSION[2]);
}

const isEnvelope = (v: Record<string, unknown>) => Object.hasOwn(v, VERSION_KEY) || Object.hasOwn(v, MESSAGE_KEY);

/**
 * Parses a record's text (an AMQP body, a line of a file) into a JSON value, unwrapping the oslo 2.0 envelope.
 * @throws RejectedRecord when it is not JSON, or an envelope this endpoint cannot read.
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
  if (isObject(value) && isEnvelope(value)) return unwrapEnvelope(value);
  return mayHoldInexactNumbers(s) ? parsePyJson(s) : value;
}

/**
 * `{"oslo.version": "2.0", "oslo.message": "<JSON text>"}` → the message; anything that is not an envelope unchanged.
 * As oslo.messaging's `deserialize_msg`, an envelope of another major version (or a later minor) is refused
 * (`UnsupportedRpcEnvelopeVersion`; its rabbit driver logs and rejects the message).
 * @throws RejectedRecord for an incompatible version, half an envelope, or an `oslo.message` that is not JSON text.
 */
export function unwrapEnvelope(value: unknown): unknown {
  if (!isObject(value) || !isEnvelope(value)) return value;
  if (!Object.hasOwn(value, VERSION_KEY) || !Object.hasOwn(value, MESSAGE_KEY)) {
    throw new RejectedRecord(`not an oslo envelope: ${VERSION_KEY} and ${MESSAGE_KEY} go together`);
  }
  const version = value[VERSION_KEY];
  if (!isCompatibleEnvelopeVersion(version)) {
    throw new RejectedRecord(`unsupported ${VERSION_KEY} ${JSON.stringify(version)}: this endpoint reads envelope 2.0`);
  }
  const inner = value[MESSAGE_KEY];
  if (typeof inner !== 'string') throw new RejectedRecord(`${MESSAGE_KEY} is not JSON text`);
  try {
    return parsePyJson(inner);
  } catch (err) {
    throw new RejectedRecord(`${MESSAGE_KEY} is not valid JSON: ${(err as Error).message}`);
  }
}

function looksSerialized(v: unknown): v is Record<string, unknown> {
  return isObject(v) && Array.isArray(v.traits) && typeof v.generated === 'string' && !('payload' in v);
}

/** JSON type name of a value, for reasons. */
function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'list';
  if (isObject(v)) return 'object';
  return typeof v === 'object' ? 'number' : typeof v;
}

/**
 * What identifies a record in a log line, whatever its shape: its message_id and event_type when it has them as
 * strings (cut to MAX_NAME_LENGTH), looked up inside a 2.0 envelope too. Never the payload.
 */
export function describeRecord(value: unknown): { message_id?: string; event_type?: string } {
  let record = value;
  if (isObject(value) && typeof value[MESSAGE_KEY] === 'string') {
    try {
      record = JSON.parse(value[MESSAGE_KEY] as string);
    } catch {
      return {};
    }
  }
  if (!isObject(record)) return {};
  const out: { message_id?: string; event_type?: string } = {};
  for (const key of ['message_id', 'event_type'] as const) {
    const v = record[key];
    if (typeof v === 'string') out[key] = v.slice(0, MAX_NAME_LENGTH);
  }
  return out;
}

/**
 * Checks what the store needs of an event: message_id and event_type of at most MAX_NAME_LENGTH characters, trait
 * names non-empty, without NUL (no document field name can hold it) and of at most MAX_NAME_LENGTH characters.
 * @throws RejectedRecord naming the first problem.
 */
export function checkStorable(e: Event): Event {
  // Characters as Python counts them (code points), so a name of 255 emoji fits as it does in Panko's column.
  const tooLong = (v: string) => v.length > MAX_NAME_LENGTH && (v.length > 2 * MAX_NAME_LENGTH || [...v].length > MAX_NAME_LENGTH);
  const long = (what: string) =>
    new RejectedRecord(`event ${e.message_id.slice(0, 64)}: ${what} is longer than ${MAX_NAME_LENGTH} characters`);
  if (tooLong(e.message_id)) throw long('message_id');
  if (tooLong(e.event_type)) throw long('event_type');
  for (const t of e.traits) {
    if (tooLong(t.name)) throw long(`trait name ${JSON.stringify(t.name.slice(0, 64))}…`);
    if (t.name.includes('\u0000')) throw new RejectedRecord(`event ${e.message_id}: trait name ${JSON.stringify(t.name)} contains NUL`);
  }
  return e;
}

/** A batch of records decoded: every event, the records dropped as Ceilometer would, the records refused. */
export interface DecodedBatch {
  events: Event[];
  /** Each dropped record by index, with why (`Decoded.dropped`). */
  dropped: { index: number; record: unknown; kind: DropKind; reason: string }[];
  /** `records[i]: <reason>` for each record that cannot be converted, in order. */
  rejected: string[];
}

/**
 * Decodes every record of a batch (`decodeRecord`), collecting the reasons instead of stopping at the first, so an
 * all-or-nothing caller (the HTTP publisher endpoint) can name them all.
 * @throws what `decodeRecord` throws other than RejectedRecord (a programming error).
 */
export function decodeBatch(records: readonly unknown[], opts: DecodeOptions): DecodedBatch {
  const batch: DecodedBatch = { events: [], dropped: [], rejected: [] };
  records.forEach((record, index) => {
    try {
      const decoded = decodeRecord(record, opts);
      batch.events.push(...decoded.events);
      if (decoded.dropped) batch.dropped.push({ index, record, ...decoded.dropped });
    } catch (err) {
      if (!(err instanceof RejectedRecord)) throw err;
      batch.rejected.push(`records[${index}]: ${err.message}`);
    }
  });
  return batch;
}

/**
 * Decodes a parsed record (see `parseRecord`) into events. In order, as Ceilometer's notification agent:
 * the envelope (an unsupported version is refused), the notification's keys, Ceilometer's own `notifier://` output
 * (a payload list of serialized events), the priority (only info and error become events; others are dropped with
 * the reason), the payload (an object, as oslo.messaging notifiers send), then the definitions.
 * @throws RejectedRecord with the reason when it cannot be converted (bad shape, payload, trait value, timestamp,
 *   signature, a name the store cannot hold, or nesting deeper than MAX_NESTING).
 */
export function decodeRecord(value: unknown, opts: DecodeOptions): Decoded {
  checkNesting(value);
  const record = unwrapEnvelope(value);
  if (record !== value) checkNesting(record);
  if (looksSerialized(record)) return { events: [checkStorable(fromSerialized(record, opts.telemetrySecret, false))] };
  if (!isObject(record)) throw new RejectedRecord(`not a notification: expected a JSON object, got a ${jsonType(record)}`);
  for (const key of ['message_id', 'event_type', 'timestamp'] as const) {
    if (typeof record[key] !== 'string' || record[key] === '') {
      throw new RejectedRecord(`not a notification: missing ${key}`);
    }
  }
  if (!Object.hasOwn(record, 'payload')) throw new RejectedRecord('not a notification: missing payload');
  const payload = record.payload;
  if (Array.isArray(payload) && payload.some(looksSerialized)) {
    // Ceilometer's notifier:// publisher: the events were converted already and are signed.
    return {
      events: payload.map((e, i) => {
        if (!isObject(e)) throw new RejectedRecord(`payload[${i}] is not a serialized event`);
        return checkStorable(fromSerialized(e, opts.telemetrySecret, true));
      }),
    };
  }
  // A missing priority is read as INFO (the routing key carries it on the bus); a non-string one is malformed.
  if (record.priority !== undefined && typeof record.priority !== 'string') {
    throw new RejectedRecord(`not a notification: priority is a ${jsonType(record.priority)}`);
  }
  const priority = typeof record.priority === 'string' ? record.priority : 'INFO';
  if (!OSLO_PRIORITIES.has(priority.toLowerCase())) {
    return { events: [], dropped: { kind: 'unknown_priority', reason: `unknown priority ${JSON.stringify(priority.slice(0, 32))}` } };
  }
  if (!EVENT_PRIORITIES.has(priority.toLowerCase())) {
    return { events: [], dropped: { kind: 'priority', reason: `priority ${priority} is not converted into events (only INFO and ERROR)` } };
  }
  if (!isObject(payload)) {
    // Ceilometer would make an event of the context's default traits alone; the payload of an oslo.messaging
    // notification is a dict, so this one is kept for an operator to look at instead.
    throw new RejectedRecord(`not a notification: payload is a ${jsonType(payload)}, not a JSON object`);
  }
  const body = toNotificationBody(record, priority);
  try {
    const event = opts.converter.toEvent(body);
    return event
      ? { events: [checkStorable(event)] }
      : { events: [], dropped: { kind: 'unmatched', reason: `no definition matches ${body.event_type.slice(0, MAX_NAME_LENGTH)}` } };
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
  if (!Array.isArray(e.traits)) throw new RejectedRecord(`event ${e.message_id}: traits is not a list`);
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
