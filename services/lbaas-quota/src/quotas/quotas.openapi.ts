/**
 * OpenAPI description of group B's routes (quotas.router.ts) under one of Octavia's quota roots, assembled by the
 * gateway into `/openapi.json` (through contract.ts).
 *
 * Parameters and bodies are the zod schemas of quotas.schema.ts, the same objects the routes validate with; responses
 * are the shapes of quotas.presenter.ts (docs/api/lbaas-quota.md B1-B4). Errors are Octavia's WSME fault
 * (`renderOctaviaError`).
 */
import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { errorResponses, jsonRequestBody, jsonResponse } from '@stratum/openapi';
import {
  LBAAS_IN_USE_NAME,
  LBAAS_NEW_NAME,
  LBAAS_RESOURCES,
  type LbaasResource,
  MAX_QUOTA,
  MIN_QUOTA,
  QuotaLimit,
} from '@stratum/quota-items';
import { z } from 'zod';
import {
  IdempotencyKeyHeader,
  InUseBody,
  ListParams,
  ProjectParams,
  QuotaPutBody,
  ResetQueryParams,
  ShowQueryParams,
  UsageChangeBody,
} from './quotas.schema';

/** Octavia's error body. */
export const OctaviaError = z
  .object({
    faultcode: z.enum(['Client', 'Server']).describe('Client for a 4xx, Server for a 5xx'),
    faultstring: z.string().describe('the message python-octaviaclient shows'),
    debuginfo: z.null(),
  })
  .meta({ id: 'OctaviaError', description: "Octavia's WSME fault" });

/** Error responses in Octavia's shape, one per status. */
export const octaviaErrors = (statuses: Record<number, string>): RouteConfig['responses'] => errorResponses(OctaviaError, statuses);

const fromResources = <T extends z.ZodType>(key: (r: LbaasResource) => string, schema: T) =>
  Object.fromEntries(LBAAS_RESOURCES.map((r) => [key(r), schema])) as Record<string, T>;

/** A single quota: the seven limits, underscore spelling, defaults resolved (presentQuota). */
const Quota = z
  .object(fromResources((r) => r, QuotaLimit))
  .partial()
  .meta({ id: 'LbaasQuota', description: '-1 unlimited; every key unless `fields` narrows it' });

/** A list item (presentListItem): raw limits (null = the default) in both spellings, and in_use counts. */
const QuotaListItem = z
  .object({
    project_id: z.string(),
    tenant_id: z.string().describe('equal to project_id'),
    ...fromResources((r) => r, QuotaLimit.nullable()),
    ...fromResources((r) => LBAAS_NEW_NAME[r], QuotaLimit.nullable()),
    ...fromResources((r) => LBAAS_IN_USE_NAME[r], z.int().min(0)),
  })
  .partial()
  .meta({ id: 'LbaasQuotaListItem', description: 'null: the project uses the deployment default' });

const QuotaList = z
  .object({
    quotas: z.array(QuotaListItem),
    quotas_links: z.array(z.object({ href: z.string(), rel: z.enum(['next', 'previous']) })),
  })
  .meta({ id: 'LbaasQuotaList' });

/** A project's usage (presentUsage): effective limit and in_use per resource. */
const Usage = z
  .object({
    project_id: z.string(),
    ...fromResources((r) => r, z.object({ limit: z.int().min(MIN_QUOTA).max(MAX_QUOTA), in_use: z.int().min(0) })),
  })
  .meta({ id: 'LbaasUsage' });

const PutBody = QuotaPutBody.meta({ id: 'LbaasQuotaPutBody', example: { quota: { loadbalancer: 10, listener: null } } });
const ChangeBody = UsageChangeBody.meta({
  id: 'LbaasUsageChangeBody',
  description: 'exactly one of consume and release',
  example: { consume: { load_balancer: 1, listener: 2 } },
});
const SetInUseBody = InUseBody.meta({ id: 'LbaasInUseBody', example: { in_use: { member: 7 } } });

const json = jsonResponse;
const body = jsonRequestBody;

/** Policy refusals and malformed input, common to every route. */
const refused = { 400: 'Invalid parameter, body or project id', 403: 'Policy does not allow this request' };

/**
 * Routes of quotas.router.ts under `root` (one of the contract's LBAAS_QUOTA_ROOTS, e.g. `/v2.0/lbaas/quotas`).
 * @param id suffix for operationIds, unique per root.
 */
