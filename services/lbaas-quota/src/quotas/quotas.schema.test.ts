import { AppError } from '@stratum/http-kit';
import { LBAAS_INPUT_NAMES, LBAAS_RESOURCES, MAX_QUOTA, MIN_QUOTA } from '@stratum/quota-items';
import type { z } from 'zod';
import { invalidRequest } from '../errors';
import {
  CLIENT_REQUEST_ID_HEADER,
  InUseBody,
  ListQueryParams,
  ProjectParams,
  parseIdempotencyKey,
  QuotaPutBody,
  ResetQueryParams,
  ShowQueryParams,
  UsageChangeBody,
} from './quotas.schema';
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
const parse = <S extends z.ZodType>(schema: S, value: unknown): z.output<S> => {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw invalidRequest({ part: 'body', issues: parsed.error.issues });
  return parsed.data;
};
const projectIdOf = (id: string) => parse(ProjectParams, { project_id: id }).project_id;

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
      expect(status(() => projectIdOf(id))).toBe(400);
    },
  );

  it('keeps ordinary ids, Unicode letters included', () => {
    expect(projectIdOf('2f66f0d537d740d79ad1e52238df492a')).toBe('2f66f0d537d740d79ad1e52238df492a');
    expect(projectIdOf('projet-été')).toBe('projet-été');
  });

  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'])('a resource named %s is a 400', (name) => {
    const body = JSON.parse(`{"quota":{"${name}":1}}`);
    expect(status(() => parse(QuotaPutBody, body))).toBe(400);
    expect(status(() => parse(UsageChangeBody, JSON.parse(`{"consume":{"${name}":1}}`)))).toBe(400);
    expect(status(() => parse(InUseBody, JSON.parse(`{"in_use":{"${name}":1}}`)))).toBe(400);
  });
});

/** The 400's message validate() would answer with, or 'ok'. */
const messageOf = (schema: z.ZodType, value: unknown) => {
  try {
    parse(schema, value);
    return 'ok';
  } catch (e) {
    return e instanceof AppError ? e.message : e;
  }
};
const SPELLINGS = Object.keys(LBAAS_INPUT_NAMES);

describe("PUT body: limits from MIN_QUOTA to MAX_QUOTA, per resource and spelling (as Octavia's type tests)", () => {
  it.each(SPELLINGS)('%s: MIN, MAX and null are accepted; MIN-1 and MAX+1 are the 400s Octavia words', (key) => {
    for (const value of [MIN_QUOTA, 0, MAX_QUOTA, null]) expect(messageOf(QuotaPutBody, { quota: { [key]: value } })).toBe('ok');
    expect(messageOf(QuotaPutBody, { quota: { [key]: MIN_QUOTA - 1 } })).toBe(
      `Invalid input for field/attribute ${key}. Value: '${MIN_QUOTA - 1}'. Value should be greater or equal to ${MIN_QUOTA}`,
    );
    expect(messageOf(QuotaPutBody, { quota: { [key]: MAX_QUOTA + 1 } })).toBe(
      `Invalid input for field/attribute ${key}. Value: '${MAX_QUOTA + 1}'. Value should be lower or equal to ${MAX_QUOTA}`,
    );
  });

  it.each([['5'], [5.5], [true], [[1]], [{}]])('%j is not an integer (no coercion)', (value) => {
    expect(messageOf(QuotaPutBody, { quota: { pool: value } })).toBe(
      `Invalid input for field/attribute pool. Value: '${JSON.stringify(value)}'. Value should be an integer`,
    );
  });

  it('reads both spellings into storage keys; the underscore spelling wins when both are sent', () => {
    expect(parse(QuotaPutBody, { quota: { loadbalancer: 3, healthmonitor: null } })).toEqual({ load_balancer: 3, health_monitor: null });
    expect(parse(QuotaPutBody, { quota: { loadbalancer: 3, load_balancer: 4 } })).toEqual({ load_balancer: 4 });
    expect(parse(QuotaPutBody, { quota: { load_balancer: null, loadbalancer: 4 } })).toEqual({ load_balancer: null });
    expect(parse(QuotaPutBody, { quota: {} })).toEqual({});
  });

  it.each([
    [undefined, 'Missing argument: "quotas"'],
    [[1], 'Missing argument: "quotas"'],
    [{}, 'Missing argument: "quota"'],
    [{ quota: 5 }, "Invalid input for field/attribute quota. Value: '5'. Value should be an object"],
    [{ quota: null }, "Invalid input for field/attribute quota. Value: 'null'. Value should be an object"],
    [{ quotas: { pool: 1 } }, 'Unknown attribute for argument quotas: quotas'],
    [{ quota: { pool: 1 }, x: 1, y: 2 }, 'Unknown attribute for argument quotas: x, y'],
    [{ quota: { vip: 1 } }, 'Unknown attribute for argument quotas.quota: vip'],
  ])('%j is a 400: %s', (body, message) => {
    expect(messageOf(QuotaPutBody, body)).toBe(message);
  });
});

