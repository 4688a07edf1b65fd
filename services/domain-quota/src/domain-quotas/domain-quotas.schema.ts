/**
 * `PATCH /v3/domain_quotas/{domain_id}` body validation (reference/domain-quota.md §6.4 steps 3-6). Every problem is
 * collected and reported at once with `details` entries. The body depends on the region's catalogue, so it is checked
 * by hand; `quotaPatchBody` states its shape for `/openapi.json`.
 */
import { AppError } from '@stratum/http-kit';
import {
  canonicalItemName,
  FIXED_ITEMS,
  type ItemSpec,
  MAX_ITEM_VALUE,
  SECURE_CONTAINER_PRODUCT,
  toMilli,
  VOLUME_TYPE_ITEMS,
} from '@stratum/quota-items';
import { z } from 'zod';

/** The department quotas' path root: `/v3/domain_quotas/{domain_id}` and below. */
export const DOMAIN_QUOTAS_ROOT = '/v3/domain_quotas';
/** The cloud platform's quotas and usage (C3). */
export const DOMAIN_USAGE_ROOT = '/v3/domain_usage';

/** A quota value on the wire (toMilli's rules): -1 unlimited, else 0 to MAX_ITEM_VALUE. */
export const QuotaItemValue = z
  .union([z.literal(-1), z.number().min(0).max(MAX_ITEM_VALUE)])
  .describe('-1 unlimited, else 0 to 2147483647; counts are integers, ram, storage, cpu and memory allow three decimals');

/**
 * `{"<wrapper>": {"region": R, "<item>": value, …}}` as parsePatch reads it. Items: instances, cores, ram,
 * volumes_<type>, gigabytes_<type>, snapshots_<type>, backup_gigabytes, backups, network(s), subnet(s), floatingip,
 * router, security_group, security_group_rule(s), port, loadbalancer, and the secure container items where installed.
 */
export function quotaPatchBody<W extends string>(wrapper: W) {
  const inner = z.object({ region: z.string().min(1).describe('a region of the registry') }).catchall(QuotaItemValue);
  return z.strictObject({ [wrapper]: inner } as Record<W, typeof inner>);
}

const TRUE_STRINGS = ['1', 't', 'true', 'on', 'y', 'yes'];
const FALSE_STRINGS = ['0', 'f', 'false', 'off', 'n', 'no'];

/**
 * `?dry_run=`: run every check and write nothing. The strings oslo.utils' bool_from_string reads (any case); any
 * other value is refused, so a typo never turns a dry run into a write.
 */
export const DryRunQuery = z.object({
  dry_run: z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.enum([...TRUE_STRINGS, ...FALSE_STRINGS] as [string, ...string[]]))
    .transform((v) => TRUE_STRINGS.includes(v))
    .optional(),
});

/** Query string of a department's audit log. */
export const AuditQuery = z.object({
  limit: z.int().min(1).max(1000).optional().describe('entries per page, default 100'),
  marker: z.string().optional().describe('_id of the last entry of the previous page'),
});

/** One machine-readable problem (§6.7). */
export interface QuotaErrorDetail {
  region: string;
  item?: string;
  requested?: number | unknown;
  current?: number;
  min?: number;
  max?: number;
  reason: string;
  /** For `unlimited_children` on the cloud: the departments whose quota is -1. */
  departments?: string[];
}

export interface PatchRequest {
  region: string;
  /** canonical item name → new value in milli-units (or UNLIMITED). */
  items: Map<string, number>;
}

function why(item: string, regionItems: Map<string, ItemSpec>, products: readonly string[]): string {
  if (Object.hasOwn(FIXED_ITEMS, item) && FIXED_ITEMS[item]?.area === 'secure_container' && !products.includes(SECURE_CONTAINER_PRODUCT))
    return 'item_unavailable';
  if (Object.keys(VOLUME_TYPE_ITEMS).some((p) => item.startsWith(p)) && !regionItems.has(item)) return 'unknown_volume_type';
  return 'unknown_item';
}

/**
 * Validates the body against the region catalogue.
 * @param catalog region → (item → spec) for every known region; `products` per region.
 * @throws AppError 400 (Keystone envelope, all problems in `details`).
 */
export function parsePatch(
  body: unknown,
  catalog: Map<string, { items: Map<string, ItemSpec>; products: readonly string[] }>,
  wrapper: 'domain' | 'project' = 'domain',
): PatchRequest {
  const shape = (message: string) => new AppError(400, `Invalid input: ${message}`);
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw shape(`the body must be {"${wrapper}": {...}}`);
  const keys = Object.keys(body);
  if (keys.length !== 1 || keys[0] !== wrapper) throw shape(`the body must have exactly one member, "${wrapper}"`);
  const domain = (body as Record<string, unknown>)[wrapper];
  if (domain === null || typeof domain !== 'object' || Array.isArray(domain)) throw shape(`"${wrapper}" must be an object`);
  const { region, ...rest } = domain as Record<string, unknown>;
  if (typeof region !== 'string' || region === '') throw shape(`"${wrapper}.region" is required and must be a string`);
  const regionCat = catalog.get(region);
  if (!regionCat) {
    throw new AppError(400, `Region '${region}' does not exist`, [{ region, reason: 'unknown_region' } satisfies QuotaErrorDetail]);
  }
  if (Object.keys(rest).length === 0) throw shape('no quota items given');

  const details: QuotaErrorDetail[] = [];
  const items = new Map<string, number>();
  for (const [given, value] of Object.entries(rest)) {
    const item = canonicalItemName(given);
    const spec = regionCat.items.get(item);
    if (!spec) {
      details.push({ region, item: given, reason: why(item, regionCat.items, regionCat.products) });
      continue;
    }
    if (items.has(item)) {
      details.push({ region, item: given, reason: 'duplicate_item' });
      continue;
    }
    const m = toMilli(value, spec);
    if (!m.ok) {
      details.push({ region, item: given, requested: value, reason: m.reason });
      continue;
    }
    items.set(item, m.milli);
  }
  if (details.length > 0) {
    const names = details.map((d) => d.item).join(', ');
    throw new AppError(400, `Invalid input: quota item(s) not acceptable in region ${region}: ${names}`, details);
  }
  return { region, items };
}
