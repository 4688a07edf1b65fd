/**
 * A small JSON Schema check (the subset the gateway's OpenAPI document uses: types, enum, anyOf/oneOf, ranges,
 * lengths, patterns, properties, required, additionalProperties, items, prefixItems), to tell whether a generated
 * body is one the document says is invalid. Number literals the generator writes verbatim (`1e400`) are read as
 * JSON.parse would.
 */
import type { Schema } from './operations';

const RAW_PREFIX = '\u0001RAW:';

/** The value JSON.parse gives for a verbatim placeholder, else the value itself. */
function parsedOf(v: unknown): unknown {
  return typeof v === 'string' && v.startsWith(RAW_PREFIX) ? JSON.parse(v.slice(RAW_PREFIX.length, -1)) : v;
}

function typeOk(t: string, v: unknown): boolean {
  switch (t) {
    case 'null':
      return v === null;
    case 'boolean':
      return typeof v === 'boolean';
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'string':
      return typeof v === 'string';
    case 'array':
      return Array.isArray(v);
    case 'object':
      return v !== null && typeof v === 'object' && !Array.isArray(v);
    default:
      return true;
  }
}

/** True when `value` satisfies `schema` (references resolved through `resolve`). */
export function accepts(schema: Schema, value: unknown, resolve: (s: Schema) => Schema): boolean {
  const s = resolve(schema);
  const v = parsedOf(value);
  const alts = s.anyOf ?? s.oneOf;
  if (alts) return alts.some((a) => accepts(a, v, resolve));
  if (s.enum) return s.enum.some((e) => e === v);
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  if (types.length > 0 && !types.some((t) => typeOk(t, v))) return false;
  if (typeof v === 'number') {
    if (s.minimum !== undefined && v < s.minimum) return false;
    if (s.maximum !== undefined && v > s.maximum) return false;
    if (s.exclusiveMinimum !== undefined && v <= s.exclusiveMinimum) return false;
  }
  if (typeof v === 'string') {
    const n = [...v].length;
    if (s.minLength !== undefined && n < s.minLength) return false;
    if (s.maxLength !== undefined && n > s.maxLength) return false;
    if (s.pattern) {
      try {
        if (!new RegExp(s.pattern, 'u').test(v)) return false;
      } catch {
        // a pattern JavaScript cannot read: not judged
      }
    }
  }
  if (Array.isArray(v)) {
    if (s.prefixItems) return s.prefixItems.every((p, i) => i >= v.length || accepts(p, v[i], resolve));
    if (s.items) return v.every((x) => accepts(s.items as Schema, x, resolve));
  }
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    const props = s.properties ?? {};
    for (const r of s.required ?? []) if (!Object.hasOwn(o, r)) return false;
    for (const [k, x] of Object.entries(o)) {
      if (Object.hasOwn(props, k)) {
        if (!accepts(props[k] as Schema, x, resolve)) return false;
      } else if (s.additionalProperties === false) {
        return false;
      } else if (typeof s.additionalProperties === 'object' && !accepts(s.additionalProperties, x, resolve)) {
        return false;
      }
    }
  }
  return true;
}
