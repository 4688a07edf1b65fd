/**
 * The OpenAPI 3.1 document of everything the gateway serves, generated from the services' zod schemas with
 * @asteasolutions/zod-to-openapi.
 *
 * Each service states its routes in its contract (`@stratum/<service>/contract`, routes.ts CONTRACTS: the paths it
 * serves, its group's error shape, its tagged route descriptions), built from the zod schemas its routes validate
 * with. Here they are tagged, given the gateway's parts (the `X-Auth-Token` scheme, its 401 in Keystone's shape,
 * upstream failures in the group's shape, the group prefix as a second server) and joined with the gateway's own
 * public routes (routes.ts, public-routes.ts).
 */
import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { jsonRequestBody, jsonResponse, type OpenApiSection } from '@stratum/openapi';
import { z } from 'zod';
import gatewayPackage from '../../package.json';
import { CONTRACTS, GROUPS, type Group, IDENTITY_LOOKUPS, INGEST_PATH } from '../routes';
import { SIGN_IN_MAX_BODY_BYTES, SIGN_IN_METHODS_PATH, SIGN_IN_PATH } from '../sign-in/sign-in.router';
import { CallerToken, SignInBody, SignInMethods, SignInToken } from '../sign-in/sign-in.schema';
import { domainQuotaVersions, octaviaVersions, pankoVersions } from '../versions';

/** Where the document and the reference page are served (openapi.router.ts). */
export const OPENAPI_PATH = '/openapi.json';
export const DOCS_PATH = '/docs';

const TOKEN = 'keystoneToken';
const BASIC = 'ceilometerBasic';

const VersionLink = z.object({ href: z.string(), rel: z.string(), type: z.string().optional() });
const MediaType = z.object({ base: z.string(), type: z.string() });
const OctaviaVersions = z
  .object({ versions: z.array(z.object({ id: z.string(), status: z.string(), updated: z.string(), links: z.array(VersionLink) })) })
  .meta({ id: 'OctaviaVersions', example: octaviaVersions('http://gateway:8780') });
/** Panko's and the department quota group's versions document (Keystone's shape). */
const ValuesVersions = (id: string, example: unknown) =>
  z
    .object({
      versions: z.object({
        values: z.array(
          z.object({
            id: z.string(),
            status: z.string(),
            updated: z.string(),
            links: z.array(VersionLink),
            'media-types': z.array(MediaType),
          }),
        ),
      }),
    })
    .meta({ id, example });
const VERSIONS: Record<Group, z.ZodType> = {
  event: ValuesVersions('PankoVersions', pankoVersions('http://gateway:8780/event')),
  lbaas: OctaviaVersions,
  domain: ValuesVersions('DomainQuotaVersions', domainQuotaVersions('http://gateway:8780/domain-quota')),
};

/** A response with the group's error body. */
const groupError = (group: Group, description: string) => jsonResponse(description, CONTRACTS[group].errorSchema);
/** The gateway's own 401 (and the identity look-ups' 403): Keystone's body. */
const keystoneError = (description: string) => jsonResponse(description, CONTRACTS.domain.errorSchema);

const retryAfter = z.object({ 'Retry-After': z.string().describe('seconds') });

/** `GET /ready` (http-kit's ReadinessReport). */
const Readiness = z
  .object({
    status: z.enum(['ready', 'not_ready']),
    checks: z.record(
      z.string(),
      z.object({
        status: z.enum(['ok', 'down']),
        required: z.boolean(),
        checks: z.unknown().optional().describe("an upstream's own checks"),
      }),
    ),
  })
  .meta({ id: 'Readiness' });

const text = (description: string) => ({ description, content: { 'text/plain': { schema: z.string() } } });
const json = jsonResponse;

/** The gateway's root and the group's prefix: every group path is served at both. */
function serversOf(group: Group) {
  return [
    { url: '/', description: 'gateway root' },
    { url: GROUPS[group].prefix, description: `the ${GROUPS[group].name} prefix (a catalog endpoint)` },
  ];
}

/**
 * Adds the gateway's (and every service's) responses to a service route: 401 in Keystone's shape; 429 rate limits,
 * 413/415 for a body and upstream failures in the group's shape.
 */
function withGatewayParts(group: Group, route: RouteConfig): RouteConfig {
  const body: RouteConfig['responses'] = route.request?.body
    ? {
        413: groupError(group, 'The body is larger than MAX_BODY_BYTES'),
        415: groupError(group, 'A body that is not application/json'),
      }
    : {};
  const added: RouteConfig['responses'] = {
    401: keystoneError("Missing, invalid or expired X-Auth-Token (the gateway's 401, Keystone's shape)"),
    ...body,
    429: { ...groupError(group, 'Rate limit of the project or token exceeded (when configured)'), headers: retryAfter },
    '5XX': groupError(group, '502 bad upstream answer; 503 the service, its store or Keystone unavailable; 504 upstream timeout'),
  };
  return {
    ...route,
    servers: serversOf(group),
    ...(route.path === INGEST_PATH ? { security: [{ [TOKEN]: [] }, { [BASIC]: [] }] } : {}),
    responses: { ...added, ...route.responses },
  };
}

