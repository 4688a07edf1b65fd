/**
 * The error catalogue of group C: the wire texts (status, message, details) each factory answers with, and how the
 * InvalidRequestErrors turn zod's issues into Keystone's 400s.
 */
import type { z } from 'zod';
import * as errors from './errors';

/** zod issues at `path` with `message` (what validate() hands to an InvalidRequestError). */
const issue = (path: (string | number)[], message: string, code = 'custom') =>
  ({ code, path, message, input: undefined }) as z.core.$ZodIssue;
const wire = (e: { status: number; message: string; details?: unknown[] }) => ({
  status: e.status,
  message: e.message,
  details: e.details,
});

describe('invalidRequest (registry routes, query and path parameters)', () => {
  it('a body: every problem as `field: reason`, each in details', () => {
    const e = errors.invalidRequest({ part: 'body', issues: [issue(['domain', 'name'], 'Too big'), issue([], 'Bad')] });
    expect(wire(e)).toEqual({
      status: 400,
      message: 'Invalid input: domain.name: Too big; (body): Bad',
      details: [
        { field: 'domain.name', reason: 'Too big' },
        { field: '(body)', reason: 'Bad' },
      ],
    });
  });

  it('a path or query parameter: its first problem as `field reason`, without details', () => {
    const params = errors.invalidRequest({ part: 'params', issues: [issue(['domain_id'], 'must not contain dots'), issue(['x'], 'y')] });
    expect(wire(params)).toEqual({ status: 400, message: 'Invalid input: domain_id must not contain dots', details: undefined });
    const query = errors.invalidRequest({ part: 'query', issues: [issue(['domain_id'], 'must be given once')] });
    expect(query.message).toBe('Invalid input: domain_id must be given once');
  });
});

describe('invalidQuotaPatch (quota PATCH routes)', () => {
  it("a body: the schema's sentence, members besides the wrapper first, without details", () => {
    const extra = issue([], 'the body must have exactly one member, "domain"', 'unrecognized_keys');
    const region = issue(['domain', 'region'], '"domain.region" is required and must be a string');
    expect(wire(errors.invalidQuotaPatch({ part: 'body', issues: [region, extra] }))).toEqual({
      status: 400,
      message: 'Invalid input: the body must have exactly one member, "domain"',
      details: undefined,
    });
    expect(errors.invalidQuotaPatch({ part: 'body', issues: [region] }).message).toBe(
      'Invalid input: "domain.region" is required and must be a string',
    );
  });

  it('a query parameter as invalidRequest', () => {
    expect(errors.invalidQuotaPatch({ part: 'query', issues: [issue(['dry_run'], 'must be true or false')] }).message).toBe(
      'Invalid input: dry_run must be true or false',
    );
  });
});

describe('quotaConflict (409)', () => {
  const base = { region: 'R1', item: 'cores', requested: 12 };
  it.each([
    [
      { ...base, max: 10, reason: 'exceeds_limit' },
      'Quota for cores in region R1 cannot be 12: at most 10 is available from the parent quota.',
    ],
    [{ ...base, min: 20, reason: 'below_allocated' }, 'Quota for cores in region R1 cannot be 12: 20 is already allocated below it.'],
    [
      { ...base, reason: 'unlimited_under_finite_parent' },
      'Quota for cores in region R1 cannot be unlimited while the parent quota is finite.',
    ],
    [{ ...base, reason: 'unlimited_children' }, 'Quota for cores in region R1 cannot be finite while a quota below it is unlimited.'],
    [{ ...base, reason: 'something_else' }, 'Quota for cores in region R1 cannot be 12.'],
  ])('%j says: %s', (detail, message) => {
    expect(wire(errors.quotaConflict([detail]))).toEqual({ status: 409, message, details: [detail] });
  });

  it('joins the sentences of several problems and keeps every detail', () => {
    const details = [
      { ...base, max: 10, reason: 'exceeds_limit' },
      { region: 'R1', item: 'ram', requested: 1, min: 2, reason: 'below_allocated' },
    ];
    const e = errors.quotaConflict(details);
    expect(e.message).toBe(
      'Quota for cores in region R1 cannot be 12: at most 10 is available from the parent quota. Quota for ram in region R1 cannot be 1: 2 is already allocated below it.',
    );
    expect(e.details).toEqual(details);
  });
});

describe('the other wire errors', () => {
  it.each([
    [errors.forbidden(), 403, 'You are not authorized to perform the requested action.'],
    [errors.domainNotFound('d1'), 404, 'Could not find domain: d1.'],
    [errors.projectNotFound('p1'), 404, 'Could not find project: p1.'],
    [errors.regionNotFound('R9'), 404, 'Could not find region: R9.'],
    [errors.noQuotaItems(), 400, 'Invalid input: no quota items given'],
    [errors.unknownMarker('m1'), 400, 'Invalid input: unknown marker m1'],
    [errors.invalidRegionName('a.b', 'must not contain dots'), 400, 'Invalid input: region name "a.b" must not contain dots'],
    [errors.invalidVolumeTypeName('a b'), 400, 'Invalid input: volume type name "a b" cannot name quota items (dots, $ or whitespace)'],
    [errors.cloudNotDeletable(), 400, 'Invalid input: the cloud platform (domain default) cannot be deleted.'],
    [errors.domainNotInRegistry('d1'), 400, 'Invalid input: domain d1 is not in the registry.'],
    [errors.departmentHasProjects('d1', 2), 409, 'Domain d1 still has 2 project(s) in the registry; delete or move them first.'],
    [errors.etagMismatch(), 412, 'The department quotas changed since they were read (If-Match does not match the current ETag).'],
    [errors.quotaRecordsBusy(), 503, 'Quota records are busy; try again.'],
  ])('%s', (e, status, message) => {
    expect([e.status, e.message]).toEqual([status, message]);
  });

  it('carry their details and headers', () => {
    expect(wire(errors.unknownRegion('Nowhere'))).toEqual({
      status: 400,
      message: "Region 'Nowhere' does not exist",
      details: [{ region: 'Nowhere', reason: 'unknown_region' }],
    });
    expect(wire(errors.itemsInUse('R1', ['volumes_ssd', 'gigabytes_ssd'], 'deleting the region'))).toEqual({
      status: 409,
      message: 'Region R1 still has quotas for volumes_ssd, gigabytes_ssd; set them to 0 before deleting the region.',
      details: [
        { region: 'R1', item: 'volumes_ssd', reason: 'in_use' },
        { region: 'R1', item: 'gigabytes_ssd', reason: 'in_use' },
      ],
    });
    const bad = [{ region: 'R1', item: 'x', reason: 'unknown_item' }];
    expect(wire(errors.quotaItemsNotAcceptable('R1', bad)).message).toBe('Invalid input: quota item(s) not acceptable in region R1: x');
    expect(wire(errors.usageItemsNotAcceptable('R1', bad))).toEqual({
      status: 400,
      message: 'Invalid input: usage item(s) not acceptable in region R1: x',
      details: bad,
    });
    const held = [{ region: 'R1', item: 'cores', reason: 'allocated' }];
    expect(wire(errors.departmentHasAllocations('d1', 'R1', held))).toEqual({
      status: 409,
      message: 'Domain d1 still has allocations in region R1.',
      details: held,
    });
    expect(wire(errors.projectHoldsAllocations('p1', 'd1', held))).toEqual({
      status: 409,
      message: 'Project p1 holds allocations from domain d1; set them to 0 before moving it.',
      details: held,
    });
    expect(errors.quotaRecordsBusy().headers).toEqual({ 'Retry-After': '1' });
  });
});
