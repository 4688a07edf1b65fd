/**
 * Department (domain) quota items, per the item table of docs/api/domain-quota.md and docs/upstream/domain-quota.md §6.3.
 *
 * Values are exact decimals with a per-item scale (allowed fractional digits). They are carried as integer
 * thousandths ("milli-units") so sums are exact: 0.1 + 0.2 is 100 + 200 = 300. `-1` (unlimited) is carried as the
 * sentinel `UNLIMITED`, never scaled.
 */

/** Product areas of the item table (docs/api/domain-quota.md, "Quota items"). */
export type ProductArea = 'compute' | 'storage' | 'network' | 'secure_container';

export interface ItemSpec {
  area: ProductArea;
  /** Allowed fractional digits (0 = counts). */
  scale: 0 | 3;
  unit: 'count' | 'MiB' | 'GiB' | 'cores';
}

/** Fixed items (everything except the per-volume-type storage items). Output spelling = the samples' (singular). */
export const FIXED_ITEMS: Readonly<Record<string, ItemSpec>> = {
  instances: { area: 'compute', scale: 0, unit: 'count' },
  cores: { area: 'compute', scale: 0, unit: 'count' },
  ram: { area: 'compute', scale: 3, unit: 'MiB' },
  backup_gigabytes: { area: 'storage', scale: 3, unit: 'GiB' },
  backups: { area: 'storage', scale: 0, unit: 'count' },
  network: { area: 'network', scale: 0, unit: 'count' },
  subnet: { area: 'network', scale: 0, unit: 'count' },
  floatingip: { area: 'network', scale: 0, unit: 'count' },
  router: { area: 'network', scale: 0, unit: 'count' },
  security_group: { area: 'network', scale: 0, unit: 'count' },
  security_group_rule: { area: 'network', scale: 0, unit: 'count' },
  port: { area: 'network', scale: 0, unit: 'count' },
  loadbalancer: { area: 'network', scale: 0, unit: 'count' },
  cpu: { area: 'secure_container', scale: 3, unit: 'cores' },
  pods: { area: 'secure_container', scale: 0, unit: 'count' },
  memory: { area: 'secure_container', scale: 3, unit: 'MiB' },
  gpu: { area: 'secure_container', scale: 0, unit: 'count' },
  alcub_storage: { area: 'secure_container', scale: 3, unit: 'GiB' },
  general_storage: { area: 'secure_container', scale: 3, unit: 'GiB' },
};

/** Per-volume-type items: `<prefix><volume type name>`, as Cinder's VolumeTypeQuotaEngine builds them. */
export const VOLUME_TYPE_ITEMS: Readonly<Record<string, ItemSpec>> = {
  volumes_: { area: 'storage', scale: 0, unit: 'count' },
  gigabytes_: { area: 'storage', scale: 3, unit: 'GiB' },
  snapshots_: { area: 'storage', scale: 0, unit: 'count' },
};

/**
 * The plural spelling of three items (the original item table's), accepted on input; responses use the singular
 * (docs/api/domain-quota.md, "Quota items").
 */
export const ITEM_ALIASES: Readonly<Record<string, string>> = {
  networks: 'network',
  subnets: 'subnet',
  security_group_rules: 'security_group_rule',
};

/** Product name in the registry that enables the secure container items in a region. */
export const SECURE_CONTAINER_PRODUCT = 'secure_container';

/** Stored value meaning unlimited (-1 on the wire). */
export const UNLIMITED = -1;
/** Milli-units per unit. */
export const SCALE = 1000;
/** Upper bound per item in units: 2^31 - 1, as keystone, Nova and Cinder. */
export const MAX_ITEM_VALUE = 2_147_483_647;

/** What a region offers: its volume types and whether the secure container product is installed. */
export interface RegionCatalog {
  volumeTypes: readonly string[];
  products: readonly string[];
}

/**
 * The items of a region, in display order: compute, storage (per volume type), network, then secure container items
 * when that product is installed there.
 * @returns item name (output spelling) → spec.
 */
export function regionItems(region: RegionCatalog): Map<string, ItemSpec> {
  const out = new Map<string, ItemSpec>();
  const secure = region.products.includes(SECURE_CONTAINER_PRODUCT);
  for (const [name, spec] of Object.entries(FIXED_ITEMS)) {
    if (spec.area === 'storage' && name === 'backup_gigabytes') {
      for (const vt of region.volumeTypes) {
        for (const [prefix, vspec] of Object.entries(VOLUME_TYPE_ITEMS)) out.set(`${prefix}${vt}`, vspec);
      }
    }
    if (spec.area === 'secure_container' && !secure) continue;
    out.set(name, spec);
  }
  return out;
}

/** Canonical (output) spelling of an input item name. Per-type names are resolved by exact match, not by splitting. */
export function canonicalItemName(name: string): string {
  // Own properties only: a client's `constructor` or `__proto__` is an unknown item, not Object.prototype's.
  return Object.hasOwn(ITEM_ALIASES, name) ? (ITEM_ALIASES[name] as string) : name;
}

/**
 * Converts a wire number to milli-units, exactly.
 * @returns the milli-units (or UNLIMITED for -1), or a reason when the value is not acceptable for `spec`.
 */
export function toMilli(
  value: unknown,
  spec: ItemSpec,
): { ok: true; milli: number } | { ok: false; reason: 'not_a_number' | 'out_of_range' | 'too_many_decimals' } {
  if (typeof value !== 'number' || !Number.isFinite(value)) return { ok: false, reason: 'not_a_number' };
  if (value === -1) return { ok: true, milli: UNLIMITED };
  if (value < 0 || value > MAX_ITEM_VALUE) return { ok: false, reason: 'out_of_range' };
  // Decimal digits as JSON wrote them: shortest round-trip representation of the double.
  const text = String(value);
  if (text.includes('e')) return { ok: false, reason: value < 1 ? 'too_many_decimals' : 'out_of_range' };
  const [int, frac = ''] = text.split('.');
  if (frac.length > spec.scale) return { ok: false, reason: 'too_many_decimals' };
  return { ok: true, milli: Number(int) * SCALE + Number(frac.padEnd(3, '0')) };
}

/** Milli-units → wire number (-1 for unlimited). Exact for every value `toMilli` accepts. */
export function fromMilli(milli: number): number {
  if (milli === UNLIMITED) return -1;
  return milli / SCALE;
}