/** The gateway's own routes: versions, health checks, identity look-ups, this document and its page. */
function gatewayRoutes(): OpenApiSection[] {
  const PUBLIC = 'Versions and health';
  const routes: RouteConfig[] = [
    {
      method: 'get',
      path: '/',
      operationId: 'getRootVersions',
      summary: "Versions document in Octavia's shape (openstacksdk's load-balancer discovery needs its v2 link)",
      security: [],
      responses: { 200: json('Versions', OctaviaVersions) },
    },
    {
      method: 'get',
      path: '/healthcheck',
      operationId: 'getGatewayHealth',
      summary: "The gateway's own health check",
      security: [],
      responses: { 200: text('`OK`') },
    },
    {
      method: 'get',
      path: '/ready',
      operationId: 'getGatewayReadiness',
      summary: 'Readiness: the state of every dependency (token validation, upstreams and their stores)',
      security: [],
      responses: { 200: json('Every required dependency is ok', Readiness), 503: json('A required dependency is down', Readiness) },
    },
  ];
  for (const [group, spec] of Object.entries(GROUPS) as [Group, (typeof GROUPS)[Group]][]) {
    const name = spec.prefix.slice(1).replace(/-(.)/g, (_, c: string) => c.toUpperCase());
    routes.push(
      {
        method: 'get',
        path: spec.prefix,
        operationId: `get_${name}_Versions`,
        summary: `The ${spec.name} group's versions document (also with a trailing slash)`,
        security: [],
        responses: {
          200: json('Versions, links under this prefix', VERSIONS[group]),
          405: groupError(group, 'A method other than GET or HEAD'),
        },
      },
      {
        method: 'get',
        path: `${spec.prefix}/healthcheck`,
        operationId: `get_${name}_Health`,
        summary: `The ${spec.name} service's health check (pings its store)`,
        security: [],
        responses: { 200: text('`OK`'), 503: text('The store (or the service) is unavailable') },
      },
    );
  }
  const allServers = [
    { url: '/', description: 'gateway root' },
    ...Object.values(GROUPS).map((g) => ({ url: g.prefix, description: `the ${g.name} prefix` })),
  ];
  const lookups: RouteConfig[] = IDENTITY_LOOKUPS.flatMap((collection) =>
    [collection, `${collection}/{id}`].map(
      (path): RouteConfig => ({
        method: 'get',
        path,
        operationId: `identityLookup${path.replace(/[^a-z]+/gi, '_')}`,
        summary: 'Not Keystone: refused so that the OpenStack CLI uses ids as given',
        description:
          'With `--os-endpoint` the CLI looks projects up on the service endpoint; a 403 (not a 404) makes it use the id as given.',
        servers: allServers,
        ...(path.endsWith('{id}') ? { request: { params: z.object({ id: z.string() }) } } : {}),
        responses: { 401: keystoneError('Missing or invalid X-Auth-Token'), 403: keystoneError('Always, for any valid token') },
      }),
    ),
  );
  const docs: RouteConfig[] = [
    {
      method: 'get',
      path: OPENAPI_PATH,
      operationId: 'getOpenApiDocument',
      summary: 'This document',
      security: [],
      responses: { 200: json('OpenAPI 3.1', z.record(z.string(), z.unknown())) },
    },
    {
      method: 'get',
      path: DOCS_PATH,
      operationId: 'getApiReference',
      summary: 'The API reference page (Swagger UI, served from the gateway, no CDN)',
      security: [],
      responses: { 200: { description: 'HTML', content: { 'text/html': { schema: z.string() } } } },
    },
  ];
  const signIn: RouteConfig[] = [
    {
      method: 'get',
      path: SIGN_IN_METHODS_PATH,
      operationId: 'getConsoleSignInMethods',
      summary: 'How the operator console may sign in: `token` always, `password` when the gateway uses Keystone',
      security: [],
      responses: { 200: json('The methods offered', SignInMethods), 405: keystoneError('A method other than GET or HEAD') },
    },
    {
      method: 'post',
      path: SIGN_IN_PATH,
      operationId: 'issueConsoleToken',
      summary: "Sign in with Keystone credentials: Keystone's v3 password auth, forwarded to Keystone (no catalog)",
      description:
        "The body is Keystone's own `POST /v3/auth/tokens` body, password method only, with an explicit scope. Counted per client address and per user (RATE_LIMIT_SIGN_IN_PER_ADDRESS, RATE_LIMIT_SIGN_IN_PER_USER). Neither the password nor the token is logged.",
      security: [],
      request: { body: jsonRequestBody(SignInBody) },
      responses: {
        201: json('Issued: the token is in `X-Subject-Token`', SignInToken, z.object({ 'X-Subject-Token': z.string() })),
        400: keystoneError('Not JSON, or not Keystone password auth with a scope'),
        401: keystoneError('Keystone did not accept the credentials or the scope'),
        404: keystoneError('Not offered: the gateway uses static tokens'),
        405: keystoneError('A method other than GET, HEAD or POST'),
        413: keystoneError(`A body past ${SIGN_IN_MAX_BODY_BYTES} bytes`),
        415: keystoneError('A body that is not application/json'),
        429: { ...keystoneError('Too many attempts from this address or for this user'), headers: retryAfter },
        503: { ...keystoneError('Keystone is down, failing or not answering in time'), headers: retryAfter },
      },
    },
    {
      method: 'get',
      path: SIGN_IN_PATH,
      operationId: 'getConsoleCaller',
      summary: "Who the caller's own token stands for: user, project, domain, roles and scope",
      description:
        "Like Keystone's `GET /v3/auth/tokens` for a user's own token, but only ever of the token in `X-Auth-Token` (`X-Subject-Token` is ignored). `scope`: `project` with a project, else `domain` with a domain, else `system` with roles, else `unscoped`. Counted against the default per-token limit (RATE_LIMIT_PER_TOKEN). `Cache-Control: no-store`.",
      responses: {
        200: json('The caller', CallerToken),
        401: { ...keystoneError('Missing or invalid X-Auth-Token'), headers: z.object({ 'WWW-Authenticate': z.string() }) },
        405: keystoneError('A method other than GET, HEAD or POST'),
        429: { ...keystoneError("Past the token's rate limit"), headers: retryAfter },
        503: { ...keystoneError('Keystone is down, failing or not answering in time'), headers: retryAfter },
      },
    },
  ];
  return [
    { tag: PUBLIC, description: 'Public: no token. Versions documents of the root and of each group prefix, health checks.', routes },
    {
      tag: 'Console sign-in',
      description: "The operator console's sign-in (public: no token) and who a signed-in console is (its own token).",
      routes: signIn,
    },
    { tag: 'Identity look-ups', description: 'Keystone look-ups the OpenStack CLI makes on a service endpoint.', routes: lookups },
    { tag: 'Documentation', description: 'This document and its reference page. Public.', routes: docs },
  ];
}

