import type { Event } from '@stratum/traits';
import { LosslessNumber } from 'lossless-json';
import { Long } from 'mongodb';
import { encodeTraitName, eventJson, eventsJson, scopeOf, toEventDoc, traitsOf, typedTraitValue } from './events.model';

const event = (over: Partial<Event> = {}): Event => ({
  message_id: 'm-1',
  event_type: 'port.update.end',
  generated: '2026-11-20T10:00:00.5',
  traits: [
    { name: 'resource_id', type: 'String', value: 'r-1' },
    { name: 'tenant_id', type: 'String', value: 't-1' },
    { name: 'size', type: 'integer', value: '9007199254740993' },
  ],
  raw: {},
  ...over,
});

describe('the stored document', () => {
  it('keeps generated canonical, the scope, resource_id and the typed traits', () => {
    const doc = toEventDoc(event());
    expect(doc).toMatchObject({
      _id: 'm-1',
      generated: '2026-11-20T10:00:00.500000',
      project_id: 't-1',
      resource_id: 'r-1',
      raw: '{}',
    });
    expect(doc.t.size).toEqual(Long.fromBigInt(9007199254740993n));
    expect(traitsOf(doc)).toEqual(event().traits);
  });

  it('refuses a generated that is not a timestamp', () => {
    expect(() => toEventDoc(event({ generated: 'yesterday' }))).toThrow('generated is not a timestamp: yesterday');
  });

  it('holds a trait named __proto__ as an own field', () => {
    const doc = toEventDoc(event({ traits: [{ name: '__proto__', type: 'String', value: 'x' }] }));
    expect(Object.keys(doc.t)).toEqual(['__proto__']);
  });

  it('writes raw numbers as they arrived', () => {
    const doc = toEventDoc(event({ raw: { n: new LosslessNumber('12345678901234567890') } as Event['raw'] }));
    expect(doc.raw).toBe('{"n":12345678901234567890}');
  });

  it('scopes by project_id, else tenant_id, else none', () => {
    expect(
      scopeOf([
        { name: 'project_id', type: 'String', value: 'p' },
        { name: 'tenant_id', type: 'String', value: 't' },
      ]),
    ).toBe('p');
    expect(scopeOf([{ name: 'tenant_id', type: 'String', value: 't' }])).toBe('t');
    expect(scopeOf([{ name: 'project_id', type: 'String', value: '' }])).toBeNull();
  });

  it.each([
    [{ name: 'n', type: 'integer', value: '-42' }, Long.fromNumber(-42)],
    [{ name: 'n', type: 'integer', value: '123456789012345678901234567890' }, '123456789012345678901234567890'],
    [{ name: 'n', type: 'integer', value: 'x' }, 'x'],
    [{ name: 'f', type: 'float', value: '1.5' }, 1.5],
    [{ name: 'd', type: 'datetime', value: '2026-11-20T10:00:00' }, '2026-11-20T10:00:00.000000'],
    [{ name: 's', type: 'String', value: '007' }, '007'],
  ] as const)('types %j for filters', (trait, expected) => {
    expect(typedTraitValue(trait)).toEqual(expected);
  });

  it('encodes field names MongoDB would refuse or split', () => {
    expect(encodeTraitName('a.b%c')).toBe('a%2Eb%25c');
    expect(encodeTraitName('$x$')).toBe('%24x$');
  });
});

describe('the wire JSON of stored events', () => {
  it('splices the stored traits and raw text in as they are', () => {
    const doc = toEventDoc(event({ raw: { a: 1 } }));
    const text = eventJson(doc);
    expect(JSON.parse(text)).toEqual({
      message_id: 'm-1',
      event_type: 'port.update.end',
      generated: '2026-11-20T10:00:00.500000',
      traits: event().traits,
      raw: { a: 1 },
    });
    expect(text).toContain('"value":"9007199254740993"');
  });

  it('writes an empty raw as {} and a list as a JSON array', () => {
    const doc = { ...toEventDoc(event()), raw: '' };
    expect(JSON.parse(eventJson(doc)).raw).toEqual({});
    expect(eventsJson([])).toBe('[]');
    expect(JSON.parse(eventsJson([doc, doc]))).toHaveLength(2);
  });
});