export function quotasRoutes(root: string, id = ''): RouteConfig[] {
  const p = root;
  return [
    {
      method: 'get',
      path: p,
      operationId: `listLbaasQuotas${id}`,
      summary: 'List quotas',
      description: "Cloud admins see every project's record, others only their own project's. Ordered and paged by project_id.",
      request: { query: ListParams },
      responses: { 200: json('One page of quota records', QuotaList), ...octaviaErrors(refused) },
    },
    {
      method: 'get',
      path: `${p}/defaults`,
      operationId: `getLbaasQuotaDefaults${id}`,
      summary: 'Get the deployment default quotas',
      request: { query: ShowQueryParams },
      responses: { 200: json('The defaults', z.object({ quota: Quota })), ...octaviaErrors(refused) },
    },
    {
      method: 'get',
      path: `${p}/{project_id}/default`,
      operationId: `getLbaasQuotaDefaultsOfProject${id}`,
      summary: "Get the deployment default quotas (Octavia's spelling)",
      request: { params: ProjectParams, query: ShowQueryParams },
      responses: { 200: json('The defaults', z.object({ quota: Quota })), ...octaviaErrors(refused) },
    },
    {
      method: 'get',
      path: `${p}/{project_id}`,
      operationId: `getLbaasQuota${id}`,
      summary: "Get a project's quotas",
      description: 'Effective limits (null resolved to the default); a project without a record gets the defaults, never 404.',
      request: { params: ProjectParams, query: ShowQueryParams },
      responses: { 200: json("The project's quotas", z.object({ quota: Quota })), ...octaviaErrors(refused) },
    },
    {
      method: 'put',
      path: `${p}/{project_id}`,
      operationId: `setLbaasQuota${id}`,
      summary: "Set a project's quotas (admin)",
      description: 'Omitted keys stay as they are; null puts a limit back to the deployment default.',
      request: { params: ProjectParams, body: body(PutBody) },
      responses: {
        202: json('The quotas after the change', z.object({ quota: Quota })),
        ...octaviaErrors({ ...refused, 415: 'The body is not JSON' }),
      },
    },
    {
      method: 'delete',
      path: `${p}/{project_id}`,
      operationId: `resetLbaasQuota${id}`,
      summary: "Reset a project's quotas to the defaults (admin)",
      request: { params: ProjectParams, query: ResetQueryParams },
      responses: {
        204: { description: 'Reset; no body' },
        ...octaviaErrors({
          ...refused,
          404: '`Quotas <project_id> not found.`: the project has no record',
          409: 'Usage is above a finite default (use force=true)',
        }),
      },
    },
    {
      method: 'get',
      path: `${p}/{project_id}/usage`,
      operationId: `getLbaasUsage${id}`,
      summary: "Get a project's limits and in-use counts (enforcement)",
      request: { params: ProjectParams },
      responses: { 200: json('Usage', z.object({ usage: Usage })), ...octaviaErrors(refused) },
    },
    {
      method: 'post',
      path: `${p}/{project_id}/usage`,
      operationId: `consumeOrReleaseLbaasUsage${id}`,
      summary: 'Consume or release quota, all or nothing (admin or service)',
      description:
        'Consume before creating load balancer objects, release after deleting them. Idempotent per key: with an ' +
        '`Idempotency-Key` (or, without one, the `X-Openstack-Request-Id` the client sent), a retry gets the first ' +
        "call's status and body (with `Idempotent-Replayed: true`) and counts once, on any replica. Keys are kept per " +
        'project, the last 100 for 24 h by default (IDEMPOTENCY_KEYS_MAX, IDEMPOTENCY_KEY_TTL_S).',
      request: {
        params: ProjectParams,
        headers: z.object({ 'Idempotency-Key': IdempotencyKeyHeader.optional() }),
        body: body(ChangeBody),
      },
      responses: {
        200: json("Usage after the change (or, for a retry, the first call's answer)", z.object({ usage: Usage })),
        ...octaviaErrors({
          ...refused,
          400: 'Invalid parameter, body, project id or Idempotency-Key',
          403: 'Policy refusal, or `Quota has been met for resources: …` (a keyed refusal is answered again to a retry)',
          415: 'The body is not JSON',
          422: 'The idempotency key was already used for a different request (another action or other counts) on this project',
        }),
      },
    },
    {
      method: 'put',
      path: `${p}/{project_id}/usage`,
      operationId: `setLbaasUsage${id}`,
      summary: 'Set absolute in-use counts (reconciliation; admin or service)',
      request: { params: ProjectParams, body: body(SetInUseBody) },
      responses: {
        200: json('Usage after the change', z.object({ usage: Usage })),
        ...octaviaErrors({ ...refused, 415: 'The body is not JSON' }),
      },
    },
  ];
}
