/**
 * The requests of the department quota routes as zod schemas: the one statement of each rule, used by validate() in
 * domain-quotas.router.ts and by the route descriptions of domain-quotas.openapi.ts.
 *
 * A PATCH body's shape is checked here; what its items may be depends on the region's catalogue (docs/upstream/
 * domain-quota.md §6.4 steps 3-6), so the items and their values are read by the service (patchRequestOf, with
 * quota-items' toMilli) once the region is known.
 */
import { MAX_ITEM_VALUE } from '@stratum/quota-items';
import { z } from 'zod';

/** The department quotas' path root: `/v3/domain_quotas/{domain_id}` and below. */
export const DOMAIN_QUOTAS_ROOT = '/v3/domain_quotas';
/** The cloud platform's quotas and usage (docs/api/domain-quota.md C3). */
export const DOMAIN_USAGE_ROOT = '/v3/domain_usage';

/** `{domain_id}`: a department (Keystone domain) id; `default` is the cloud platform. Unknown ids are 404s. */
export const DomainParams = z.object({
  domain_id: z.string().describe('department (Keystone domain) id; `default` is the cloud platform'),
});

/** `{domain_id}/projects/{project_id}`. */
export const ProjectParams = DomainParams.extend({ project_id: z.string().describe('a project of that department') });

/**
 * A quota item's value in a PATCH body. Read by quota-items' toMilli against the item (so a wrong value is reported
 * with the item, in `details`): -1 unlimited, else 0 to MAX_ITEM_VALUE; counts are integers, ram, storage, cpu and
 * memory allow three decimals.
 */
export const QuotaItemValue = z.unknown().meta({
  type: 'number',
  minimum: -1,
  maximum: MAX_ITEM_VALUE,
  description: `-1 unlimited, else 0 to ${MAX_ITEM_VALUE}; counts are integers, ram, storage, cpu and memory allow three decimals`,
});

/**
 * `{"<wrapper>": {"region": R, "<item>": value, …}}`, each problem stated as Keystone-style wire text (the route's
 * InvalidRequestError, errors.invalidQuotaPatch, puts it after `Invalid input: `). Items: instances, cores, ram,
 * volumes_<type>, gigabytes_<type>, snapshots_<type>, backup_gigabytes, backups, network(s), subnet(s), floatingip,
 * router, security_group, security_group_rule(s), port, loadbalancer, and the secure container items where installed.
 */
export function quotaPatchBody<W extends 'domain' | 'project'>(wrapper: W) {
  const oneMember = `the body must have exactly one member, "${wrapper}"`;
  const regionMessage = `"${wrapper}.region" is required and must be a string`;
  const inner = z
    .object(
      { region: z.string({ error: regionMessage }).min(1, { error: regionMessage }).describe('a region of the registry') },
      { error: (iss) => (iss.input === undefined ? oneMember : `"${wrapper}" must be an object`) },
    )
    .catchall(QuotaItemValue);
  return z.strictObject({ [wrapper]: inner } as Record<W, typeof inner>, {
    error: (iss) => (iss.code === 'unrecognized_keys' ? oneMember : `the body must be {"${wrapper}": {...}}`),
  });
}

/**
 * A schema that checks its input with `shape` and passes on the input itself, not zod's copy: a copy drops an own
 * member named `__proto__` (JSON.parse makes one), and such an item must be refused as unknown like any other, not
 * silently left out of the edit. The issues (and so the messages) are `shape`'s.
 */
export function checkedAsGiven<S extends z.ZodType>(shape: S) {
  return z.custom<z.output<S>>().check((ctx) => {
    const parsed = shape.safeParse(ctx.value);
    if (!parsed.success) for (const issue of parsed.error.issues) ctx.issues.push({ ...issue, input: ctx.value } as z.core.$ZodRawIssue);
  });
}

/** A department's or the cloud's PATCH body (its shape, documented in `/openapi.json`, is quotaPatchBody('domain')). */
export const DomainPatchBody = checkedAsGiven(quotaPatchBody('domain'));
/** A project's PATCH body (quotaPatchBody('project')). */
export const ProjectPatchBody = checkedAsGiven(quotaPatchBody('project'));
/** The inner object of a PATCH body: the region and the items as given (read by patchRequestOf). */
export type QuotaPatch = z.output<ReturnType<typeof quotaPatchBody<'domain'>>>['domain'];

const TRUE_STRINGS = ['1', 't', 'true', 'on', 'y', 'yes'];
const FALSE_STRINGS = ['0', 'f', 'false', 'off', 'n', 'no'];
const DRY_RUN_MESSAGE = 'must be true or false';

/**
 * `?dry_run=`: run every check and write nothing. The strings oslo.utils' bool_from_string reads (any case); any
 * other value (or the parameter given twice) is refused, so a typo never turns a dry run into a write.
 */
export const DryRunQuery = z.object({
  dry_run: z
    .string({ error: DRY_RUN_MESSAGE })
    .trim()
    .toLowerCase()
    .pipe(z.enum([...TRUE_STRINGS, ...FALSE_STRINGS] as [string, ...string[]], { error: DRY_RUN_MESSAGE }))
    .transform((v) => TRUE_STRINGS.includes(v))
    .optional()
    .describe('`true` (or 1, t, on, y, yes; any case): check everything, write nothing'),
});

/** The audit log's page size when `limit` is not given. */
export const AUDIT_PAGE_SIZE = 100;
const LIMIT_MESSAGE = 'must be an integer from 1 to 1000';

/** Query string of a department's audit log. */
export const AuditQuery = z.object({
  limit: z
    .string({ error: LIMIT_MESSAGE })
    .regex(/^\d+$/, { error: LIMIT_MESSAGE })
    .transform(Number)
    .refine((n) => n >= 1 && n <= 1000, { error: LIMIT_MESSAGE })
    .optional()
    .describe(`entries per page, 1 to 1000 (default ${AUDIT_PAGE_SIZE})`),
  // A marker given twice reads as none: the first page.
  marker: z
    .preprocess((v) => (typeof v === 'string' ? v : undefined), z.string().optional())
    .describe('_id of the last entry of the previous page'),
});
