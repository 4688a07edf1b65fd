/**
 * `/openapi.json` and `/docs` through the gateway, without a token: the document is valid OpenAPI 3.1, lists exactly
 * the routes the routers serve, is derived from the zod schemas, and agrees with what the services answer.
 */
import { randomBytes } from 'node:crypto';
import { compileErrors, validate } from '@readme/openapi-parser';
import * as domainQuota from '@stratum/domain-quota';
import * as eventQuery from '@stratum/event-query';
import * as lbaasQuota from '@stratum/lbaas-quota';
import { startTestStack, type TestStack } from '@stratum/testing';
import type { Express, Router } from 'express';
import request from 'supertest';
import { resolve } from '../src/routes';

/** The parts of the document these tests read. */
interface Operation {
  operationId: string;
  tags: string[];
  security?: Record<string, string[]>[];
  servers?: { url: string }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
}
interface Schema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  minimum?: number;
  maximum?: number;
}
interface Doc {
  openapi: string;
  servers: { url: string }[];
  security: Record<string, string[]>[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; securitySchemes: Record<string, Record<string, string>> };
  tags: { name: string }[];
}

/** A layer of an express router stack as these tests read it: a route, or a router mounted at `rawPath`. */
type Layer = Router['stack'][number] & { rawPath?: string | string[] };
const isRouter = (handle: unknown): handle is { stack: Layer[] } =>
  typeof handle === 'function' && 'stack' in handle && Array.isArray(handle.stack);

/**
 * Every method and path an express app's routers serve (`get /v2/events/{message_id}`), found by walking its router
 * stack: routes, and routers mounted under a path. `all` handlers (405 for the other methods) are not operations.
 */
/**
 * A route with its path parameters unnamed: they are compared by position, as a router names them as the code does
 * (`:messageId`) and the document as the API does (`{message_id}`).
 */
const shape = (key: string) => key.replace(/\{[^}]+\}/g, '{}');

function routesOf(app: Express): string[] {
  const walk = (stack: Layer[], prefix: string): string[] =>
    stack.flatMap((layer) => {
      if (layer.route) {
        const methods = new Set(layer.route.stack.map((l) => l.method).filter((m) => m !== undefined && m !== '_all'));
        // A route may be declared for several paths at once (express keeps the array).
        const paths: string[] = [layer.route.path].flat().map((p) => `${prefix}${p}`.replace(/(.)\/$/, '$1'));
        return paths.flatMap((path) => [...methods].map((m) => `${m} ${path.replace(/:(\w+)/g, '{$1}')}`));
      }
      const handle = layer.handle;
      if (!isRouter(handle)) return [];
      const mounts = [layer.rawPath ?? '/'].flat().map((m) => (m === '/' ? '' : m));
      return mounts.flatMap((m) => walk(handle.stack, `${prefix}${m}`));
    });
  return walk(app.router.stack, '');
}

const PUBLIC_ROUTES = [
  'get /',
  'get /healthcheck',
  'get /ready',
  ...['/event', '/load-balancer', '/domain-quota'].flatMap((p) => [`get ${p}`, `get ${p}/healthcheck`]),
  'get /openapi.json',
  'get /docs',
  'get /console/auth',
  'post /console/auth/tokens',
];
/** The gateway's own routes that need a token (the console's own identity). */
const GATEWAY_TOKEN_ROUTES = ['get /console/auth/tokens'];
const IDENTITY_ROUTES = ['/projects', '/domains', '/users', '/groups', '/roles'].flatMap((c) => [`get ${c}`, `get ${c}/{id}`]);

const operations = (doc: Doc) =>
  Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ key: `${method} ${path}`, method, path, op })),
  );

const deref = (doc: Doc, s: Schema): Schema => (s.$ref ? (doc.components.schemas[s.$ref.split('/').pop() as string] as Schema) : s);