describe('enforcement bodies: counts from 0 to MAX_QUOTA, at least one resource', () => {
  it.each(SPELLINGS)('%s: 0 and MAX are counts; -1, MAX+1, 1.5 and "1" are not', (key) => {
    for (const value of [0, MAX_QUOTA]) {
      expect(messageOf(UsageChangeBody, { consume: { [key]: value } })).toBe('ok');
      expect(messageOf(InUseBody, { in_use: { [key]: value } })).toBe('ok');
    }
    for (const value of [-1, MAX_QUOTA + 1, 1.5, '1']) {
      const message = `Invalid input for field/attribute ${key}. Value: '${JSON.stringify(value)}'. Value should be an integer from 0 to ${MAX_QUOTA}`;
      expect(messageOf(UsageChangeBody, { release: { [key]: value } })).toBe(message);
      expect(messageOf(InUseBody, { in_use: { [key]: value } })).toBe(message);
    }
  });

  it('reads the action and its counts, the underscore spelling winning', () => {
    expect(parse(UsageChangeBody, { release: { healthmonitor: 2, health_monitor: 1, pool: 0 } })).toEqual({
      action: 'release',
      counts: { health_monitor: 1, pool: 0 },
    });
    expect(parse(InUseBody, { in_use: { l7rule: 7 } })).toEqual({ l7rule: 7 });
  });

  it.each([
    [null],
    [[1]],
    [{}],
    [{ reserve: { pool: 1 } }],
    [{ consume: { pool: 1 }, release: { pool: 1 } }],
    [{ consume: { pool: 1 }, release: { pool: -1 } }],
    [{ consume: { pool: -1 }, extra: 1 }],
  ])('%j does not name exactly one action', (body) => {
    expect(messageOf(UsageChangeBody, body)).toBe('The body must hold exactly one action: "consume" or "release".');
  });

  it.each([
    [{ consume: {} }, "Invalid input for field/attribute consume. Value: '{}'. Name at least one resource"],
    [{ consume: [1] }, "Invalid input for field/attribute consume. Value: '[1]'. Value should be an object"],
    [{ release: { vip: 1 } }, 'Unknown attribute for argument release: vip'],
  ])('%j is a 400: %s', (body, message) => {
    expect(messageOf(UsageChangeBody, body)).toBe(message);
  });

  it.each([
    [{}, 'Missing argument: "in_use"'],
    [{ in_use: {} }, "Invalid input for field/attribute in_use. Value: '{}'. Name at least one resource"],
    [{ in_use: { pool: 1 }, consume: {} }, 'Unknown attribute for argument in_use: consume'],
  ])('in_use %j is a 400: %s', (body, message) => {
    expect(messageOf(InUseBody, body)).toBe(message);
  });
});

