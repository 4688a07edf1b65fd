/**
 * The operations of the gateway's OpenAPI 3.1 document (`GET /openapi.json`) as the fuzzer uses them: method, path
 * template, parameters and body schema (references resolved), and the API group whose error shape a 4xx must have.
 */

/** A JSON Schema node of the document (the subset zod-to-openapi emits). */
export interface Schema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  prefixItems?: Schema[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  description?: string;
}

/**
 * Whose error shape a 4xx must have: Panko's for events, Octavia's for load balancer quotas, Keystone's for
 * department quotas and for the gateway's own answers (its 401, identity look-ups, unknown paths).
 */
export type Shape = 'panko' | 'octavia' | 'keystone';
export type Group = 'event' | 'lbaas' | 'domain' | 'gateway';

export const SHAPE_OF: Record<Group, Shape> = { event: 'panko', lbaas: 'octavia', domain: 'keystone', gateway: 'keystone' };

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: Schema;
}

export interface Operation {
  /** `METHOD /path/{template}`, as the tally names it. */
  key: string;
  method: string;
  path: string;
  group: Group;
  /** Group prefixes the path is also served under (`/event`, …); '' is the root. */
  prefixes: string[];
  params: Parameter[];
  /** The JSON request body's schema, references resolved lazily through `resolve`. */
  body?: Schema;
  bodyRequired: boolean;
  /** True when the operation needs no token (versions, health checks, documentation). */
  public: boolean;
}

interface OpenApiDoc {
  paths: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, Schema> };
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** A group prefix (`/event`, `/load-balancer`, `/domain-quota`) → its group, read from the operations' servers. */
export interface GroupMap {
  prefixes: Record<string, Exclude<Group, 'gateway'>>;
  /** Each group's service paths (the static part of its templates, e.g. `/v2/events`). */
  roots: [string, Exclude<Group, 'gateway'>][];
}

function groupOfTag(tag: string, prefix: string): Exclude<Group, 'gateway'> {
  const t = `${tag} ${prefix}`.toLowerCase();
  if (t.includes('event')) return 'event';
  if (t.includes('load') || t.includes('lbaas')) return 'lbaas';
  return 'domain';
}

/**
 * Reads the document's operations. A service operation lists two servers, the root and its group's prefix; the
 * group follows from that prefix (its tag names the service). Gateway operations list none or all prefixes.
 */
export function operationsOf(doc: unknown): { operations: Operation[]; groups: GroupMap; resolve: (s: Schema) => Schema } {
  const d = doc as OpenApiDoc;
  const schemas = d.components?.schemas ?? {};
  const resolve = (s: Schema): Schema => {
    let cur = s;
    for (let i = 0; i < 20 && cur.$ref; i++) cur = schemas[cur.$ref.replace('#/components/schemas/', '')] ?? {};
    return cur;
  };
  const operations: Operation[] = [];
  const groups: GroupMap = { prefixes: {}, roots: [] };
  for (const [path, item] of Object.entries(d.paths)) {
    for (const method of METHODS) {
      const op = item[method] as
        | {
            parameters?: Parameter[];
            requestBody?: { required?: boolean; content?: Record<string, { schema: Schema }> };
            servers?: { url: string }[];
            security?: unknown[];
            tags?: string[];
          }
        | undefined;
      if (!op) continue;
      const servers = (op.servers ?? []).map((s) => s.url).filter((u) => u !== '/');
      let group: Group = 'gateway';
      if (servers.length === 1) {
        const prefix = servers[0] as string;
        const g = groupOfTag(op.tags?.[0] ?? '', prefix);
        groups.prefixes[prefix] = g;
        group = g;
        const root = path.split('/{')[0] as string;
        if (!groups.roots.some(([r]) => r === root)) groups.roots.push([root, g]);
      }
      const body = op.requestBody?.content?.['application/json']?.schema;
      operations.push({
        key: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        group,
        prefixes: ['', ...servers],
        params: (op.parameters ?? []).map((p) => ({ ...p, schema: resolve(p.schema ?? {}) })),
        ...(body ? { body } : {}),
        // OpenAPI: a request body is optional unless `required: true`.
        bodyRequired: op.requestBody?.required === true,
        public: Array.isArray(op.security) && op.security.length === 0,
      });
    }
  }
  // Gateway paths under a group prefix (its versions document and health check) answer in that group's shape.
  for (const op of operations) {
    if (op.group !== 'gateway') continue;
    for (const [prefix, g] of Object.entries(groups.prefixes)) {
      if (op.path === prefix || op.path.startsWith(`${prefix}/`)) op.group = g;
    }
  }
  return { operations, groups, resolve };
}

const startsWithSegment = (path: string, root: string) => path === root || path.startsWith(`${root}/`);

/**
 * The group whose error shape the gateway must answer a raw request path in: a group's service path (at the root
 * or under its prefix), its prefix itself and `<prefix>/healthcheck`; anything else is the gateway's own (Keystone).
 */
export function expectedGroup(groups: GroupMap, rawPath: string): Group {
  for (const [prefix, g] of Object.entries(groups.prefixes)) {
    if (rawPath === prefix || rawPath === `${prefix}/` || rawPath === `${prefix}/healthcheck`) return g;
    if (startsWithSegment(rawPath, prefix)) {
      const inner = rawPath.slice(prefix.length);
      const hit = groups.roots.find(([root, rg]) => rg === g && startsWithSegment(inner, root));
      if (hit) return g;
    }
  }
  const hit = groups.roots.find(([root]) => startsWithSegment(rawPath, root));
  return hit ? hit[1] : 'gateway';
}
