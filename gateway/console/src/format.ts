/**
 * Numbers for people: units from the department quota item catalogue (@stratum/quota-items), -1 as "unlimited".
 */
import { FIXED_ITEMS, type ItemSpec, VOLUME_TYPE_ITEMS } from '@stratum/quota-items';

/** The wire value meaning unlimited. */
export const UNLIMITED = -1;

/** The catalogue entry of an item (fixed, or per volume type by prefix); undefined for an item it does not know. */
export function itemSpec(item: string): ItemSpec | undefined {
  if (Object.hasOwn(FIXED_ITEMS, item)) return FIXED_ITEMS[item];
  for (const [prefix, spec] of Object.entries(VOLUME_TYPE_ITEMS)) if (item.startsWith(prefix)) return spec;
  return undefined;
}

/** The unit shown after an item's numbers: 'GiB', 'MiB', 'cores', or '' for counts (cores of Nova are counted as 'cores'). */
export function unitOf(item: string): string {
  if (item === 'cores') return 'cores';
  const unit = itemSpec(item)?.unit;
  return unit === undefined || unit === 'count' ? '' : unit;
}

const fmt = new Intl.NumberFormat('en-US', { maximumFractionDigits: 3 });

/** A number with thousands separators and up to three decimals; -1 as "unlimited"; undefined as "–". */
export function formatNumber(value: number | undefined): string {
  if (value === undefined || Number.isNaN(value)) return '–';
  if (value === UNLIMITED) return 'unlimited';
  return fmt.format(value);
}

/** A number with its item's unit ("1,024 GiB", "12 cores", "unlimited"). */
export function formatValue(item: string, value: number | undefined): string {
  const text = formatNumber(value);
  const unit = unitOf(item);
  return unit === '' || value === undefined || value === UNLIMITED ? text : `${text} ${unit}`;
}

/** `a - b` exact to three decimals (the quota items' scale), so 0.3 - 0.1 is 0.2; unlimited stays unlimited. */
export function subtract(a: number, b: number): number {
  if (a === UNLIMITED) return UNLIMITED;
  return Math.round(a * 1000 - b * 1000) / 1000;
}

/** Free ÷ quota in [0, 1] for sorting by headroom; unlimited is 1 (all headroom), a zero quota 0. */
export function headroom(quota: number, allocated: number): number {
  if (quota === UNLIMITED) return 1;
  if (quota <= 0) return 0;
  return Math.max(0, Math.min(1, (quota - allocated) / quota));
}

/** A timestamp in the browser's locale, with the ISO text kept for a title. */
export function formatTime(iso: string | undefined): string {
  if (!iso) return '–';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}
