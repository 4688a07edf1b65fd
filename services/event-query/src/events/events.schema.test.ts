import type { z } from 'zod';
import * as errors from '../errors';
import { AllTenantsQuery, ComplexQueryBody, ListBody, ListQueryString, listInput, PageQuery, QItem } from './events.schema';

/** The first issue's message (the 400 group A answers), or the parsed value. */
function parse<S extends z.ZodType>(schema: S, input: unknown): { ok: z.output<S> } | { error: string } {
  const r = schema.safeParse(input);
  return r.success ? { ok: r.data } : { error: r.error.issues[0]?.message ?? '' };
}
const message = (e: Error) => ({ error: e.message });

describe('limit bounds', () => {
  it.each([
    ['1', 1],
    ['100', 100],
    [' 7 ', 7],
    ['', undefined],
  ])('the list query takes limit=%j', (limit, expected) => {
    expect(parse(ListQueryString, { limit })).toEqual({ ok: expected === undefined ? { limit: undefined } : { limit: expected } });
  });

  it.each([
    ['0', errors.limitNotPositive('0')],
    ['-2', errors.limitNotPositive('-2')],
    ['1.5', errors.limitNotInteger('1.5')],
    ['abc', errors.limitNotInteger('abc')],
    ['9007199254740993', errors.limitNotInteger('9007199254740993')],
    [['1', '2'], errors.limitNotInteger('1,2')],
  ])('the list query refuses limit=%j', (limit, error) => {
    expect(parse(ListQueryString, { limit })).toEqual(message(error));
  });

  it('the list body takes a number or its text, null as none, and refuses other types', () => {
    expect(parse(ListBody, { limit: 1 })).toEqual({ ok: { limit: 1 } });
    expect(parse(ListBody, { limit: '3' })).toEqual({ ok: { limit: 3 } });
    expect(parse(ListBody, { limit: null })).toEqual({ ok: { limit: undefined } });
    expect(parse(ListBody, { limit: 0 })).toEqual(message(errors.limitNotPositive('0')));
    expect(parse(ListBody, { limit: true })).toEqual(message(errors.limitNotInteger('true')));
  });

  it('the trait-values query takes limit once', () => {
    expect(parse(PageQuery, { limit: '1' })).toEqual({ ok: { limit: 1 } });
    expect(parse(PageQuery, { limit: '0' })).toEqual(message(errors.limitNotPositive('0')));
    expect(parse(PageQuery, { limit: ['1', '2'] })).toEqual(message(errors.givenSeveralTimes('limit')));
  });

  it('the complex query takes a number or its text, other types in its own words', () => {
    expect(parse(ComplexQueryBody, { limit: 1 })).toEqual({ ok: { limit: 1 } });
    expect(parse(ComplexQueryBody, { limit: -1 })).toEqual(message(errors.limitNotPositive('-1')));
    expect(parse(ComplexQueryBody, { limit: true })).toEqual(message(errors.invalidQueryBody('limit', 'Invalid input')));
  });
});

describe('q items', () => {
  it('positional q.* keys form filters in order, op eq and type "" by default', () => {
    expect(parse(ListQueryString, { 'q.field': ['a', 'b'], 'q.op': 'ne', 'q.value': ['1', '2'], 'q.type': ['integer'] })).toEqual({
      ok: {
        q: [
          { field: 'a', op: 'ne', value: '1', type: 'integer' },
          { field: 'b', op: 'eq', value: '2', type: '' },
        ],
      },
    });
  });

  it('indexed q[i].* keys come after the positional ones, by index; a repeated one counts its last value', () => {
    const parsed = parse(ListQueryString, {
      'q[1].field': 'y',
      'q[1].value': 'y1',
      'q[0].field': 'x',
      'q[0].value': ['x0', 'x1'],
      'q.field': 'p',
      'q.value': 'p1',
    });
    expect(parsed).toEqual({
      ok: {
        q: [
          { field: 'p', op: 'eq', value: 'p1', type: '' },
          { field: 'x', op: 'eq', value: 'x1', type: '' },
          { field: 'y', op: 'eq', value: 'y1', type: '' },
        ],
      },
    });
  });

  it.each([
    [{ 'q.field': ['a', 'b'], 'q.value': 'x' }, errors.qValueMissing()],
    [{ 'q[0].field': 'a' }, errors.qElementIncomplete()],
    [{ 'q[0].value': 'a' }, errors.qElementIncomplete()],
    [{ 'q.bogus': 'a' }, errors.unknownArgument('q.bogus')],
    [{ q: 'a' }, errors.unknownArgument('q')],
    [{ bad_Stuff_here: '1' }, errors.unknownArgument('bad_Stuff_here')],
    [{ marker: ['a', 'b'] }, errors.markerNotOne()],
  ])('the list query refuses %j', (query, error) => {
    expect(parse(ListQueryString, query)).toEqual(message(error));
  });

  it('a body q element is {field, value} with optional op and type; a value may be a number or a boolean', () => {
    expect(parse(QItem, { field: 'n', value: 5 })).toEqual({ ok: { field: 'n', op: 'eq', value: '5', type: '' } });
    expect(parse(QItem, { field: 'b', op: 'ne', value: false, type: 'string' })).toEqual({
      ok: { field: 'b', op: 'ne', value: 'false', type: 'string' },
    });
  });

  it.each([
    [[{ field: 'a' }], 'Invalid input'],
    [[{ value: 'a' }], 'Invalid input: expected string, received undefined'],
    [[{ field: '', value: 'a' }], 'Too small: expected string to have >=1 characters'],
    [[{ field: 'a', value: 'b', op: 3 }], 'Invalid input: expected string, received number'],
    [[{ field: 'a', value: 'b', constructor: 'z' }], 'Unrecognized key: "constructor"'],
    ['a', 'Invalid input: expected array, received string'],
  ])('a body q of %j is Panko\'s "Invalid input for field/attribute q" with zod\'s reason', (q, reason) => {
    expect(parse(ListBody, { q })).toEqual(message(errors.invalidQ(reason)));
  });

  it.each([
    [[], errors.bodyNotObject()],
    [null, errors.bodyNotObject()],
    ['q', errors.bodyNotObject()],
    [{ nope: 1 }, errors.unknownArgument('nope')],
    [JSON.parse('{"__proto__": {"limit": 1}}'), errors.unknownArgument('__proto__')],
    [{ marker: 5 }, errors.markerNotOne()],
  ])('the list body refuses %j', (body, error) => {
    expect(parse(ListBody, body)).toEqual(message(error));
  });
});

