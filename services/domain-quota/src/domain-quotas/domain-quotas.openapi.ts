/**
 * OpenAPI description of group C's quota routes (domain-quotas.router.ts), assembled by the gateway into
 * `/openapi.json`.
 *
 * Bodies and parameters are the zod schemas of domain-quotas.schema.ts (the ones the router validates with);
 * responses are the views of domain-quotas.presenter.ts (docs/api/domain-quota.md C1-C3) and audit.log.ts. Errors are
 * Keystone's envelope (`renderKeystoneError`), with `details` for quota refusals.
 */
import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { errorResponses, jsonResponse } from '@stratum/openapi';
import { z } from 'zod';
import {
  AuditQuery,
  DOMAIN_QUOTAS_ROOT,
  DOMAIN_USAGE_ROOT,
  DomainParams,
  DryRunQuery,
  ProjectParams,
  quotaPatchBody,
} from './domain-quotas.schema';

/** One problem of a refused quota edit (QuotaErrorDetail). */
const QuotaErrorDetail = z
  .object({
    region: z.string(),
    item: z.string().optional(),
    requested: z.unknown().optional(),
    current: z.number().optional(),
    min: z.number().optional(),
    max: z.number().optional(),
    reason: z.string().describe('e.g. unknown_region, unknown_item, out_of_range, too_many_decimals, in_use'),
    departments: z.array(z.string()).optional(),
  })
  .meta({ id: 'QuotaErrorDetail' });

/** One problem of a malformed registry body (http-kit's FieldIssue, errors.invalidRequest). */
const BodyIssue = z.object({ field: z.string(), reason: z.string() }).meta({ id: 'BodyIssue' });

/** Keystone's error body, plus `details` when the refusal has parts. */
export const KeystoneError = z
  .object({
    error: z.object({
      code: z.int().describe('the HTTP status'),
      title: z.string().describe('its reason phrase'),
      message: z.string(),
      details: z.array(z.union([QuotaErrorDetail, BodyIssue])).optional(),
    }),
  })
  .meta({ id: 'KeystoneError', description: "Keystone's error envelope" });

/** Error responses in Keystone's shape, one per status. */
export const keystoneErrors = (statuses: Record<number, string>): RouteConfig['responses'] => errorResponses(KeystoneError, statuses);

const Values = z.record(z.string(), z.number()).meta({ id: 'QuotaValues', description: 'quota item → value; -1 unlimited' });

const DepartmentRegion = z
  .object({
    usage: Values.describe("allocated: the sum of the department's projects' quotas"),
    quotas: Values,
    limits: Values.describe('the largest value each quota may be set to; -1 unlimited'),
  })
  .meta({ id: 'DepartmentRegionQuotas' });

const CloudRegion = z
  .object({
    quotas: Values,
    allocated: Values,
    limits: Values,
    usage: Values.describe('actual use, as last reported to the registry'),
    quota_fake: Values.meta({ deprecated: true, description: 'deprecated, meaningless: a copy of quotas' }),
    usage_collected_at: z.string().optional(),
  })
  .meta({ id: 'CloudRegionQuotas' });

const DepartmentQuotas = z
  .object({ domain: z.record(z.string(), DepartmentRegion).describe('region name → quotas') })
  .meta({ id: 'DepartmentQuotas' });

const AuditEntry = z
  .object({
    _id: z.string(),
    at: z.string(),
    request_id: z.string(),
    user_id: z.string(),
    actor_project_id: z.string().nullable(),
    actor_domain_id: z.string().nullable(),
    domain_id: z.string(),
    project_id: z.string().optional(),
    region: z.string(),
    item: z.string().nullable(),
    old: z.number().nullable(),
    new: z.number().nullable(),
    outcome: z.enum(['accepted', 'refused']),
    status: z.int().optional(),
    reason: z.string().optional(),
    message: z.string().optional(),
  })
  .meta({ id: 'QuotaAuditEntry' });

const DomainPatch = quotaPatchBody('domain').meta({
  id: 'DepartmentQuotaPatch',
  example: { domain: { region: 'RegionOne', cores: 620, ram: 1024.5, volumes_ssd: 40 } },
});
const ProjectPatch = quotaPatchBody('project').meta({ id: 'ProjectQuotaPatch', example: { project: { region: 'RegionOne', cores: 16 } } });

