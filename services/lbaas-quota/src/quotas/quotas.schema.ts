/**
 * Group B request parsing: the PUT body and the list/show query parameters.
 *
 * Stricter than Octavia (reference/lbaas-quota.md §3): integers only, no string/float/bool coercion, and every
 * malformed body is a 400 (Octavia answers 500 to `{}`, `{"quota": 5}`, list/object values).
 */
import { AppError } from '@stratum/http-kit';
import { LBAAS_INPUT_NAMES, LBAAS_RESOURCES, type LbaasLimits, type LbaasResource, MAX_QUOTA, MIN_QUOTA } from '@stratum/quota-items';

const bad = (m: string) => new AppError(400, m);

/**
 * Parses `{"quota": {<resource>: int | null, ...}}`. Both spellings are accepted; when both are sent, the underscore
 * spelling (`load_balancer`, `health_monitor`) wins. Omitted keys are unchanged; null restores the default.
 * @throws AppError 400 with Octavia's messages.
 */
export function parseQuotaPut(body: unknown): Partial<LbaasLimits> {
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw bad('Missing argument: "quotas"');
  }
  const keys = Object.keys(body);
  const unknownTop = keys.filter((k) => k !== 'quota');
  if (unknownTop.length > 0) throw bad(`Unknown attribute for argument quotas: ${unknownTop.join(', ')}`);
  const quota = (body as Record<string, unknown>).quota;
  if (quota === undefined) throw bad('Missing argument: "quota"');
  if (quota === null || typeof quota !== 'object' || Array.isArray(quota)) {
    throw bad(`Invalid input for field/attribute quota. Value: '${JSON.stringify(quota)}'. Value should be an object`);
  }
  const out: Partial<LbaasLimits> = {};
  const fromUnderscore = new Set<LbaasResource>();
  for (const [key, value] of Object.entries(quota as Record<string, unknown>)) {
    const resource = LBAAS_INPUT_NAMES[key];
    if (!resource) throw bad(`Unknown attribute for argument quotas.quota: ${key}`);
    if (value !== null) {
      if (typeof value !== 'number' || !Number.isInteger(value)) {
        throw bad(`Invalid input for field/attribute ${key}. Value: '${JSON.stringify(value)}'. Value should be an integer`);
      }
      if (value < MIN_QUOTA)
        throw bad(`Invalid input for field/attribute ${key}. Value: '${value}'. Value should be greater or equal to ${MIN_QUOTA}`);
      if (value > MAX_QUOTA)
        throw bad(`Invalid input for field/attribute ${key}. Value: '${value}'. Value should be lower or equal to ${MAX_QUOTA}`);
    }
    const isUnderscore = key === resource;
    if (fromUnderscore.has(resource) && !isUnderscore) continue;
    if (isUnderscore) fromUnderscore.add(resource);
    out[resource] = value as number | null;
  }
  return out;
}

/** Attribute names a list item may be narrowed to with `fields`. */
export const LIST_ATTRIBUTES = new Set<string>([
  'project_id',
  'tenant_id',
  ...Object.keys(LBAAS_INPUT_NAMES),
  ...LBAAS_RESOURCES.map((r) => `in_use_${r}`),
]);

/** Attribute names a single quota may be narrowed to with `fields`. */
export const SINGLE_ATTRIBUTES = new Set<string>(LBAAS_RESOURCES);

function list(v: unknown): string[] {
  if (v === undefined) return [];
  return (Array.isArray(v) ? v : [v])
    .flatMap((x) => String(x).split(','))
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * Parses the repeatable `fields` parameter (also comma-separated).
 * @returns undefined when absent (all attributes).
 * @throws AppError 400 naming an unknown attribute.
 */
export function parseFields(raw: unknown, allowed: Set<string>): string[] | undefined {
  const fields = list(raw);
  if (fields.length === 0) return undefined;
  const unknown = fields.filter((f) => !allowed.has(f));
  if (unknown.length > 0) throw bad(`Unknown field(s) requested: ${unknown.join(', ')}`);
  return fields;
}

/** Parsed list parameters. */
export interface ListQuery {
  fields?: string[];
  projectId?: string;
  limit?: number;
  marker?: string;
}

const LIST_PARAMS = new Set(['fields', 'project_id', 'limit', 'marker']);

/** @throws AppError 400 for unknown or invalid parameters. */
export function parseListQuery(query: Record<string, unknown>): ListQuery {
  for (const key of Object.keys(query)) {
    if (!LIST_PARAMS.has(key)) throw bad('One or more arguments are either duplicate or invalid');
  }
  const out: ListQuery = { fields: parseFields(query.fields, LIST_ATTRIBUTES) };
  const one = (k: string): string | undefined => {
    const v = query[k];
    if (v === undefined) return undefined;
    if (Array.isArray(v)) throw bad('One or more arguments are either duplicate or invalid');
    return String(v);
  };
  out.projectId = one('project_id');
  out.marker = one('marker');
  const limit = one('limit');
  if (limit !== undefined) {
    if (!/^\d+$/.test(limit) || Number(limit) < 1) throw bad(`Supplied pagination limit '${limit}' is not valid.`);
    out.limit = Number(limit);
  }
  return out;
}

/** Only `fields` is accepted on show. */
export function parseShowQuery(query: Record<string, unknown>): string[] | undefined {
  for (const key of Object.keys(query)) if (key !== 'fields') throw bad(`Unknown argument: "${key}"`);
  return parseFields(query.fields, SINGLE_ATTRIBUTES);
}
