/**
 * Ceilometer-compatible event definitions (`event_definitions.yaml`) and the conversion of a notification into an
 * event, as `ceilometer/event/converter.py` (docs/upstream/events.md §11):
 * - a file is a list of `{event_type, traits}`; `event_type` is a glob or a list of globs (fnmatch), `!glob`
 *   excludes, only exclusions imply `*`;
 * - the last matching definition wins, alone; unless `dropUnmatched`, an implicit catch-all gives the default traits;
 * - default traits `service, request_id, project_id, user_id, tenant_id` come first, a definition's trait of the same
 *   name replaces one in place;
 * - a trait is `name: <path>` or `{type: text|int|float|datetime, fields: <path or list>, plugin}`; a list of paths
 *   is a union whose first non-null match wins;
 * - values: null → no trait; `''` → no trait unless text; text is Python `str()` cut to 255 characters; a value that
 *   cannot be converted fails the whole notification (Ceilometer logs and drops it; we dead-letter it).
 */
import { canonicalTimestamp, type Event, type Trait, type TraitType } from '@stratum/traits';
import { parse as parseYaml } from 'yaml';
import { compileJsonPath, type Json, type JsonPath, type Match } from './jsonpath';
import { pyFloatRepr, pyStr, toNumber } from './python';
import { loadPlugin, type TraitPlugin } from './trait-plugins';

/**
 * What the converter reads, as Ceilometer's notification endpoint hands it over (JSONPaths address these keys).
 * A type rather than an interface, so it is also a plain `Record<string, unknown>` (the stored `raw`).
 */
export type NotificationBody = {
  /** The request context: the `_context_*` keys of the message without their prefix. */
  ctxt: Record<string, Json>;
  publisher_id: string | null;
  event_type: string;
  payload: Json;
  metadata: { message_id: string; timestamp: string };
  priority: string;
};

/** The definitions file is unusable; Ceilometer's EventDefinitionException. The message names the definition. */
export class DefinitionError extends Error {}

/** The notification cannot be turned into an event (a trait value that does not convert, a bad timestamp). */
export class ConversionError extends Error {}

/** `Trait.<TYPE>_TYPE` names, looked up upper-cased as Ceilometer does (so any case); `none` stores text. */
const TRAIT_TYPES: Record<string, TraitType> = { text: 'String', none: 'String', int: 'integer', float: 'float', datetime: 'datetime' };

const DEFAULT_TRAITS: Record<string, { type: string; fields: string | string[] }> = {
  service: { type: 'text', fields: 'publisher_id' },
  request_id: { type: 'text', fields: 'ctxt.request_id' },
  project_id: { type: 'text', fields: ['payload.tenant_id', 'ctxt.project_id'] },
  user_id: { type: 'text', fields: ['payload.user_id', 'ctxt.user_id'] },
  tenant_id: { type: 'text', fields: ['payload.tenant_id', 'ctxt.project_id'] },
};

const pathCache = new Map<string, JsonPath>();

function compileCached(src: string): JsonPath {
  let p = pathCache.get(src);
  if (!p) {
    p = compileJsonPath(src);
    pathCache.set(src, p);
  }
  return p;
}

class TraitDefinition {
  private readonly getter: JsonPath | { constant: unknown };
  private readonly plugin?: TraitPlugin;
  readonly type: TraitType;

  constructor(
    readonly name: string,
    cfg: unknown,
  ) {
    let fields: unknown = cfg;
    let typeName = 'text';
    if (cfg !== null && typeof cfg === 'object' && !Array.isArray(cfg)) {
      const c = cfg as Record<string, unknown>;
      if (!('fields' in c)) throw new DefinitionError(`The field 'fields' is required for ${name}`);
      fields = c.fields;
      if (c.type !== undefined) typeName = String(c.type);
      if (c.plugin !== undefined) {
        try {
          this.plugin = loadPlugin(c.plugin);
        } catch (err) {
          throw new DefinitionError(`trait ${name}: ${(err as Error).message}`);
        }
      }
    }
    const type = TRAIT_TYPES[typeName.toLowerCase()];
    if (!type) throw new DefinitionError(`Invalid trait type '${typeName}' for trait ${name}`);
    this.type = type;
    if (Array.isArray(fields)) fields = fields.length === 1 ? fields[0] : fields.map((f) => `(${f})`).join('|');
    if (typeof fields === 'number') {
      this.getter = { constant: fields };
    } else if (typeof fields === 'string') {
      try {
        this.getter = compileCached(fields);
      } catch (err) {
        throw new DefinitionError(`Could not parse JSONPath for trait ${name}: ${(err as Error).message}`);
      }
    } else {
      throw new DefinitionError(`trait ${name}: fields must be a JSONPath or a list of them`);
    }
  }

