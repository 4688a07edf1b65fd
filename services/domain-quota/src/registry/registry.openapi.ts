/**
 * OpenAPI description of the registry's admin routes (registry.router.ts), assembled by the gateway into
 * `/openapi.json`. Bodies and ids are the zod schemas the router parses with (registry.schema.ts); responses are the
 * views of registry.service.ts. Errors are Keystone's envelope.
 */
import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { jsonRequestBody, jsonResponse } from '@stratum/openapi';
import { z } from 'zod';
import { keystoneErrors } from '../domain-quotas/domain-quotas.openapi';
import {
  DomainBody,
  DomainParams,
  ProjectBody,
  ProjectParams,
  ProjectsQuery,
  ProjectUsageParams,
  REGISTRY_PREFIX,
  RegionBody,
  RegionParams,
  UsageBody,
  UsageQuery,
} from './registry.schema';

const Region = z
  .object({ name: z.string(), volume_types: z.array(z.string()), products: z.array(z.string()) })
  .meta({ id: 'RegistryRegion' });
const Department = z.object({ id: z.string(), name: z.string() }).meta({ id: 'RegistryDepartment' });
const Project = z.object({ id: z.string(), domain_id: z.string(), name: z.string() }).meta({ id: 'RegistryProject' });
const Usage = z
  .object({ collected_at: z.string().nullable(), values: z.record(z.string(), z.number()) })
  .meta({ id: 'RegistryUsage', description: 'actual use per item, in the item’s unit' });

const DepartmentUsage = z
  .object({
    collected_at: z.string().describe('the oldest `collected_at` among the summed project reports'),
    values: z.record(z.string(), z.number()).describe('item → the sum of its projects’ reported use, in the item’s unit'),
    projects_reported: z.int().describe('how many of the department’s projects reported in this region'),
    projects: z.int().describe('how many projects the department has'),
  })
  .meta({ id: 'RegistryDepartmentUsage' });
const UsageReportBody = UsageBody.meta({ id: 'RegistryUsageBody' });

const json = jsonResponse;
const body = jsonRequestBody;

/**
 * GET (list), GET/PUT/DELETE (one) of a registry collection.
 * @param noun singular member name of the bodies (`region`); `plural` the list's (`regions`).
 */
function collection(
  noun: string,
  plural: string,
  opName: string,
  params: z.ZodObject,
  member: z.ZodType,
  putBody: z.ZodType,
  extra: { listQuery?: z.ZodObject; putErrors: Record<number, string>; deleteErrors: Record<number, string> },
): RouteConfig[] {
  const one = `${REGISTRY_PREFIX}/${plural}/{${Object.keys(params.shape)[0]}}`;
  return [
    {
      method: 'get',
      path: `${REGISTRY_PREFIX}/${plural}`,
      operationId: `listRegistry${opName}s`,
      summary: `List ${plural}`,
      ...(extra.listQuery ? { request: { query: extra.listQuery } } : {}),
      responses: {
        200: json(`All ${plural}`, z.object({ [plural]: z.array(member) })),
        ...keystoneErrors(extra.listQuery ? { 400: 'Bad query', 403: 'Not a cloud admin' } : { 403: 'Not a cloud admin' }),
      },
    },
    {
      method: 'get',
      path: one,
      operationId: `getRegistry${opName}`,
      summary: `Get one ${noun}`,
      request: { params },
      responses: {
        200: json(`The ${noun}`, z.object({ [noun]: member })),
        ...keystoneErrors({ 400: 'Malformed id', 403: 'Not a cloud admin', 404: `Unknown ${noun}` }),
      },
    },
    {
      method: 'put',
      path: one,
      operationId: `putRegistry${opName}`,
      summary: `Create or replace a ${noun}`,
      request: { params, body: body(putBody) },
      responses: {
        200: json('Replaced', z.object({ [noun]: member })),
        201: json('Created', z.object({ [noun]: member })),
        ...keystoneErrors({ 400: 'Malformed id or body (problems in `details`)', 403: 'Not a cloud admin', ...extra.putErrors }),
      },
    },
    {
      method: 'delete',
      path: one,
      operationId: `deleteRegistry${opName}`,
      summary: `Delete a ${noun}`,
      request: { params },
      responses: {
        204: { description: 'Deleted; no body' },
        ...keystoneErrors({ 400: 'Malformed id', 403: 'Not a cloud admin', 404: `Unknown ${noun}`, ...extra.deleteErrors }),
      },
    },
  ];
}

const Discrepancy = z
  .object({
    region: z.string(),
    domain_id: z.string().describe('the parent: `default` (the cloud) or a department'),
    item: z.string(),
    field: z.enum(['allocated', 'unlimited']).describe('`allocated` in the item’s unit, or the count of unlimited children'),
    stored: z.number(),
    expected: z.number().describe('what the children (and the edits in flight) hold'),
    repaired: z.boolean(),
  })
  .meta({ id: 'RegistryCheckDiscrepancy' });
