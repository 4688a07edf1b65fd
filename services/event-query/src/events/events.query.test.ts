import { AppError } from '@stratum/http-kit';
import { Long } from 'mongodb';
import { parseQueryJson, safePattern, translateComplexFilter } from './events.complex';
import { afterMarker, translateListSort, translateOrderBy } from './events.order';
import { mergeAnd, translateSimpleQuery } from './events.query';

const member = { ownProject: 'p1' };
const admin = { ownProject: null };

function statusOf(fn: () => unknown): number | undefined {
  try {
    fn();
  } catch (err) {
    return err instanceof AppError ? err.status : -1;
  }
  return undefined;
}

describe('complex query translation', () => {
  it("maps docs/api/events.md A2's filter to one plain filter (no $and) with both time bounds on generated", () => {
    const f = parseQueryJson(
      '{"and":[{"=":{"resource_id":"r1"}},{">=":{"timestamp":"2026-11-20T00:00:00"}},{"<=":{"timestamp":"2026-11-21T00:00:00"}},{"=":{"event_type":"port.update.end"}}]}',
      '',
    );
    expect(translateComplexFilter(f, member)).toEqual({
      resource_id: { $eq: 'r1' },
      generated: { $gte: '2026-11-20T00:00:00.000000', $lte: '2026-11-21T00:00:00.000000' },
      event_type: { $eq: 'port.update.end' },
    });
  });

  it('encodes trait names with dots and accepts operators in any case and the =< => aliases', () => {
    expect(translateComplexFilter({ OR: [{ '=<': { 'a.b': 1 } }, { '=>': { 'a-b': 2 } }] }, member)).toEqual({
      $or: [{ 't.a%2Eb': { $lte: 1 } }, { 't.a-b': { $gte: 2 } }],
    });
  });

  it('keeps integers beyond 2^53 exact', () => {
    const f = parseQueryJson('{"=":{"big":9007199254740993}}', '');
    expect(translateComplexFilter(f, member)).toEqual({ 't.big': { $eq: Long.fromBigInt(9007199254740993n) } });
  });

  it('lets a timestamp-shaped string match a datetime trait stored in canonical form', () => {
    expect(translateComplexFilter({ '=': { launched_at: '2026-11-20T10:00:00' } }, member)).toEqual({
      't.launched_at': { $in: ['2026-11-20T10:00:00', '2026-11-20T10:00:00.000000'] },
    });
  });

  it.each([
    [{}, /exactly one operator, got 0/],
    [{ '=': {} }, /exactly one field, got 0/],
    [{ or: [{ '=': { a: 1 } }] }, /at least 2 expressions/],
    [{ or: [] }, /at least 2 expressions/],
    [{ in: { a: [] } }, /non-empty list/],
    [{ '==': { a: 1 } }, /operator == is not supported/],
    [{ xor: [] }, /operator xor is not supported/],
    [{ '=': { a: null } }, /must be a string, a number or a boolean/],
    [{ '=': { a: { b: 1 } } }, /must be a string, a number or a boolean/],
    [{ '=': { ' ': 1 } }, /empty field name/],
    [{ '<': { timestamp: 5 } }, /timestamp must be compared with a timestamp string/],
    [{ '=~': { timestamp: 'x' } }, /=~ cannot be used on timestamp/],
  ])('refuses %j with a 400 that says why', (filter, message) => {
    expect(() => translateComplexFilter(filter, member)).toThrow(message);
    expect(statusOf(() => translateComplexFilter(filter, member))).toBe(400);
  });

  it('bounds nesting depth and size so a hostile filter cannot cost unbounded work', () => {
    let f: unknown = { '=': { a: 1 } };
    for (let i = 0; i < 40; i++) f = { not: f };
    expect(() => translateComplexFilter(f, member)).toThrow(/nested deeper than/);
    const wide = { or: Array.from({ length: 300 }, (_, i) => ({ '=': { a: i } })) };
    expect(() => translateComplexFilter(wide, member)).toThrow(/more than 256 expressions/);
  });

  it('refuses a non-admin naming another project, in any operator, with 403; admins may', () => {
    for (const f of [{ '=': { project_id: 'p2' } }, { in: { project_id: ['p1', 'p2'] } }, { '!=': { tenant_id: 'p2' } }]) {
      expect(statusOf(() => translateComplexFilter({ not: f }, member))).toBe(403);
      expect(statusOf(() => translateComplexFilter(f, admin))).toBeUndefined();
    }
    expect(translateComplexFilter({ '=': { project_id: 'p1' } }, member)).toEqual({ project_id: { $eq: 'p1' } });
  });

  it('refuses a field ordered twice and orders an empty orderby list newest first', () => {
    expect(() => translateOrderBy([{ timestamp: 'asc' }, { generated: 'desc' }])).toThrow(/generated is ordered twice/);
    expect(translateOrderBy([])).toEqual([
      ['generated', -1],
      ['_id', -1],
    ]);
  });

  it('bounds the values of in lists', () => {
    const values = Array.from({ length: 2000 }, (_, i) => i);
    expect(() => translateComplexFilter({ in: { a: values } }, member)).toThrow(/values in in lists/);
  });

  it('reports malformed JSON text with the given prefix', () => {
    expect(() => parseQueryJson('{"and": [', 'Filter expression not valid: ')).toThrow(/^Filter expression not valid: /);
  });
});