  /** The trait, or null when the notification gives it no value. @throws ConversionError */
  toTrait(body: NotificationBody): Trait | null {
    let value: unknown;
    if ('constant' in this.getter) {
      value = this.getter.constant;
    } else {
      const matches: Match[] = this.getter.find(body).filter((m) => m.value !== null && m.value !== undefined);
      value = this.plugin ? this.plugin.traitValue(matches) : matches[0]?.value;
    }
    if (value === null || value === undefined) return null;
    if (this.type !== 'String' && value === '') return null;
    return { name: this.name, type: this.type, value: convertValue(this.name, this.type, value) };
  }
}

/**
 * Ceilometer's `Trait.convert_value`, written as our wire string: int → Python `int()`, float → `float()` in
 * Python repr, datetime → canonical naive UTC, text → `str()` cut to 255 characters.
 * @throws ConversionError naming the trait and the value.
 */
export function convertValue(name: string, type: TraitType, value: unknown): string {
  switch (type) {
    case 'integer': {
      const n = pyInt(value);
      if (n === undefined) throw new ConversionError(`trait ${name}: invalid literal for int(): ${pyStr(value)}`);
      return n.toString();
    }
    case 'float': {
      const n = pyFloat(value);
      if (n === undefined) throw new ConversionError(`trait ${name}: could not convert to float: ${pyStr(value)}`);
      return pyFloatRepr(n);
    }
    case 'datetime': {
      const t = typeof value === 'string' ? canonicalTimestamp(value) : undefined;
      if (!t) throw new ConversionError(`trait ${name}: not an ISO 8601 datetime: ${pyStr(value)}`);
      return t;
    }
    default: {
      const text = pyStr(value);
      return text.length <= 255 ? text : Array.from(text).slice(0, 255).join('');
    }
  }
}

function pyInt(v: unknown): bigint | undefined {
  if (v === true) return 1n;
  if (v === false) return 0n;
  if (typeof v === 'string') {
    const s = v.trim().replace(/(\d)_(?=\d)/g, '$1');
    return /^[+-]?\d+$/.test(s) ? BigInt(s) : undefined;
  }
  if (typeof v === 'object' && v !== null && 'value' in v && typeof (v as { value: unknown }).value === 'string') {
    const text = (v as { value: string }).value;
    if (/^-?\d+$/.test(text)) return BigInt(text);
  }
  const n = toNumber(v);
  return n !== undefined && Number.isFinite(n) ? BigInt(Math.trunc(n)) : undefined;
}

function pyFloat(v: unknown): number | undefined {
  if (v === true) return 1;
  if (v === false) return 0;
  const n = typeof v === 'string' ? (/^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(v) ? Number(v) : undefined) : toNumber(v);
  return n !== undefined && Number.isFinite(n) ? n : undefined;
}

/** Python's `fnmatch.fnmatchcase` glob (`*`, `?`, `[seq]`, `[!seq]`) as a RegExp. */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end < 0) re += '\\[';
      else {
        let set = glob.slice(i + 1, end).replace(/\\/g, '\\\\');
        if (set.startsWith('!')) set = `^${set.slice(1)}`;
        else if (set.startsWith('^')) set = `\\${set}`;
        re += `[${set}]`;
        i = end;
      }
    } else re += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 's');
}

class EventDefinition {
  private readonly included: RegExp[] = [];
  private readonly excluded: RegExp[] = [];
  readonly isCatchAll: boolean;
  private readonly traits: TraitDefinition[];

