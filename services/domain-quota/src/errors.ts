/**
 * Every error the department quota service answers with (group C), in Keystone's envelope
 * (`{"error": {code, title, message, details?}}`, rendered by http-kit's renderKeystoneError). Code and tests build
 * them here, so each wire text is written once. A refused quota edit carries its problems in `details`
 * (QuotaErrorDetail, docs/api/domain-quota.md); a malformed registry body carries one FieldIssue per problem.
 */
import { AppError, fieldIssues, type InvalidRequest, type InvalidRequestError } from '@stratum/http-kit/wire';

/** One machine-readable problem of a refused quota edit (docs/upstream/domain-quota.md §6.7). */
export interface QuotaErrorDetail {
  region: string;
  item?: string;
  requested?: number | unknown;
  current?: number;
  min?: number;
  max?: number;
  /** e.g. unknown_region, unknown_item, out_of_range, too_many_decimals, exceeds_limit, below_allocated, in_use. */
  reason: string;
  /** For `unlimited_children` on the cloud: the departments whose quota is -1. */
  departments?: string[];
}

const invalidInput = (message: string, details?: unknown[]) => new AppError(400, `Invalid input: ${message}`, details);

/** A path or query parameter's first problem as `<field> <reason>` (`Invalid input: dry_run must be true or false`). */
const invalidParameter = (invalid: InvalidRequest) => {
  const first = fieldIssues(invalid)[0];
  return invalidInput(first ? `${first.field} ${first.reason}` : 'malformed request');
};

/**
 * The group's InvalidRequestError for http-kit's validate(): 400 `Invalid input: …`. A path or query parameter: its
 * first problem as `<field> <reason>`. A body: every problem as `<field>: <reason>`, joined by `; `, each also in
 * `details` as `{field, reason}`.
 */
export const invalidRequest: InvalidRequestError = (invalid) => {
  if (invalid.part !== 'body') return invalidParameter(invalid);
  const issues = fieldIssues(invalid);
  return invalidInput(issues.map((d) => `${d.field}: ${d.reason}`).join('; '), issues);
};

/**
 * The InvalidRequestError of the quota PATCH routes: parameters as invalidRequest; a body's problem is the schema's
 * sentence (quotaPatchBody), members besides the wrapper first, without `details` (those are for the items).
 */
export const invalidQuotaPatch: InvalidRequestError = (invalid) => {
  if (invalid.part !== 'body') return invalidParameter(invalid);
  const first = invalid.issues.find((i) => i.code === 'unrecognized_keys') ?? invalid.issues[0];
  return invalidInput(first?.message ?? 'malformed body');
};

/** 403: Keystone's ForbiddenAction, for a request the policy refuses. */
export const forbidden = () => new AppError(403, 'You are not authorized to perform the requested action.');

/** 404: no such department (Keystone domain). */
export const domainNotFound = (domainId: string) => new AppError(404, `Could not find domain: ${domainId}.`);

/** 404: no such project (or not one of the department's). */
export const projectNotFound = (projectId: string) => new AppError(404, `Could not find project: ${projectId}.`);

/** 404: no such region in the registry. */
export const regionNotFound = (region: string) => new AppError(404, `Could not find region: ${region}.`);

/** 400: a quota edit names a region the registry does not have. */
export const unknownRegion = (region: string) =>
  new AppError(400, `Region '${region}' does not exist`, [{ region, reason: 'unknown_region' } satisfies QuotaErrorDetail]);

/** 400: a quota edit names no item besides the region. */
export const noQuotaItems = () => invalidInput('no quota items given');

/** 400: items of a quota edit the region does not offer, or values they cannot take (each in `details`). */
export const quotaItemsNotAcceptable = (region: string, details: QuotaErrorDetail[]) =>
  invalidInput(`quota item(s) not acceptable in region ${region}: ${details.map((d) => d.item).join(', ')}`, details);

/** 400: items of a usage report the region does not offer, or values they cannot take (each in `details`). */
export const usageItemsNotAcceptable = (region: string, details: QuotaErrorDetail[]) =>
  invalidInput(`usage item(s) not acceptable in region ${region}: ${details.map((d) => d.item).join(', ')}`, details);

/** 400: the audit log's `marker` is not an entry of that department. */
export const unknownMarker = (marker: string) => invalidInput(`unknown marker ${marker}`);

/** 400: a region name that cannot key quota nodes (`reason`: the schema's message). */
export const invalidRegionName = (region: string, reason: string) => invalidInput(`region name ${JSON.stringify(region)} ${reason}`);

/** 400: a volume type name that cannot name quota items. */
export const invalidVolumeTypeName = (name: string) =>
  invalidInput(`volume type name ${JSON.stringify(name)} cannot name quota items (dots, $ or whitespace)`);

/** 400: the cloud platform is the root of every tree. */
export const cloudNotDeletable = () => invalidInput('the cloud platform (domain default) cannot be deleted.');

/** 400: a project registered under a department the registry does not have. */
export const domainNotInRegistry = (domainId: string) => invalidInput(`domain ${domainId} is not in the registry.`);

/** 409: a change that breaks the quota hierarchy; one sentence per problem, every problem in `details`. */
export function quotaConflict(details: QuotaErrorDetail[]): AppError {
  const msg = details
    .map((d) => {
      switch (d.reason) {
        case 'exceeds_limit':
          return `Quota for ${d.item} in region ${d.region} cannot be ${d.requested}: at most ${d.max} is available from the parent quota.`;
        case 'below_allocated':
          return `Quota for ${d.item} in region ${d.region} cannot be ${d.requested}: ${d.min} is already allocated below it.`;
        case 'unlimited_under_finite_parent':
          return `Quota for ${d.item} in region ${d.region} cannot be unlimited while the parent quota is finite.`;
        case 'unlimited_children':
          return `Quota for ${d.item} in region ${d.region} cannot be finite while a quota below it is unlimited.`;
        default:
          return `Quota for ${d.item} in region ${d.region} cannot be ${d.requested}.`;
      }
    })
    .join(' ');
  return new AppError(409, msg, details);
}

/** 409: a region's items still held by quotas, so `what` (a catalogue change) is refused (`in_use` details). */
export const itemsInUse = (region: string, used: string[], what: string) =>
  new AppError(
    409,
    `Region ${region} still has quotas for ${used.join(', ')}; set them to 0 before ${what}.`,
    used.map((item) => ({ region, item, reason: 'in_use' }) satisfies QuotaErrorDetail),
  );

/** 409: a department with projects cannot be deleted. */
export const departmentHasProjects = (domainId: string, count: number) =>
  new AppError(409, `Domain ${domainId} still has ${count} project(s) in the registry; delete or move them first.`);

/** 409: a department whose projects still hold allocations in a region (`allocated` details). */
export const departmentHasAllocations = (domainId: string, region: string, details: QuotaErrorDetail[]) =>
  new AppError(409, `Domain ${domainId} still has allocations in region ${region}.`, details);

/** 409: a project holding allocations cannot move to another department (`allocated` details). */
export const projectHoldsAllocations = (projectId: string, domainId: string, details: QuotaErrorDetail[]) =>
  new AppError(409, `Project ${projectId} holds allocations from domain ${domainId}; set them to 0 before moving it.`, details);

/** 412: If-Match names another ETag than the department's current one. */
export const etagMismatch = () =>
  new AppError(412, 'The department quotas changed since they were read (If-Match does not match the current ETag).');

/** 503: the quota records stayed contended; the client may retry after a second. */
export const quotaRecordsBusy = () => new AppError(503, 'Quota records are busy; try again.', undefined, { 'Retry-After': '1' });