describe('=~ patterns', () => {
  it.each(['^compute\\.instance\\..*\\.end$', 'port', 'colou?r', '^[a-f0-9]{8}-', '\\d{3}x'])('accepts %s', (p) => {
    expect(safePattern(p)).toBe(p);
  });

  it.each([
    ['(a+)+$', /groups and alternation/],
    ['a|b', /groups and alternation/],
    ['a*a*b', /at most one variable-length quantifier/],
    ['.*x.+', /at most one variable-length quantifier/],
    ['a{1,1000}', /repeat counts/],
    ['(?=x)', /groups/],
    ['\\1', /escape \\1 is not supported/],
    ['\\u0041', /escape \\u is not supported/],
    ['[z-a]', /Range out of order/],
    ['a^', /\^ may only start/],
    ['*a', /nothing to repeat/],
    ['x'.repeat(300), /longer than 256/],
  ])('refuses %s', (p, message) => {
    expect(() => safePattern(p)).toThrow(message);
  });
});

describe('simple query translation', () => {
  it('lets only admins lift the project restriction with all_tenants', () => {
    expect(translateSimpleQuery([{ field: 'all_tenants', op: 'eq', value: 'True', type: '' }], true).allTenants).toBe(true);
    const asMember = translateSimpleQuery([{ field: 'all_tenants', op: 'eq', value: 'True', type: '' }], false);
    expect(asMember.allTenants).toBe(false);
    expect(asMember.filter).toEqual({ 't.all_tenants': 'True' });
  });

  it('puts resource_id and both time bounds in one plain filter', () => {
    const { filter } = translateSimpleQuery(
      [
        { field: 'resource_id', op: 'eq', value: 'r1', type: '' },
        { field: 'start_timestamp', op: 'ge', value: '2026-11-20', type: '' },
        { field: 'end_timestamp', op: 'le', value: '2026-11-21T00:00:00+01:00', type: '' },
      ],
      false,
    );
    expect(filter).toEqual({ resource_id: 'r1', generated: { $gte: '2026-11-20T00:00:00.000000', $lte: '2026-11-20T23:00:00.000000' } });
  });

  it('keeps integer values beyond 2^53 exact and requires the trait to exist for ne', () => {
    expect(translateSimpleQuery([{ field: 'n', op: 'ne', value: '9007199254740993', type: 'Integer' }], false).filter).toEqual({
      't.n': { $exists: true, $ne: Long.fromBigInt(9007199254740993n) },
    });
  });
});

describe('order and paging', () => {
  it('appends message_id as a tiebreaker to the order', () => {
    expect(translateOrderBy([{ timestamp: 'DESC' }])).toEqual([
      ['generated', -1],
      ['_id', -1],
    ]);
    expect(translateListSort([])).toEqual([
      ['generated', 1],
      ['_id', 1],
    ]);
  });

  it('refuses unknown sort keys and directions with Panko messages', () => {
    expect(() => translateListSort(['invalid_key:desc'])).toThrow(/Invalid input for field\/attribute sort\. Value: 'invalid_key:desc'/);
    expect(() => translateListSort(['message_id:bah'])).toThrow(
      /Invalid input for field\/attribute sort direction\. Value: 'message_id:bah'/,
    );
  });

  it('builds the keyset condition after a marker for mixed directions', () => {
    const sort = translateListSort(['event_type:asc', 'generated:desc']);
    expect(afterMarker(sort, { event_type: 'a', generated: 'g', _id: 'm' })).toEqual({
      event_type: { $gte: 'a' },
      $or: [
        { event_type: { $gt: 'a' } },
        { event_type: 'a', generated: { $lt: 'g' } },
        { event_type: 'a', generated: 'g', _id: { $lt: 'm' } },
      ],
    });
  });

  it('merges AND parts into plain conditions and keeps real clashes in $and', () => {
    expect(mergeAnd({ a: 1 }, { b: { $gt: 1 } }, { b: { $lt: 5 } }, { $and: [{ c: 2 }] })).toEqual({ a: 1, b: { $gt: 1, $lt: 5 }, c: 2 });
    expect(mergeAnd({ a: 1 }, { a: 2 })).toEqual({ a: 1, $and: [{ a: 2 }] });
    expect(mergeAnd({ a: { $gt: 1 } }, { a: { $gt: 2 } })).toEqual({ a: { $gt: 1 }, $and: [{ a: { $gt: 2 } }] });
  });
});