describe('gateway: /openapi.json and /docs', () => {
  let stack: TestStack;
  let doc: Doc;
  /** Every route the three services' routers serve that the gateway proxies (their paths are the groups' paths). */
  let serviceRoutes: string[];
  beforeAll(async () => {
    stack = await startTestStack();
    const res = await request(stack.gateway).get('/openapi.json');
    doc = res.body as Doc;
    // The services' apps as the stack runs them (load balancer quotas on the stack's database, with its own deps).
    const lbaasDeps = await lbaasQuota.createDeps(
      lbaasQuota.loadConfig({
        MONGODB_URI: process.env.STRATUM_TEST_MONGODB_URI,
        MONGODB_DATABASE: stack.db.databaseName,
        STRATUM_IDENTITY_SECRET: stack.gatewayDeps.config.STRATUM_IDENTITY_SECRET,
        LOG_LEVEL: 'silent',
      }),
    );
    const apps = [eventQuery.buildApp(stack.eventDeps), lbaasQuota.buildApp(lbaasDeps), domainQuota.buildApp(stack.domainDeps)];
    const served = apps.map(routesOf);
    await lbaasDeps.close();
    // What a service serves outside its group's paths is its own health and readiness, which the gateway does not
    // proxy at these paths: a route outside the contract's paths would show here.
    for (const routes of served) {
      expect(routes.filter((r) => resolve(r.split(' ')[1] as string).kind !== 'proxy').sort()).toEqual(['get /healthcheck', 'get /ready']);
    }
    serviceRoutes = served.flat().filter((r) => resolve(r.split(' ')[1] as string).kind === 'proxy');
  });
  afterAll(() => stack.close());

  it('serves an OpenAPI 3.1 document without a token, valid against the 3.1 schema', async () => {
    const res = await request(stack.gateway).get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/' })]);
    // @readme/openapi-parser: the official 3.1 schema plus duplicate parameters and operationIds, component names.
    const result = await validate(structuredClone(res.body));
    expect(result.valid ? '' : compileErrors(result)).toBe('');
    expect(result.specification).toBe('OpenAPI');
    expect(result.warnings).toEqual([]);
    // Built once: a second request answers the same bytes.
    expect((await request(stack.gateway).get('/openapi.json')).text).toBe(res.text);
  });

  it('describes exactly the routes the gateway and the services serve', () => {
    const documented = operations(doc).map((o) => o.key);
    // Every route of every service router is documented (and the walk found them: Panko's, Octavia's and Keystone's).
    expect(serviceRoutes.filter((r) => !documented.map(shape).includes(shape(r)))).toEqual([]);
    expect(serviceRoutes.map(shape)).toEqual(
      expect.arrayContaining(['get /v2/events/{}', 'put /v2/quotas/{}', 'patch /v3/domain_quotas/{}', 'post /v2/ingest/events']),
    );
    // And nothing else is: the document is the services' routes and the gateway's own.
    expect(documented.map(shape).sort()).toEqual(
      [...serviceRoutes, ...PUBLIC_ROUTES, ...GATEWAY_TOKEN_ROUTES, ...IDENTITY_ROUTES].map(shape).sort(),
    );
    expect(new Set(operations(doc).map((o) => o.op.operationId)).size).toBe(documented.length);
  });

  it('requires X-Auth-Token everywhere except the public routes', () => {
    expect(doc.components.securitySchemes.keystoneToken).toEqual(
      expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-Auth-Token' }),
    );
    expect(doc.security).toEqual([{ keystoneToken: [] }]);
    for (const { key, op } of operations(doc)) {
      if (PUBLIC_ROUTES.includes(key)) {
        expect([key, op.security]).toEqual([key, []]);
      } else {
        expect([key, op.security === undefined || op.security.some((s) => 'keystoneToken' in s)]).toEqual([key, true]);
        expect([key, deref(doc, op.responses['401']?.content?.['application/json']?.schema ?? {})]).toEqual([
          key,
          doc.components.schemas.KeystoneError,
        ]);
      }
    }
    expect(doc.paths['/v2/ingest/events']?.post?.security).toEqual([{ keystoneToken: [] }, { ceilometerBasic: [] }]);
  });

  it('tags every operation with its group and lists each group prefix as a second server', () => {
    const tagNames = doc.tags.map((t) => t.name);
    for (const { key, path, op } of operations(doc)) {
      expect([key, op.tags.length, tagNames.includes(op.tags[0] as string)]).toEqual([key, 1, true]);
      if (!serviceRoutes.map(shape).includes(shape(key))) continue;
      const prefix = path.startsWith('/v3/') ? '/domain-quota' : /quotas/.test(path) ? '/load-balancer' : '/event';
      expect([key, op.servers?.map((s) => s.url)]).toEqual([key, ['/', prefix]]);
    }
    expect(doc.paths['/v2/events']?.get?.tags).toEqual(['Events']);
    expect(doc.paths['/v2/lbaas/quotas']?.get?.tags).toEqual(['Load balancer quota aliases']);
    expect(doc.paths['/v3/domain_usage']?.get?.tags).toEqual(['Department quotas']);
  });

  it('derives the load balancer quota PUT body from the zod schema: seven limits from -1, both spellings, nothing else', () => {
    const op = doc.paths['/v2.0/lbaas/quotas/{project_id}']?.put as Operation;
    const body = deref(doc, op.requestBody?.content['application/json']?.schema as Schema);
    expect(body.required).toEqual(['quota']);
    expect(body.additionalProperties).toBe(false);
    const quota = body.properties?.quota as Schema;
    expect(quota.additionalProperties).toBe(false);
    for (const key of [
      'load_balancer',
      'listener',
      'member',
      'pool',
      'health_monitor',
      'l7policy',
      'l7rule',
      'loadbalancer',
      'healthmonitor',
    ]) {
      expect([key, quota.properties?.[key]]).toEqual([
        key,
        expect.objectContaining({ type: ['integer', 'null'], minimum: -1, maximum: 2_000_000_000 }),
      ]);
    }
    expect(Object.keys(quota.properties ?? {})).toHaveLength(9);
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['202', '400', '401', '403', '415']));
  });

  it('the documented bounds are the ones the service enforces', async () => {
    const project = randomBytes(16).toString('hex');
    const put = (value: number) =>
      request(stack.gateway)
        .put(`/v2.0/lbaas/quotas/${project}`)
        .set('X-Auth-Token', stack.personas.admin.token)
        .send({ quota: { pool: value } });
    expect((await put(-2)).status).toBe(400);
    expect((await put(2_000_000_001)).status).toBe(400);
    const ok = await put(-1);
    expect(ok.status).toBe(202);
    // The response matches the documented LbaasQuota: the seven keys, integers.
    const quota = doc.components.schemas.LbaasQuota as Schema;
    expect(Object.keys(ok.body.quota).sort()).toEqual(Object.keys(quota.properties ?? {}).sort());
  });

  it('gives each group its error shape', () => {
    const schemaOf = (path: string, method: string, status: string) =>
      doc.paths[path]?.[method]?.responses[status]?.content?.['application/json']?.schema?.$ref;
    expect(schemaOf('/v2/events/{message_id}', 'get', '404')).toBe('#/components/schemas/PankoError');
    expect(schemaOf('/v2.0/lbaas/quotas/{project_id}', 'delete', '404')).toBe('#/components/schemas/OctaviaError');
    expect(schemaOf('/v3/domain_quotas/{domain_id}', 'get', '404')).toBe('#/components/schemas/KeystoneError');
    const s = doc.components.schemas;
    expect(s.PankoError?.properties?.error_message?.required?.sort()).toEqual(['debuginfo', 'faultcode', 'faultstring']);
    expect(s.OctaviaError?.required?.sort()).toEqual(['debuginfo', 'faultcode', 'faultstring']);
    expect(s.KeystoneError?.properties?.error?.required?.sort()).toEqual(['code', 'message', 'title']);
  });

  it('every documented operation is served, at the root and under its group prefix, with a documented status', async () => {
    const id = () => randomBytes(16).toString('hex');
    const admin = stack.personas.admin.token;
    const mismatches: string[] = [];
    const seen = new Set<number>();
    for (const { key, method, path, op } of operations(doc)) {
      const concrete = path.replace(/\{[^}]+\}/g, () => id());
      const prefixes = (op.servers ?? [{ url: '/' }]).map((s) => s.url.replace(/\/$/, ''));
      for (const prefix of prefixes) {
        const req = request(stack.gateway)[method as 'get'](`${prefix}${concrete}`);
        if (op.security === undefined || op.security.length > 0) req.set('X-Auth-Token', admin);
        const res = await req;
        // A valid admin token and healthy upstreams: neither the gateway's 401/429 nor an upstream failure may explain it.
        const documented = Object.keys(op.responses).filter((s) => /^\d+$/.test(s) && !['401', '429'].includes(s));
        seen.add(res.status);
        if (!documented.includes(String(res.status))) {
          mismatches.push(`${key} at ${prefix || '/'}: ${res.status} not in ${documented.join(',')}`);
        }
      }
    }
    expect(mismatches).toEqual([]);
    // The sweep reached real handlers: successes, validation refusals, policy refusals and unknown resources.
    expect([200, 400, 403, 404].filter((s) => seen.has(s))).toEqual([200, 400, 403, 404]);
  });

  it('serves the reference page and its assets from the gateway (no CDN)', async () => {
    const page = await request(stack.gateway).get('/docs');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).not.toMatch(/https?:\/\//);
    const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string);
    expect(assets).toEqual(expect.arrayContaining(['/docs/swagger-ui.css', '/docs/swagger-ui-bundle.js', '/docs/init.js']));
    for (const asset of assets) {
      const res = await request(stack.gateway).get(asset);
      expect([asset, res.status]).toEqual([asset, 200]);
    }
    const css = await request(stack.gateway).get('/docs/swagger-ui.css');
    expect(css.headers['content-type']).toMatch(/^text\/css/);
    const bundle = await request(stack.gateway).get('/docs/swagger-ui-bundle.js');
    expect(bundle.headers['content-type']).toMatch(/javascript/);
    expect(bundle.text).toContain('SwaggerUIBundle');
    const init = await request(stack.gateway).get('/docs/init.js');
    expect(init.text).toContain('SwaggerUIBundle(');
    expect(init.text).toContain('"/openapi.json"');
    expect(init.text).toContain('validatorUrl: null');
  });
});
