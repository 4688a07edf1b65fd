import { AppError } from '@stratum/http-kit';
import type { z } from 'zod';
import * as errors from './errors';

const issue = (path: PropertyKey[], message: string): z.core.$ZodIssue => ({ code: 'custom', path, message, input: undefined });

describe('invalidRequest', () => {
  it("is a 400 with the part's own problem first, else zod's first issue", () => {
    const nested = issue(['quota'], 'Missing argument: "quota"');
    const own = issue([], 'Unknown attribute for argument quotas: quotas');
    const err = errors.invalidRequest({ part: 'body', issues: [nested, own] });
    expect(err).toBeInstanceOf(AppError);
    expect([err.status, err.message]).toEqual([400, own.message]);
    const deep = issue(['quota', 'pool'], 'first');
    expect(errors.invalidRequest({ part: 'body', issues: [deep, nested] }).message).toBe('first');
  });

  it('still answers 400 when zod gave no issue', () => {
    expect(errors.invalidRequest({ part: 'query', issues: [] }).status).toBe(400);
  });
});

describe('invalidInput texts (Octavia)', () => {
  it('names the three ways a limit is wrong', () => {
    expect(errors.invalidInput.limit('pool', '5')).toBe(`Invalid input for field/attribute pool. Value: '"5"'. Value should be an integer`);
    expect(errors.invalidInput.limit('pool', 1.5)).toMatch(/Value: '1.5'. Value should be an integer$/);
    expect(errors.invalidInput.limit('pool', -2)).toBe(
      "Invalid input for field/attribute pool. Value: '-2'. Value should be greater or equal to -1",
    );
    expect(errors.invalidInput.limit('pool', 2000000001)).toBe(
      "Invalid input for field/attribute pool. Value: '2000000001'. Value should be lower or equal to 2000000000",
    );
    // A JavaScript integer beyond 2^53 is an integer too: it is out of range.
    expect(errors.invalidInput.limit('pool', 1e20)).toMatch(/Value should be lower or equal to 2000000000$/);
  });

  it('lists every unknown attribute of an argument', () => {
    expect(errors.invalidInput.unknownAttribute('quotas', ['a', 'b'])).toBe('Unknown attribute for argument quotas: a, b');
  });
});

describe('error factories', () => {
  it.each([
    [errors.policyForbidden(), 403, 'Policy does not allow this request to be performed.'],
    [errors.quotaMet(errors.quotaMetMessage(['Pool', 'L7 Rule'])), 403, 'Quota has been met for resources: Pool, L7 Rule'],
    [errors.quotaNotFound('p1'), 404, 'Quotas p1 not found.'],
    [errors.resetOverQuota('p1', ['Pool (6 in use, default 4)']), 409, /^Quotas of p1 cannot be reset: .*Pool \(6 in use, default 4\)/],
    [errors.idempotencyKeyReused('k', 'p1'), 422, /^Idempotency key 'k' was already used for a different request/],
    [errors.projectBusy(), 503, 'Project busy.  Unable to lock the project.  Please try again.'],
    [errors.invalidIdempotencyKey(255), 400, 'Invalid Idempotency-Key header. Value should be 1 to 255 printable ASCII characters'],
  ])('%s', (err, status, message) => {
    expect(err).toBeInstanceOf(AppError);
    expect(err.status).toBe(status);
    if (typeof message === 'string') expect(err.message).toBe(message);
    else expect(err.message).toMatch(message);
  });

  it('a busy project is to be retried after a second; a replayed refusal says so in its headers', () => {
    expect(errors.projectBusy().headers).toEqual({ 'Retry-After': '1' });
    expect(errors.quotaMet('m', { 'Idempotent-Replayed': 'true' }).headers).toEqual({ 'Idempotent-Replayed': 'true' });
  });
});