const DESCRIPTION = `Stratum serves three API groups of an OpenStack-style cloud behind one gateway:
events (Panko v2 compatible), load balancer quotas (Octavia v2 quotas) and department quotas (Keystone-style \`/v3\`).

- **Authentication**: every request except the versions documents, the health checks, the console's sign-in and this
  documentation carries \`X-Auth-Token\`. Without a valid token the gateway answers 401 in Keystone's shape.
- **Paths**: every group path is served at the gateway root and under the group's prefix
  (${Object.values(GROUPS)
    .map((g) => `\`${g.prefix}\``)
    .join(', ')}): each operation lists both as servers.
- **Errors** keep each group's upstream shape: Panko \`{"error_message": {faultcode, faultstring, debuginfo}}\`,
  Octavia \`{faultcode, faultstring, debuginfo}\`, Keystone \`{"error": {code, title, message}}\`.
- Every response carries \`X-Openstack-Request-Id\` (a valid one sent by the client is echoed).`;

/** Builds the document (a plain JSON object). Pure: no store or service is contacted. */
export function buildOpenApiDocument(): object {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', TOKEN, {
    type: 'apiKey',
    in: 'header',
    name: 'X-Auth-Token',
    description: 'A Keystone token (or one of the static tokens file)',
  });
  registry.registerComponent('securitySchemes', BASIC, {
    type: 'http',
    scheme: 'basic',
    description: "Ceilometer's http:// publisher: the token as the Basic password (ingest only)",
  });
  const tags: { name: string; description: string }[] = [];
  const add = (sections: OpenApiSection[], map: (r: RouteConfig) => RouteConfig) => {
    for (const s of sections) {
      tags.push({ name: s.tag, description: s.description });
      for (const route of s.routes) registry.registerPath({ ...map(route), tags: [s.tag] });
    }
  };
  for (const group of Object.keys(GROUPS) as Group[]) {
    add(CONTRACTS[group].openapiSections(), (r) => withGatewayParts(group, r));
  }
  add(gatewayRoutes(), (r) => r);

  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: { title: 'Stratum API', version: gatewayPackage.version, description: DESCRIPTION },
    servers: [{ url: '/', description: 'this gateway' }],
    security: [{ [TOKEN]: [] }],
    tags,
  });
}