describe("list query (Octavia's pagination helper)", () => {
  it('reads limit, marker, page_reverse, fields and the order', () => {
    expect(parse(ListQueryParams, {})).toEqual({ direction: 1, pageReverse: false });
    expect(
      parse(ListQueryParams, {
        limit: '5',
        marker: 'm',
        page_reverse: 'True',
        fields: ['project_id', 'pool,in_use_pool'],
        project_id: 'p',
      }),
    ).toEqual({ limit: 5, marker: 'm', pageReverse: true, fields: ['project_id', 'pool', 'in_use_pool'], projectId: 'p', direction: 1 });
    expect(parse(ListQueryParams, { limit: 'infinite' })).toMatchObject({ limit: 0 });
    expect(parse(ListQueryParams, { sort: 'project_id:desc' })).toMatchObject({ direction: -1 });
    expect(parse(ListQueryParams, { sort: 'project_id' })).toMatchObject({ direction: 1 });
    expect(parse(ListQueryParams, { sort_key: 'project_id', sort_dir: 'desc' })).toMatchObject({ direction: -1 });
    expect(parse(ListQueryParams, { sort_dir: 'desc' })).toMatchObject({ direction: -1 });
  });

  it.each([
    [{ sort: 'load_balancer:asc' }, "Supplied sort key 'load_balancer' is not valid."],
    [{ sort: 'project_id:up' }, "Supplied sort direction 'up' is not valid."],
    [{ sort_key: 'toString' }, "Supplied sort key 'toString' is not valid."],
    [{ sort_key: 'project_id', sort_dir: 'valueOf' }, "Supplied sort direction 'valueOf' is not valid."],
    [{ limit: 'abc' }, "Supplied pagination limit 'abc' is not valid."],
    [{ page_reverse: 'maybe' }, "Supplied page_reverse 'maybe' is not valid."],
    [{ tenant_id: 'x' }, 'One or more arguments are either duplicate or invalid'],
    [{ project_id: ['a', 'b'] }, 'One or more arguments are either duplicate or invalid'],
    [{ limit: ['1', '2'] }, 'One or more arguments are either duplicate or invalid'],
    [{ fields: 'colour,pool,size' }, 'Unknown field(s) requested: colour, size'],
    [{ fields: 'constructor' }, 'Unknown field(s) requested: constructor'],
    [{ project_id: '' }, 'Invalid input for field/attribute project_id. Value should be 1 to 255 characters'],
    [{ marker: 'a\u202eb' }, 'Invalid input for field/attribute marker. Value should hold no control or bidirectional-control characters'],
  ])('%j is a 400: %s', (query, message) => {
    expect(messageOf(ListQueryParams, query)).toBe(message);
  });

  it('an unknown parameter named like a prototype member is a 400', () => {
    // node's query parser gives an object without a prototype, whose own keys these are.
    for (const key of ['constructor', '__proto__', 'toString']) {
      const query = Object.create(null) as Record<string, string>;
      query[key] = '1';
      expect([key, messageOf(ListQueryParams, query)]).toEqual([key, 'One or more arguments are either duplicate or invalid']);
    }
  });
});

describe('show and delete queries', () => {
  it('show takes only fields, naming the seven limits', () => {
    expect(parse(ShowQueryParams, {})).toBeUndefined();
    expect(parse(ShowQueryParams, { fields: 'pool,member' })).toEqual(['pool', 'member']);
    expect(messageOf(ShowQueryParams, { fields: 'in_use_pool' })).toBe('Unknown field(s) requested: in_use_pool');
    expect(messageOf(ShowQueryParams, { colour: 'red' })).toBe('Unknown argument: "colour"');
    expect(LBAAS_RESOURCES.filter((r) => messageOf(ShowQueryParams, { fields: r }) !== 'ok')).toEqual([]);
  });

  it('force is true only as one `true`, in any case', () => {
    expect(parse(ResetQueryParams, { force: 'True' })).toBe(true);
    expect(parse(ResetQueryParams, {})).toBe(false);
    expect(parse(ResetQueryParams, { force: 'yes' })).toBe(false);
    expect(parse(ResetQueryParams, { force: ['true', 'true'] })).toBe(false);
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