describe('sort', () => {
  it('one sort or several, from the query string or the body', () => {
    expect(parse(ListQueryString, { sort: 'generated:desc' })).toEqual({ ok: { sort: ['generated:desc'] } });
    expect(parse(ListQueryString, { sort: ['event_type', 'message_id:asc'] })).toEqual({ ok: { sort: ['event_type', 'message_id:asc'] } });
    expect(parse(ListBody, { sort: 'generated' })).toEqual({ ok: { sort: ['generated'] } });
    expect(parse(ListBody, { sort: ['generated', 'event_type'] })).toEqual({ ok: { sort: ['generated', 'event_type'] } });
  });

  it('a body sort that is not text is an invalid sort key', () => {
    expect(parse(ListBody, { sort: 5 })).toEqual(message(errors.invalidSortKey('5')));
  });
});

describe('the list from both parts', () => {
  it('takes each argument from the part that gave it', () => {
    expect(listInput({ limit: 3 }, { q: [{ field: 'a', op: 'eq', value: 'b', type: '' }], marker: 'm' })).toEqual({
      q: [{ field: 'a', op: 'eq', value: 'b', type: '' }],
      limit: 3,
      sort: [],
      marker: 'm',
    });
    expect(listInput({}, undefined)).toEqual({ q: [], limit: undefined, sort: [], marker: undefined });
  });

  it('refuses an argument given in both, even an empty one', () => {
    expect(() => listInput({ q: [] }, { q: [] })).toThrow(errors.givenSeveralTimes('q').message);
    expect(() => listInput({ limit: undefined }, { limit: 2 })).toThrow(errors.givenSeveralTimes('limit').message);
  });
});

describe('all_tenants', () => {
  it.each([
    ['true', true],
    ['YES', true],
    [' 1 ', true],
    ['off', false],
    ['', false],
  ])('all_tenants=%j is %s', (value, expected) => {
    expect(parse(AllTenantsQuery, { all_tenants: value })).toEqual({ ok: { all_tenants: expected } });
  });

  it.each([
    [{ all_tenants: 'maybe' }, errors.notBoolean('all_tenants', 'maybe')],
    [{ all_tenants: ['1', '0'] }, errors.givenSeveralTimes('all_tenants')],
    [{ limit: '1' }, errors.unknownArgument('limit')],
  ])('the event reads refuse %j', (query, error) => {
    expect(parse(AllTenantsQuery, query)).toEqual(message(error));
  });
});

describe('complex-query grammar errors', () => {
  it('parses filter and orderby JSON text, keeping integers beyond 2^53 exact', () => {
    const parsed = parse(ComplexQueryBody, { filter: '{"=":{"n":9007199254740993}}', orderby: '[{"timestamp":"asc"}]' });
    expect(parsed).toEqual({ ok: { filter: { '=': { n: expect.anything() } }, orderby: [{ timestamp: 'asc' }] } });
    expect(String((parsed as { ok: { filter: { '=': { n: unknown } } } }).ok.filter['=']['n'])).toBe('9007199254740993');
  });

  it.each([
    [{ filter: '{"and": [' }, /^Filter expression not valid: /],
    [{ filter: '{"=":1} trailing' }, /^Filter expression not valid: /],
    [{ orderby: 'x' }, /^Order-by expression not valid: /],
    [{ filter: 5 }, /^Invalid query body: filter: Invalid input$/],
    [{ orderby: {} }, /^Invalid query body: orderby: Invalid input$/],
    [{ nonsense: 1 }, /^Invalid query body: body: Unrecognized key: "nonsense"$/],
    [[], /^Invalid query body: body: Invalid input: expected object, received array$/],
    [{ desc: 'sideways' }, /^Invalid input for field\/attribute desc\. Value: 'sideways'\. Expected true\/false or asc\/desc\.$/],
    [{ all_tenants: 'maybe' }, /^Invalid input for field\/attribute all_tenants\. Value: 'maybe'\. Expected a boolean\.$/],
    [{ all_tenants: 3 }, /^Invalid query body: all_tenants: Invalid input$/],
  ])('refuses %j', (body, expected) => {
    const r = parse(ComplexQueryBody, body);
    expect('error' in r ? r.error : 'parsed').toMatch(expected);
  });

  it.each([
    [undefined, undefined],
    ['', true],
    [true, true],
    ['DESC', true],
    ['yes', true],
    [false, false],
    [' asc ', false],
    ['0', false],
    [' ', false],
  ])('desc %j is %s', (desc, expected) => {
    expect(parse(ComplexQueryBody, desc === undefined ? {} : { desc })).toEqual({ ok: desc === undefined ? {} : { desc: expected } });
  });
});
