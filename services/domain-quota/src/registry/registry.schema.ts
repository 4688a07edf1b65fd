/**
 * Requests of the registry's admin endpoints (`/v3/domain_quota_registry/...`) as zod schemas, used by validate() in
 * registry.router.ts and by the route descriptions of registry.openapi.ts. Bodies are in Keystone's style: one member
 * named after the resource.
 */
import { hasUnsafeChars } from '@stratum/http-kit/wire';
import { SECURE_CONTAINER_PRODUCT } from '@stratum/quota-items';
import { z } from 'zod';
import { checkedAsGiven } from '../domain-quotas/domain-quotas.schema';

/** The registry's path root (its admin routes live below it). */
export const REGISTRY_PREFIX = '/v3/domain_quota_registry';

const UNSAFE_MESSAGE = 'must not contain control or bidirectional formatting characters';

/** A display name (departments, projects): 1 to 255 characters, none of them control or bidi characters. */
export const SafeText = z
  .string()
  .min(1)
  .max(255)
  .refine((s) => !hasUnsafeChars(s), UNSAFE_MESSAGE);

/**
 * A name that becomes part of a stored field path (volume types become items such as `volumes_<type>`), so no dots,
 * no `$` and no whitespace. Keystone ids and names are at most 64 and 255 characters.
 */
export const PathSafeName = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[^.$\s]+$/, 'must not contain dots, $ or whitespace')
  .refine((s) => !hasUnsafeChars(s), UNSAFE_MESSAGE);

/** Region names: part of quota node keys (`<region>/<owner>`), so path-safe and without slashes. */
export const RegionName = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[^.$\s/]+$/, 'must not contain dots, slashes, $ or whitespace')
  .refine((s) => !hasUnsafeChars(s), UNSAFE_MESSAGE);

/** Keystone ids (domains, projects): up to 64 characters, path-safe. */
export const KeystoneId = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[^.$\s/]+$/, 'must not contain dots, slashes, $ or whitespace')
  .refine((s) => !hasUnsafeChars(s), UNSAFE_MESSAGE);

/** Products the catalogue knows (docs/upstream/domain-quota.md §6.6). */
export const PRODUCTS = [SECURE_CONTAINER_PRODUCT] as const;

/**
 * `{region}`: checked by the service when a region is created (RegionName; a name it never stored is a 404
 * elsewhere), so the route only reads it.
 */
export const RegionParams = z.object({ region: RegionName.describe('region name') });
/** `{domain_id}` of the registry's departments. */
export const DomainParams = z.object({ domain_id: KeystoneId.describe('department (Keystone domain) id') });
/** `{project_id}` of the registry's projects. */
export const ProjectParams = z.object({ project_id: KeystoneId.describe('project id') });
/** `GET /projects?domain_id=`: one department's projects. */
export const ProjectsQuery = z.object({
  domain_id: z.string({ error: 'must be given once' }).optional().describe("only this department's projects"),
});

export const RegionBody = z.strictObject({
  region: z.strictObject({
    volume_types: z.array(PathSafeName).default([]),
    products: z.array(z.enum(PRODUCTS)).default([]),
  }),
});
export type RegionBody = z.infer<typeof RegionBody>;

export const DomainBody = z.strictObject({
  domain: z.strictObject({ name: SafeText }),
});

export const ProjectBody = z.strictObject({
  project: z.strictObject({ domain_id: KeystoneId, name: SafeText }),
});

/** A usage report of a region or of one project in a region (documented in `/openapi.json` with this shape). */
export const UsageBody = z.strictObject({
  usage: z.strictObject({
    /** When the services reported the values; now when omitted. */
    collected_at: z.iso.datetime({ offset: true }).optional(),
    /** item → actual use, in the item's unit (fractional where the item allows it). */
    values: z.record(z.string(), z.number()),
  }),
});

/**
 * What the usage routes validate with: UsageBody, passing on the body as given so an item named `__proto__` reaches
 * the item check (and is refused as unknown) instead of being dropped by zod's copy.
 */
export const UsageReportBody = checkedAsGiven(UsageBody);

/** `{project_id}/usage/{region}` of a project's report. */
export const ProjectUsageParams = z.object({ project_id: ProjectParams.shape.project_id, region: RegionParams.shape.region });

/** `GET /usage?domain_id=`: one department's actual use (the sum of its projects' reports) instead of the cloud's. */
export const UsageQuery = z.object({
  domain_id: KeystoneId.optional().describe("a department: the sum of its projects' reports per region"),
});