const json = jsonResponse;
const etag = z.object({ ETag: z.string().describe("strong ETag of the department's quotas, for If-Match") });
const editErrors = {
  400: 'Malformed body, unknown region or item, bad value (all problems in `details`)',
  403: 'Not a cloud admin',
  404: 'Unknown department or project',
  409: 'Breaks the quota hierarchy (over the parent, under what is allocated)',
};

/** Routes of domain-quotas.router.ts. */
export function domainQuotasRoutes(): RouteConfig[] {
  return [
    {
      method: 'get',
      path: `${DOMAIN_QUOTAS_ROOT}/{domain_id}`,
      operationId: 'getDepartmentQuotas',
      summary: "Get a department's quotas, allocations and limits per region",
      request: { params: DomainParams },
      responses: {
        200: json('Per region: usage (allocated), quotas, limits', DepartmentQuotas, etag),
        ...keystoneErrors({ 403: "Neither a cloud admin nor the department's admin", 404: 'Unknown department' }),
      },
    },
    {
      method: 'patch',
      path: `${DOMAIN_QUOTAS_ROOT}/{domain_id}`,
      operationId: 'editDepartmentQuotas',
      summary: "Edit a department's quotas in one region (cloud admin)",
      description: 'All or nothing. With `dry_run=true` every check runs and nothing is written.',
      request: {
        params: DomainParams,
        query: DryRunQuery,
        headers: z.object({ 'If-Match': z.string().optional().describe('the ETag last read; a mismatch is a 412') }),
        body: { required: true, content: { 'application/json': { schema: DomainPatch } } },
      },
      responses: {
        200: json("The department's quotas after the edit", DepartmentQuotas, etag),
        ...keystoneErrors({ ...editErrors, 412: 'If-Match differs from the current ETag' }),
      },
    },
    {
      method: 'get',
      path: `${DOMAIN_QUOTAS_ROOT}/{domain_id}/audit`,
      operationId: 'listDepartmentQuotaAudit',
      summary: "A department's quota change log, newest first (cloud admin)",
      request: { params: DomainParams, query: AuditQuery },
      responses: {
        200: json('One page of entries', z.object({ audit: z.array(AuditEntry) })),
        ...keystoneErrors({ 400: 'Bad limit', 403: 'Not a cloud admin' }),
      },
    },
    {
      method: 'get',
      path: `${DOMAIN_QUOTAS_ROOT}/{domain_id}/projects/{project_id}`,
      operationId: 'getProjectAllocation',
      summary: "A project's allocations per region",
      request: { params: ProjectParams },
      responses: {
        200: json('Region → item → value', z.object({ project: z.record(z.string(), Values) })),
        ...keystoneErrors({ 403: "Neither a cloud admin nor the department's admin", 404: 'Unknown department or project' }),
      },
    },
    {
      method: 'patch',
      path: `${DOMAIN_QUOTAS_ROOT}/{domain_id}/projects/{project_id}`,
      operationId: 'editProjectAllocation',
      summary: "Set a project's allocations in one region (cloud admin)",
      request: {
        params: ProjectParams,
        query: DryRunQuery,
        body: { required: true, content: { 'application/json': { schema: ProjectPatch } } },
      },
      responses: { 200: json('Region → item → value', z.object({ project: z.record(z.string(), Values) })), ...keystoneErrors(editErrors) },
    },
    {
      method: 'get',
      path: DOMAIN_USAGE_ROOT,
      operationId: 'getCloudQuotas',
      summary: 'Get the cloud platform quotas, allocation and usage (cloud admin)',
      responses: {
        200: json(
          'Per region: quotas, allocated, limits, usage, quota_fake',
          z.object({ domain: z.record(z.string(), CloudRegion) }).meta({ id: 'CloudQuotas' }),
          z.object({ Deprecation: z.string().describe('RFC 9745: quota_fake is deprecated') }),
        ),
        ...keystoneErrors({ 403: 'Not a cloud admin' }),
      },
    },
  ];
}
