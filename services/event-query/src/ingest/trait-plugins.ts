/**
 * Ceilometer's trait plugins (`ceilometer/event/trait_plugins.py`, entry points `ceilometer.event.trait_plugin`).
 * A plugin receives every non-null match of the trait's `fields` as `[path, value]` pairs, in order, and returns
 * the trait value, or null for "no trait".
 */
import { canonicalTimestamp } from '@stratum/traits';
import type { Match } from './jsonpath';
import { pySplit } from './jsonpath';
import { pyStr, toNumber } from './python';

export interface TraitPlugin {
  traitValue(matches: Match[]): unknown;
}

/** A definitions file configures a plugin wrongly; Ceilometer raises EventDefinitionException at load. */
export class PluginConfigError extends Error {}

type Params = Record<string, unknown>;

/** `split`: `str(first value).split(separator, max_split)[segment]`, null when the segment is out of range. Deprecated upstream in favour of the JSONPath `split()`. */
class SplitPlugin implements TraitPlugin {
  private readonly separator: string;
  private readonly segment: number;
  private readonly maxSplit: number;
  constructor(p: Params) {
    this.separator = typeof p.separator === 'string' ? p.separator : '.';
    this.segment = Number(p.segment ?? 0);
    this.maxSplit = p.max_split === undefined || p.max_split === null ? -1 : Number(p.max_split);
    if (!Number.isInteger(this.segment) || !Number.isInteger(this.maxSplit)) {
      throw new PluginConfigError('split: segment and max_split must be integers');
    }
  }
  traitValue(matches: Match[]): unknown {
    if (matches.length === 0) return null;
    const parts = pySplit(pyStr(matches[0]?.value), this.separator, this.maxSplit);
    const i = this.segment < 0 ? parts.length + this.segment : this.segment;
    return i >= 0 && i < parts.length ? parts[i] : null;
  }
}

interface Flag {
  path: string;
  bit: number;
  value?: unknown;
}

/** `bitfield`: starts from `initial_bitfield` and sets bit `bit` for each flag whose `path` matched (and equals `value` when given). */
class BitfieldPlugin implements TraitPlugin {
  private readonly initial: number;
  private readonly flags: Flag[];
  constructor(p: Params) {
    this.initial = Number(p.initial_bitfield ?? 0);
    if (!Array.isArray(p.flags)) throw new PluginConfigError('bitfield: flags must be a list');
    this.flags = p.flags.map((f) => {
      const flag = f as Flag;
      if (typeof flag?.path !== 'string' || !Number.isInteger(Number(flag.bit))) {
        throw new PluginConfigError('bitfield: each flag needs a path and a bit');
      }
      return { path: flag.path, bit: Number(flag.bit), ...('value' in flag ? { value: flag.value } : {}) };
    });
  }
  traitValue(matches: Match[]): unknown {
    const byPath = new Map(matches.map((m) => [m.path, m.value]));
    let bits = BigInt(this.initial);
    for (const flag of this.flags) {
      if (!byPath.has(flag.path)) continue;
      if ('value' in flag && !looseEqual(byPath.get(flag.path), flag.value)) continue;
      bits |= 1n << BigInt(flag.bit);
    }
    return bits <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(bits) : bits;
  }
}

/** `timedelta`: exactly two datetime matches → `abs(end - start)` in seconds (a float); anything else → null. */
class TimedeltaPlugin implements TraitPlugin {
  traitValue(matches: Match[]): unknown {
    if (matches.length !== 2) return null;
    const [a, b] = matches.map((m) => (typeof m.value === 'string' ? canonicalTimestamp(m.value) : undefined));
    if (!a || !b) return null;
    return Math.abs(micros(b) - micros(a)) / 1e6;
  }
}

function micros(canonical: string): number {
  return Date.parse(`${canonical.slice(0, 19)}Z`) * 1000 + Number(canonical.slice(20, 26));
}

/** `map`: looks the first value up in `values` (case-insensitively unless `case_sensitive`), else `default`. */
class MapPlugin implements TraitPlugin {
  private readonly values: Map<string, unknown>;
  private readonly fallback: unknown;
  private readonly caseSensitive: boolean;
  constructor(p: Params) {
    if (p.values === null || typeof p.values !== 'object' || Array.isArray(p.values)) {
      throw new PluginConfigError('map: values must be a mapping');
    }
    this.caseSensitive = p.case_sensitive === undefined ? true : Boolean(p.case_sensitive);
    this.fallback = p.default ?? null;
    this.values = new Map(Object.entries(p.values).map(([k, v]) => [this.key(k), v]));
  }
  private key(v: unknown): string {
    const k = pyStr(v);
    return this.caseSensitive ? k : k.toLowerCase();
  }
  traitValue(matches: Match[]): unknown {
    if (matches.length === 0) return null;
    const k = this.key(matches[0]?.value);
    return this.values.has(k) ? this.values.get(k) : this.fallback;
  }
}

function looseEqual(a: unknown, b: unknown): boolean {
  const na = toNumber(a);
  const nb = toNumber(b);
  if (na !== undefined && nb !== undefined) return na === nb;
  return a === b;
}

const PLUGINS: Record<string, (p: Params) => TraitPlugin> = {
  split: (p) => new SplitPlugin(p),
  bitfield: (p) => new BitfieldPlugin(p),
  timedelta: () => new TimedeltaPlugin(),
  map: (p) => new MapPlugin(p),
};

/**
 * Builds a plugin from a definition's `plugin` value: a name, or `{name, parameters}`.
 * @throws PluginConfigError for an unknown name or bad parameters.
 */
export function loadPlugin(cfg: unknown): TraitPlugin {
  const name = typeof cfg === 'string' ? cfg : (cfg as { name?: unknown })?.name;
  const params = typeof cfg === 'object' && cfg !== null ? ((cfg as { parameters?: Params }).parameters ?? {}) : {};
  const make = typeof name === 'string' && Object.hasOwn(PLUGINS, name) ? PLUGINS[name] : undefined;
  if (!make) throw new PluginConfigError(`Plugin specified, but no plugin name supplied or unknown plugin ${String(name)}`);
  return make(params);
}