  constructor(cfg: unknown, index: number) {
    if (cfg === null || typeof cfg !== 'object' || Array.isArray(cfg)) {
      throw new DefinitionError(`definition ${index}: not a mapping`);
    }
    const c = cfg as Record<string, unknown>;
    for (const key of ['event_type', 'traits']) {
      if (!(key in c)) throw new DefinitionError(`definition ${index}: Required field ${key} not specified`);
    }
    const types = Array.isArray(c.event_type) ? c.event_type : [c.event_type];
    const inc: string[] = [];
    for (const t of types) {
      if (typeof t !== 'string') throw new DefinitionError(`definition ${index}: event_type must be text`);
      if (t.startsWith('!')) this.excluded.push(globToRegExp(t.slice(1)));
      else inc.push(t);
    }
    if (inc.length === 0 && this.excluded.length > 0) inc.push('*');
    this.included = inc.map(globToRegExp);
    this.isCatchAll = inc.includes('*') && this.excluded.length === 0;
    const traits = new Map<string, TraitDefinition>();
    for (const [name, tcfg] of Object.entries(DEFAULT_TRAITS)) traits.set(name, new TraitDefinition(name, tcfg));
    const own = c.traits ?? {};
    if (typeof own !== 'object' || Array.isArray(own)) throw new DefinitionError(`definition ${index}: traits must be a mapping`);
    for (const [name, tcfg] of Object.entries(own as Record<string, unknown>)) {
      traits.set(name, new TraitDefinition(name, tcfg));
    }
    this.traits = [...traits.values()];
  }

  matches(eventType: string): boolean {
    return this.included.some((r) => r.test(eventType)) && !this.excluded.some((r) => r.test(eventType));
  }

  toEvent(body: NotificationBody, raw: Record<string, unknown>): Event {
    const generated = canonicalTimestamp(body.metadata.timestamp);
    if (!generated) throw new ConversionError(`unparsable timestamp ${body.metadata.timestamp}`);
    const traits: Trait[] = [];
    for (const def of this.traits) {
      const t = def.toTrait(body);
      if (t) traits.push(t);
    }
    return { message_id: body.metadata.message_id, event_type: body.event_type, generated, traits, raw };
  }
}

export interface ConverterOptions {
  /** Ceilometer `[event] drop_unmatched_notifications` (default false: unmatched types get the default traits). */
  dropUnmatched?: boolean;
  /** Priorities (any case) whose whole notification is kept as `raw`: Ceilometer `[event] store_raw`. */
  storeRaw?: readonly string[];
}

/**
 * PyYAML's booleans (yes/no, true/false, on/off in three casings). The `yaml` package's YAML 1.1 schema also reads
 * `y`/`n` as booleans, which would turn a trait named `n` into `false`.
 */
const PYYAML_BOOL = {
  tag: 'tag:yaml.org,2002:bool',
  default: true,
  identify: (v: unknown) => typeof v === 'boolean',
  test: /^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/,
  resolve: (text: string) => /^(?:yes|true|on)$/i.test(text),
};

/** Turns notifications into events with a definitions file. */
export class EventConverter {
  /** Evaluated from the end: the last definition in the file that matches wins. */
  private readonly definitions: EventDefinition[];
  private readonly storeRaw: Set<string>;

  constructor(definitions: unknown, opts: ConverterOptions = {}) {
    if (definitions === null || definitions === undefined) definitions = [];
    if (!Array.isArray(definitions)) throw new DefinitionError('the definitions file must hold a list of definitions');
    const defs = definitions.map((d, i) => new EventDefinition(d, i));
    if (!opts.dropUnmatched && !defs.some((d) => d.isCatchAll)) {
      defs.unshift(new EventDefinition({ event_type: '*', traits: {} }, -1));
    }
    this.definitions = defs.reverse();
    this.storeRaw = new Set((opts.storeRaw ?? []).map((p) => p.toLowerCase()));
  }

  /**
   * Parses a definitions file (YAML 1.1 as PyYAML reads it: anchors, `<<` merge keys, duplicate keys last-wins).
   * @throws DefinitionError naming the definition or the YAML problem.
   */
  static fromYaml(text: string, opts: ConverterOptions = {}): EventConverter {
    let doc: unknown;
    try {
      doc = parseYaml(text, {
        version: '1.1',
        merge: true,
        uniqueKeys: false,
        maxAliasCount: 10_000,
        customTags: (tags) => [PYYAML_BOOL, ...(tags as { tag?: string }[]).filter((t) => t.tag !== PYYAML_BOOL.tag)] as typeof tags,
      });
    } catch (err) {
      throw new DefinitionError(`event definitions are not valid YAML: ${(err as Error).message}`);
    }
    return new EventConverter(doc, opts);
  }

  /**
   * The event for a notification, or null when no definition matches and unmatched notifications are dropped.
   * @throws ConversionError when a trait value or the timestamp cannot be converted.
   */
  toEvent(body: NotificationBody): Event | null {
    const def = this.definitions.find((d) => d.matches(body.event_type));
    if (!def) return null;
    const raw = this.storeRaw.has(body.priority.toLowerCase()) ? body : {};
    return def.toEvent(body, raw);
  }
}
