/**
 * How an event is stored: one document per event.
 *
 * ```
 * { _id: message_id, event_type, generated: "YYYY-MM-DDThh:mm:ss.ffffff",
 *   project_id: string | null,              // visibility scope: the project_id trait, else tenant_id
 *   resource_id?: string,                   // the resource_id trait when it is text (A2's key)
 *   traits: '[{"name":…,"type":…,"value":…}, …]',  // wire JSON text, in the event's order, returned verbatim
 *   raw: '{…}',                             // wire JSON text of raw
 *   t: { <encoded name>: <typed value> } }  // for filters: string | Long (int64) | double | canonical datetime string
 * ```
 * Why this shape:
 * - `generated` is a fixed-width string, so string order is time order and microseconds are never lost; datetime
 *   trait values are kept in the same canonical form in `t`, so they compare in time order too.
 * - The fields every hot query tests for equality (`_id`, `event_type`, `project_id`, `resource_id`) are top level:
 *   the compound indexes pair them with `generated` (events.repository.ts), so a query is an equality prefix and a
 *   range, which MongoDB and FerretDB 2.x with DocumentDB both serve from one index.
 * - Traits and raw are stored as their JSON text: one string per event is cheaper to store and decode than an array
 *   of sub-documents, values round-trip byte for byte, and a response is assembled without re-encoding them.
 */
import type { Event, Trait } from '@stratum/traits';
import { canonicalTimestamp } from '@stratum/traits';
import { Long } from 'bson';
import { stringify as losslessStringify } from 'lossless-json';

export interface EventDoc {
  _id: string;
  event_type: string;
  generated: string;
  project_id: string | null;
  resource_id?: string;
  traits: string;
  raw: string;
  t: Record<string, string | number | Long>;
}

/** Field-name encoding of a trait name: `%` → `%25`, `.` → `%2E`, a leading `$` → `%24` (MongoDB field rules). */
export function encodeTraitName(name: string): string {
  return name.replace(/%/g, '%25').replace(/\./g, '%2E').replace(/^\$/, '%24');
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** `big` as a stored int64 (`Long`), or undefined when it is outside int64 (callers keep it as text then). */
export function toInt64(big: bigint): Long | undefined {
  return big >= INT64_MIN && big <= INT64_MAX ? Long.fromBigInt(big) : undefined;
}

/**
 * Typed value of a trait for the `t` map, from its wire string: integers as int64 (`Long`, so values beyond 2^53
 * compare exactly; beyond int64 they stay strings), floats as doubles, datetimes in canonical form, text as is.
 */
export function typedTraitValue(trait: Trait): string | number | Long {
  switch (trait.type) {
    case 'integer': {
      if (!/^-?\d+$/.test(trait.value)) return trait.value;
      return toInt64(BigInt(trait.value)) ?? trait.value;
    }
    case 'float': {
      const n = Number(trait.value);
      return Number.isFinite(n) ? n : trait.value;
    }
    case 'datetime':
      return canonicalTimestamp(trait.value) ?? trait.value;
    default:
      return trait.value;
  }
}

/** The visibility scope of an event: its `project_id` trait, else its `tenant_id` trait, else null. */
export function scopeOf(traits: readonly Trait[]): string | null {
  const scope = traits.find((x) => x.name === 'project_id') ?? traits.find((x) => x.name === 'tenant_id');
  return scope?.value || null;
}

/**
 * Builds the stored document of a wire event. `generated` is stored in canonical form whatever its input spelling.
 * @throws Error when `generated` is not a timestamp.
 */
export function toEventDoc(event: Event): EventDoc {
  const generated = canonicalTimestamp(event.generated);
  if (!generated) throw new Error(`generated is not a timestamp: ${event.generated}`);
  // No prototype: a trait named `__proto__` is then an own field like any other, not a prototype change.
  const t: EventDoc['t'] = Object.create(null);
  for (const trait of event.traits) t[encodeTraitName(trait.name)] = typedTraitValue(trait);
  const resource = event.traits.find((x) => x.name === 'resource_id');
  return {
    _id: event.message_id,
    event_type: event.event_type,
    generated,
    project_id: scopeOf(event.traits),
    ...(resource && resource.type === 'String' ? { resource_id: resource.value } : {}),
    traits: JSON.stringify(event.traits.map(({ name, type, value }) => ({ name, type, value }))),
    raw: rawJson(event.raw),
    t,
  };
}

/** JSON text of `raw`; numbers kept by the ingestion parser as LosslessNumber are written as they arrived. */
function rawJson(raw: Event['raw'] | undefined): string {
  if (!raw || Object.keys(raw).length === 0) return '{}';
  return losslessStringify(raw) ?? '{}';
}

/** Fields a read needs to answer (the `t` map stays in the store). */
export const EVENT_PROJECTION = { _id: 1, event_type: 1, generated: 1, traits: 1, raw: 1 } as const;
export type StoredEvent = Pick<EventDoc, keyof typeof EVENT_PROJECTION>;

/**
 * The wire JSON text of a stored event: `{"message_id","event_type","generated","traits":[…],"raw":{…}}`.
 * Traits and raw are spliced in as stored (they were written by JSON.stringify, so they are valid JSON).
 */
export function eventJson(doc: StoredEvent): string {
  return (
    `{"message_id":${JSON.stringify(doc._id)},"event_type":${JSON.stringify(doc.event_type)},` +
    `"generated":${JSON.stringify(doc.generated)},"traits":${doc.traits},"raw":${doc.raw || '{}'}}`
  );
}

/** The wire JSON text of a list of stored events. */
export function eventsJson(docs: readonly StoredEvent[]): string {
  return `[${docs.map(eventJson).join(',')}]`;
}

/** The traits of a stored event, parsed. */
export function traitsOf(doc: Pick<EventDoc, 'traits'>): Trait[] {
  return JSON.parse(doc.traits) as Trait[];
}
