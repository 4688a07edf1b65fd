import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConversionError, DefinitionError, EventConverter } from './definitions';
import { decodeRecord, parseRecord, RejectedRecord } from './notification';

const ROOT = join(__dirname, '..', '..', '..', '..');
const lines = readFileSync(join(ROOT, 'deploy/samples/notifications.jsonl'), 'utf8').trim().split('\n');
const shipped = readFileSync(join(__dirname, '..', '..', 'etc', 'event_definitions.yaml'), 'utf8');
const ceilometer = readFileSync(join(__dirname, '..', '..', 'test', 'fixtures', 'ceilometer_event_definitions.yaml'), 'utf8');

const note = (over: Record<string, unknown>) => ({
  message_id: 'm-1',
  event_type: 'x.y',
  publisher_id: 'compute.host-1',
  priority: 'INFO',
  timestamp: '2026-11-20 08:15:01.5',
  payload: {},
  _context_request_id: 'req-1',
  _context_project_id: 'p-ctx',
  _context_user_id: 'u-ctx',
  ...over,
});

const traitsOf = (conv: EventConverter, msg: unknown) => {
  const d = decodeRecord(msg, { converter: conv });
  return Object.fromEntries((d.events[0]?.traits ?? []).map((t) => [t.name, `${t.type}:${t.value}`]));
};