const CheckReport = z
  .object({
    check: z.object({
      ok: z.boolean().describe('no sum is wrong after this run'),
      nodes: z.int().describe('parents verified (the cloud and every department, per region)'),
      discrepancies: z.array(Discrepancy),
      busy: z.array(z.string()).describe('`<region>/<domain_id>` of parents that kept changing while verified: run again'),
    }),
  })
  .meta({ id: 'RegistryCheckReport' });

/** Routes of registry.router.ts. */
export function registryRoutes(): RouteConfig[] {
  return [
    ...collection('region', 'regions', 'Region', RegionParams, Region, RegionBody.meta({ id: 'RegistryRegionBody' }), {
      putErrors: { 409: 'A volume type or product that is dropped still holds quotas (`details`)' },
      deleteErrors: { 409: 'The region still holds quotas (`details`)' },
    }),
    ...collection('domain', 'domains', 'Department', DomainParams, Department, DomainBody.meta({ id: 'RegistryDepartmentBody' }), {
      putErrors: {},
      deleteErrors: { 400: '`default` (the cloud) cannot be deleted', 409: 'The department still has projects' },
    }),
    ...collection('project', 'projects', 'Project', ProjectParams, Project, ProjectBody.meta({ id: 'RegistryProjectBody' }), {
      listQuery: ProjectsQuery,
      putErrors: { 409: 'Moving a project that holds allocations to another department' },
      deleteErrors: {},
    }),
    {
      method: 'get',
      path: `${REGISTRY_PREFIX}/check`,
      operationId: 'checkRegistrySums',
      summary: 'Verify every sum of the quota tree (the cloud’s and each department’s allocated against their children)',
      responses: {
        200: json('What was verified and every wrong sum (`ok` false when there is one)', CheckReport),
        ...keystoneErrors({ 403: 'Not a cloud admin' }),
      },
    },
    {
      method: 'post',
      path: `${REGISTRY_PREFIX}/check`,
      operationId: 'repairRegistrySums',
      summary: 'Verify every sum of the quota tree and set each wrong one to what the children hold (audited)',
      responses: {
        200: json('What was verified and every sum repaired', CheckReport),
        ...keystoneErrors({ 403: 'Not a cloud admin' }),
      },
    },
    {
      method: 'get',
      path: `${REGISTRY_PREFIX}/usage`,
      operationId: 'getRegistryUsage',
      summary: 'Actual usage per region: the cloud’s region reports, or with `domain_id` a department’s (its projects’ reports summed)',
      request: { query: UsageQuery },
      responses: {
        200: json(
          'Region → usage: RegistryUsage without `domain_id`; RegistryDepartmentUsage with it (a region where none of its projects reported is absent)',
          z.object({ usage: z.record(z.string(), z.union([Usage, DepartmentUsage])) }),
        ),
        ...keystoneErrors({
          400: 'Malformed `domain_id`',
          403: 'Not a cloud admin (nor, with `domain_id`, an admin of that department)',
          404: 'Unknown department',
        }),
      },
    },
    {
      method: 'put',
      path: `${REGISTRY_PREFIX}/usage/{region}`,
      operationId: 'putRegistryUsage',
      summary: "Report a region's actual usage (cloud admin or service)",
      request: { params: RegionParams, body: body(UsageReportBody) },
      responses: {
        200: json('The stored usage', z.object({ usage: Usage })),
        ...keystoneErrors({
          400: 'Malformed body, unknown item or bad value',
          403: 'Not a cloud admin or service user',
          404: 'Unknown region',
        }),
      },
    },
    {
      method: 'get',
      path: `${REGISTRY_PREFIX}/projects/{project_id}/usage`,
      operationId: 'getRegistryProjectUsage',
      summary: "A project's actual usage reports, per region it reported in",
      request: { params: ProjectParams },
      responses: {
        200: json(
          'Region → the project’s report (every item of the region; 0 when not reported)',
          z.object({ usage: z.record(z.string(), Usage) }),
        ),
        ...keystoneErrors({ 400: 'Malformed id', 403: 'Not a cloud admin', 404: 'Unknown project' }),
      },
    },
    {
      method: 'put',
      path: `${REGISTRY_PREFIX}/projects/{project_id}/usage/{region}`,
      operationId: 'putRegistryProjectUsage',
      summary: "Report a project's actual usage in a region (cloud admin or service)",
      request: { params: ProjectUsageParams, body: body(UsageReportBody) },
      responses: {
        200: json('Replaced: the stored report', z.object({ usage: Usage })),
        201: json('Created: the stored report', z.object({ usage: Usage })),
        ...keystoneErrors({
          400: 'Malformed id or body, unknown item or bad value (each in `details`)',
          403: 'Not a cloud admin or service user',
          404: 'Unknown project or region',
        }),
      },
    },
  ];
}
