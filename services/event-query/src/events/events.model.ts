/**
 * How an event is stored: one document per event.
 *
 * ```
 * { _id: message_id, event_type, generated: "YYYY-MM-DDThh:mm:ss.ffffff",
 *   traits: [{name, type, value}],          // wire order and wire strings, returned as is
 *   t: { <encoded name>: <typed value> },   // for filtering and indexes: string | Long | double | timestamp string
 *   project_id: string | null,              // visibility scope: the project_id (else tenant_id) trait
 *   raw: {} }
 * ```
 * `generated` is a fixed-width string, so string order is time order and microseconds are never lost.
 * Datetime trait values are stored in the same canonical form. Trait names are encoded for use as field names.
 */
import type { Event, Trait } from '@stratum/traits';
import { Long } from 'mongodb';

export interface EventDoc {
  _id: string;
  event_type: string;
  generated: string;
  traits: Trait[];
  t: Record<string, string | number | Long>;
  project_id: string | null;
  raw: Record<string, unknown>;
}

/** Field-name encoding of a trait name: `%` → `%25`, `.` → `%2E`, a leading `$` → `%24` (MongoDB field rules). */
export function encodeTraitName(name: string): string {
  return name.replace(/%/g, '%25').replace(/\./g, '%2E').replace(/^\$/, '%24');
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * Typed value of a trait for the `t` map, from its wire string.
 * Integers are int64 (`Long`) so values beyond 2^53 compare exactly; beyond int64 they stay strings.
 */
export function typedTraitValue(trait: Trait): string | number | Long {
  switch (trait.type) {
    case 'integer': {
      if (!/^-?\d+$/.test(trait.value)) return trait.value;
      const big = BigInt(trait.value);
      return big >= INT64_MIN && big <= INT64_MAX ? Long.fromBigInt(big) : trait.value;
    }
    case 'float':
      return Number(trait.value);
    default:
      return trait.value;
  }
}

/** Builds the stored document of a wire event. */
export function toEventDoc(event: Event): EventDoc {
  const t: EventDoc['t'] = {};
  for (const trait of event.traits) t[encodeTraitName(trait.name)] = typedTraitValue(trait);
  const scope = event.traits.find((x) => x.name === 'project_id') ?? event.traits.find((x) => x.name === 'tenant_id');
  return {
    _id: event.message_id,
    event_type: event.event_type,
    generated: event.generated,
    traits: event.traits,
    t,
    project_id: scope?.value || null,
    raw: event.raw,
  };
}

/** The wire event of a stored document. */
export function toEvent(doc: EventDoc): Event {
  return {
    message_id: doc._id,
    event_type: doc.event_type,
    generated: doc.generated,
    traits: doc.traits,
    raw: doc.raw ?? {},
  };
}
