/**
 * Events and traits as Panko v2 serves them and Ceilometer produces them.
 *
 * Wire event: `{message_id, event_type, generated, traits: [{name, type, value}], raw}`; `generated` always carries six
 * fractional digits (`2026-11-20T08:15:01.000000`, naive UTC); trait `value` is always a string; trait `type` is one of
 * `String`, `integer`, `float` or `datetime` (docs/api/events.md, "Trait"), accepted in any case on input.
 */
import { z } from 'zod';

/** Trait types, with the spelling the API's samples show on output (docs/api/events.md). */
export const TRAIT_TYPES = ['String', 'integer', 'float', 'datetime'] as const;
export type TraitType = (typeof TRAIT_TYPES)[number];

/** Ceilometer dtype codes (`ceilometer/event/models.py` Trait.*_TYPE) → our type names. */
export const DTYPE_TO_TRAIT_TYPE: Readonly<Record<number, TraitType>> = {
  1: 'String',
  2: 'integer',
  3: 'float',
  4: 'datetime',
};

/**
 * Normalises a trait type name given by a client or a definitions file: `string`/`text`/`String` → `String`,
 * `int`/`integer` → `integer`, `float`, `datetime`. Case-insensitive.
 * @returns the type, or undefined when the name is not a trait type.
 */
export function parseTraitType(name: string): TraitType | undefined {
  switch (name.toLowerCase()) {
    case 'string':
    case 'text':
      return 'String';
    case 'integer':
    case 'int':
      return 'integer';
    case 'float':
      return 'float';
    case 'datetime':
      return 'datetime';
    default:
      return undefined;
  }
}

export const TraitSchema = z.object({
  /** Trait name, e.g. `resource_id`; any characters, including dots and dashes. */
  name: z.string().min(1),
  type: z.enum(TRAIT_TYPES),
  /** Always a string on the wire, also for integer, float and datetime traits. */
  value: z.string(),
});
export type Trait = z.infer<typeof TraitSchema>;

export const EventSchema = z.object({
  message_id: z.string().min(1),
  event_type: z.string().min(1),
  /** `YYYY-MM-DDThh:mm:ss.ffffff`, naive UTC. */
  generated: z.string(),
  traits: z.array(TraitSchema),
  raw: z.record(z.string(), z.unknown()),
});
export type Event = z.infer<typeof EventSchema>;

const TS_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * Parses an ISO-8601 timestamp (a date alone means midnight; `T` or space separator, optional fraction up to nanoseconds, optional `Z`/offset;
 * a missing zone means UTC, as oslo's `parse_isotime` + `normalize_time`) into the canonical naive-UTC form with
 * exactly six fractional digits. Digits beyond microseconds are truncated.
 * @returns `YYYY-MM-DDThh:mm:ss.ffffff`, or undefined when `text` is not a valid timestamp.
 */
export function canonicalTimestamp(text: string): string | undefined {
  const m = TS_RE.exec(text.trim());
  if (!m) return undefined;
  const [, y, mo, d, h = '00', mi = '00', s = '00', frac = '', zone] = m;
  const micros = (frac + '000000').slice(0, 6);
  let ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  const check = new Date(ms);
  if (
    check.getUTCFullYear() !== Number(y) ||
    check.getUTCMonth() !== Number(mo) - 1 ||
    check.getUTCDate() !== Number(d) ||
    Number(h) > 23 ||
    Number(mi) > 59 ||
    Number(s) > 59
  ) {
    return undefined;
  }
  if (zone && zone !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    ms -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4))) * 60_000;
  }
  return `${new Date(ms).toISOString().slice(0, 19)}.${micros}`;
}

/**
 * Hand-off of stored events to other services (the department quota registry follows identity.project.*,
 * identity.domain.* and volume_type.*): the event service publishes each stored event whose type is configured for
 * forwarding to this durable topic exchange, persistent, routing key = `event_type`, body = the wire event JSON.
 * A subscriber binds its own durable queue; delivery is at least once, so subscribers dedupe on `message_id`.
 */
export const EVENTS_FORWARD_EXCHANGE = 'stratum.events';
