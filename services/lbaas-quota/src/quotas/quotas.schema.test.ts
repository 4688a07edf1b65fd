import { AppError } from '@stratum/http-kit';
import type { z } from 'zod';
import { invalidRequest } from '../errors';
import { CLIENT_REQUEST_ID_HEADER, InUseBody, ProjectParams, parseIdempotencyKey, QuotaPutBody, UsageChangeBody } from './quotas.schema';
import { fingerprintOf } from './quotas.service';

const status = (f: () => unknown) => {
  try {
    f();
    return 'ok';
  } catch (e) {
    return e instanceof AppError ? e.status : e;
  }
};

/** What validate() does with `schema`: the parsed value, or the group's error thrown. */
const parse = (schema: z.ZodType, value: unknown) => {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw invalidRequest({ part: 'body', issues: parsed.error.issues });
  return parsed.data;
};
const parseProjectId = (id: string) => (parse(ProjectParams, { project_id: id }) as { project_id: string }).project_id;

describe('parseIdempotencyKey', () => {
  const rid = 'req-0f8e2a7c-1b2d-4c3e-9f4a-5b6c7d8e9f00';

  it('takes the Idempotency-Key header, plain or as a structured-field string', () => {
    expect(parseIdempotencyKey({ 'idempotency-key': 'abc-1' })).toEqual({ key: 'abc-1', fromRequestId: false });
    expect(parseIdempotencyKey({ 'idempotency-key': '"abc-1"' })).toEqual({ key: 'abc-1', fromRequestId: false });
    expect(parseIdempotencyKey({ 'idempotency-key': 'abc-1', [CLIENT_REQUEST_ID_HEADER]: rid })).toEqual({
      key: 'abc-1',
      fromRequestId: false,
    });
  });

  it("falls back to the client's request id only when it is a req-<uuid>", () => {
    expect(parseIdempotencyKey({ [CLIENT_REQUEST_ID_HEADER]: rid })).toEqual({ key: rid, fromRequestId: true });
    expect(parseIdempotencyKey({ [CLIENT_REQUEST_ID_HEADER]: 'req-1' })).toBeUndefined();
    // The id the gateway forwards as X-Openstack-Request-Id alone is not the client's.
    expect(parseIdempotencyKey({ 'x-openstack-request-id': rid })).toBeUndefined();
  });

  it.each([[''], ['""'], ['k'.repeat(256)], ['clé'], ['a\u0000b'], [['a', 'b']]])('refuses %j with a 400', (key) => {
    expect(status(() => parseIdempotencyKey({ 'idempotency-key': key }))).toBe(400);
  });
});

describe('project ids and prototype-named keys', () => {
  it.each(['a\u0000b', 'a\u001fb', 'a\u007fb', 'a\u0085b', 'a\u202eb', 'a\u2067b', 'a\u061cb', '', 'x'.repeat(256)])(
    'project id %j is a 400',
    (id) => {
      expect(status(() => parseProjectId(id))).toBe(400);
    },
  );

  it('keeps ordinary ids, Unicode letters included', () => {
    expect(parseProjectId('2f66f0d537d740d79ad1e52238df492a')).toBe('2f66f0d537d740d79ad1e52238df492a');
    expect(parseProjectId('projet-été')).toBe('projet-été');
  });

  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'])('a resource named %s is a 400', (name) => {
    const body = JSON.parse(`{"quota":{"${name}":1}}`);
    expect(status(() => parse(QuotaPutBody, body))).toBe(400);
    expect(status(() => parse(UsageChangeBody, JSON.parse(`{"consume":{"${name}":1}}`)))).toBe(400);
    expect(status(() => parse(InUseBody, JSON.parse(`{"in_use":{"${name}":1}}`)))).toBe(400);
  });
});

describe('fingerprintOf', () => {
  it('tells requests apart by action and counts, not by the order or spelling of the keys', () => {
    expect(fingerprintOf('consume', { load_balancer: 1, pool: 2 })).toBe(fingerprintOf('consume', { pool: 2, load_balancer: 1 }));
    expect(fingerprintOf('consume', { pool: 2 })).not.toBe(fingerprintOf('release', { pool: 2 }));
    expect(fingerprintOf('consume', { pool: 2 })).not.toBe(fingerprintOf('consume', { pool: 3 }));
    expect(fingerprintOf('consume', { pool: 2 })).not.toBe(fingerprintOf('consume', { pool: 2, member: 0 }));
  });
});