describe('event definitions', () => {
  it.each([
    ['shipped', shipped],
    ["Ceilometer's own file, unchanged", ceilometer],
  ])('%s: every captured notification converts', (_name, text) => {
    const conv = EventConverter.fromYaml(text);
    const events = lines.flatMap((l) => decodeRecord(parseRecord(l), { converter: conv }).events);
    expect(events).toHaveLength(389);
    expect(new Set(events.map((e) => e.message_id)).size).toBe(389);
  });

  it("converts with Ceilometer's file as Ceilometer does (compute, image, volume, port, CADF identity, octavia)", () => {
    const conv = EventConverter.fromYaml(ceilometer);
    const byType = (t: string) => parseRecord(lines.find((l) => (parseRecord(l) as { event_type: string }).event_type === t) as string);
    const compute = traitsOf(conv, byType('compute.instance.create.end'));
    expect(compute).toMatchObject({
      service: 'String:compute',
      host: 'String:capture-compute',
      memory_mb: 'integer:256',
      resource_id: 'String:40c0a980-a947-45be-95a6-c7ed3180f03f',
      cell_name: 'String:',
      availability_zone: 'String:nova',
      launched_at: 'datetime:2026-11-20T12:20:00.013208'.replace('11-20', '11-21'),
    });
    expect(compute).not.toHaveProperty('deleted_at'); // '' is dropped for datetime traits
    expect(traitsOf(conv, byType('image.create'))).toMatchObject({
      user_id: 'String:2f66f0d537d740d79ad1e52238df492a',
      name: 'String:cap-image-1',
    });
    expect(traitsOf(conv, byType('port.create.end'))).toMatchObject({
      resource_id: 'String:dfcadec6-3359-46cd-bbfb-a73575214001',
      name: 'String:cap-port',
    });
    expect(traitsOf(conv, byType('octavia.loadbalancer.create.end'))).not.toHaveProperty('service'); // publisher_id null
    // volume_type.* has no Ceilometer definition: default traits only.
    expect(Object.keys(traitsOf(conv, byType('volume_type.create'))).sort()).toEqual([
      'project_id',
      'request_id',
      'service',
      'tenant_id',
      'user_id',
    ]);
  });

  it('follows the rules: last match wins, exclusions, default traits first and replaced in place, types', () => {
    const conv = EventConverter.fromYaml(`
- event_type: 'x.*'
  traits:
    a: payload.a
- event_type: ['x.*', '!x.skip']
  traits:
    project_id: payload.owner
    n: {type: int, fields: payload.n}
    f: {type: FLOAT, fields: payload.f}
    when: {type: datetime, fields: payload.when}
    first: {fields: ['payload.none', 'payload.b']}
    const: {type: int, fields: 7}
`);
    const t = traitsOf(conv, note({ payload: { owner: 'own', n: '12', f: 2, when: '2026-11-20T08:00:00+01:00', b: true, a: 'A' } }));
    expect(t).toEqual({
      service: 'String:compute.host-1',
      request_id: 'String:req-1',
      project_id: 'String:own',
      user_id: 'String:u-ctx',
      tenant_id: 'String:p-ctx',
      n: 'integer:12',
      f: 'float:2.0',
      when: 'datetime:2026-11-20T07:00:00.000000',
      first: 'String:True',
      const: 'integer:7',
    });
    // x.skip is excluded from the last definition, so the first one applies.
    expect(traitsOf(conv, note({ event_type: 'x.skip', payload: { a: 'A' } }))).toMatchObject({ a: 'String:A' });
    // Unmatched types get the default traits (drop_unmatched_notifications = False), or are dropped.
    expect(Object.keys(traitsOf(conv, note({ event_type: 'other' })))).toEqual([
      'service',
      'request_id',
      'project_id',
      'user_id',
      'tenant_id',
    ]);
    const dropping = EventConverter.fromYaml('[]', { dropUnmatched: true });
    expect(decodeRecord(note({}), { converter: dropping })).toEqual({
      events: [],
      dropped: { kind: 'unmatched', reason: 'no definition matches x.y' },
    });
  });

  it('runs the plugins: split, bitfield, timedelta, map', () => {
    const conv = EventConverter.fromYaml(`
- event_type: '*'
  traits:
    host: {fields: publisher_id, plugin: {name: split, parameters: {segment: 1, max_split: 1}}}
    flags:
      type: int
      fields: ['payload.a', 'payload.b', 'payload.c']
      plugin: {name: bitfield, parameters: {initial_bitfield: 8, flags: [{path: payload.a, bit: 0}, {path: payload.b, bit: 1, value: 'up'}, {path: payload.c, bit: 2, value: 'up'}]}}
    took: {type: float, fields: ['payload.start', 'payload.end'], plugin: timedelta}
    state: {fields: payload.s, plugin: {name: map, parameters: {values: {ACTIVE: up}, default: unknown, case_sensitive: false}}}
`);
    const t = traitsOf(
      conv,
      note({ payload: { a: 1, b: 'up', c: 'down', start: '2026-11-20T08:00:00', end: '2026-11-20T08:01:30.5', s: 'active' } }),
    );
    expect(t).toMatchObject({ host: 'String:host-1', flags: 'integer:11', took: 'float:90.5', state: 'String:up' });
  });

  it('keeps raw for the configured priorities only', () => {
    const conv = EventConverter.fromYaml('[]', { storeRaw: ['error'] });
    const info = decodeRecord(note({}), { converter: conv }).events[0];
    const error = decodeRecord(note({ priority: 'ERROR' }), { converter: conv }).events[0];
    expect(info?.raw).toEqual({});
    expect(error?.raw).toMatchObject({ event_type: 'x.y', ctxt: { request_id: 'req-1' }, metadata: { message_id: 'm-1' } });
  });

  it('refuses a notification whose trait does not convert, and bad definitions at load', () => {
    const conv = EventConverter.fromYaml("- event_type: '*'\n  traits:\n    n: {type: int, fields: payload.n}\n");
    expect(() => decodeRecord(note({ payload: { n: 'lots' } }), { converter: conv })).toThrow(RejectedRecord);
    expect(() => decodeRecord(note({ timestamp: 'yesterday' }), { converter: conv })).toThrow(/timestamp/);
    expect(decodeRecord(note({ priority: 'WARN' }), { converter: conv })).toEqual({
      events: [],
      dropped: { kind: 'priority', reason: 'priority WARN is not converted into events (only INFO and ERROR)' },
    });
    for (const bad of [
      "- event_type: '*'\n  traits:\n    n: {type: integer, fields: payload.n}\n",
      "- event_type: '*'\n  traits:\n    n: {type: int}\n",
      "- event_type: '*'\n  traits:\n    n: payload.[\n",
      '- traits: {}\n',
      "- event_type: '*'\n  traits:\n    n: {fields: payload.n, plugin: nosuch}\n",
      'not: [valid',
    ]) {
      expect(() => EventConverter.fromYaml(bad)).toThrow(DefinitionError);
    }
    expect(ConversionError).toBeDefined();
  });
});
