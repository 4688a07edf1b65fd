/**
 * Mutations only some operations have: trait filters and complex queries (event search), hostile notifications
 * (event ingestion).
 */
import fc from 'fast-check';
import { type Fixtures, type Mutation, m } from './draft';
import { HOSTILE_NUMBERS, HOSTILE_STRINGS, PROTOTYPE_NAMES, RAW, toJson, withOwnKey } from './hostile';
import type { Operation, Schema } from './operations';
import { isoDate } from './valid';

/** Mutations that only some operations have: q filters in a body, complex queries. */
export function specificMutations(op: Operation, resolve: (s: Schema) => Schema, fx: Fixtures): fc.Arbitrary<Mutation>[] {
  const out: fc.Arbitrary<Mutation>[] = [];
  const names = op.params.filter((p) => p.in === 'query').map((p) => p.name);
  if (names.includes('q.field')) {
    out.push(
      fc.constantFrom(...PROTOTYPE_NAMES, '', 'a\u0000b', '\u0000', ' ', '\u202eevil').map((f) =>
        m('q.field: prototype name, empty, NUL or bidi', (d) => {
          d.query.push(['q.field', f], ['q.value', '1']);
        }),
      ),
    );
  }
  const props = op.body ? (resolve(op.body).properties ?? {}) : {};
  if (Object.hasOwn(props, 'q')) {
    out.push(
      fc
        .tuple(
          fc.constantFrom(...PROTOTYPE_NAMES, '', 'a\u0000b', ' ', '\u202e', 'a.b', '$gt'),
          fc.constantFrom<unknown>('x', 1, null, {}, [], RAW('1e400')),
        )
        .map(([f, v]) =>
          m('body q[].field: prototype name, empty, NUL or bidi', (d) => {
            d.body = { json: { q: [withOwnKey(withOwnKey({}, 'field', f), 'value', v)] } };
          }),
        ),
    );
  }
  if (Object.hasOwn(props, 'filter')) out.push(complexQueryMutation());
  if (op.path.endsWith('/ingest/events')) out.push(hostileEvents(), storableHostileEvents(fx));
  if (op.params.some((p) => p.in === 'header' && p.name === 'If-Match')) {
    out.push(
      fc
        .constantFrom('', '*', '"', 'W/', 'W/"1"', '"1", "2"', '"constructor"', '"__proto__"', 'x'.repeat(5000), '"-1"', '"1e400"')
        .map((v) =>
          m('If-Match: hostile', (d) => {
            d.headers = d.headers.filter(([k]) => k !== 'If-Match');
            d.headers.push(['If-Match', v]);
          }),
        ),
    );
  }
  if (op.method === 'POST' && op.path.endsWith('/usage')) {
    // Keys reused across the run (with other counts: a 422), malformed ones (a 400), prototype names.
    out.push(
      fc
        .constantFrom(
          'fuzz-key-1',
          'fuzz-key-2',
          '"fuzz-key-1"',
          '',
          '"',
          '"unterminated',
          'k'.repeat(256),
          'ü',
          'a\u0001b',
          ...PROTOTYPE_NAMES,
        )
        .map((key) =>
          m('Idempotency-Key: reused, malformed or prototype-named', (d) => {
            d.headers.push(['Idempotency-Key', key]);
          }),
        ),
    );
  }
  return out;
}

/** A Panko complex query whose filter or orderby names hostile fields, operators or values. */
function complexQueryMutation(): fc.Arbitrary<Mutation> {
  const name = fc.constantFrom(...HOSTILE_STRINGS, 'traits.a\u0000b', 'event_type');
  const op = fc.constantFrom('=', 'in', '$where', 'constructor', '__proto__', 'and', 'not', '=~', '');
  const value = fc.oneof(
    fc.constantFrom(...HOSTILE_STRINGS),
    fc.constantFrom(...HOSTILE_NUMBERS),
    fc.constant([]),
    fc.constant({}),
    fc.constant(null),
  );
  const leaf = fc.tuple(op, name, value).map(([o, f, v]) => withOwnKey({}, o, withOwnKey({}, f, v)));
  const filter = fc.oneof(
    leaf,
    fc.tuple(fc.constantFrom('and', 'or', 'not', 'constructor'), fc.array(leaf, { maxLength: 3 })).map(([o, xs]) => withOwnKey({}, o, xs)),
    fc.constantFrom<unknown>('{', '[]', '""', '{"and":[]}', '{"and":{}}', 'null', 1, true),
  );
  const orderby = fc.oneof(
    fc.constant(undefined),
    fc
      .tuple(name, fc.constantFrom('asc', 'desc', 'sideways', '', 'constructor'))
      .map(([f, dir]) => JSON.stringify([withOwnKey({}, f, dir)])),
    fc.constantFrom('{', '[1]', '[{}]', '[{"a":"asc","b":"desc"}]', 'null'),
  );
  return fc.tuple(filter, orderby).map(([f, o]) =>
    m('filter: hostile complex query (fields, operators, values, orderby)', (d) => {
      const body: Record<string, unknown> = { filter: typeof f === 'string' ? f : toJson(f) };
      if (o !== undefined) body.orderby = o;
      d.body = { json: body };
    }),
  );
}

/**
 * Well-formed events whose trait names and text values are hostile (prototype names, NUL, bidi, dots, `$`), as a
 * service could emit them: stored, then read back by every event query of the run (and by their projects' members).
 */
function storableHostileEvents(fx: Fixtures): fc.Arbitrary<Mutation> {
  const name = fc.constantFrom(...HOSTILE_STRINGS.filter((x) => x !== ''), 'a.b.c', '$set', 'x'.repeat(300));
  const text = fc.constantFrom(...HOSTILE_STRINGS);
  const trait = fc.oneof(
    fc.tuple(name, fc.constant(1), text),
    fc.tuple(name, fc.constant(2), fc.integer()),
    fc.tuple(name, fc.constant(3), fc.double({ noNaN: true, noDefaultInfinity: true })),
    fc.tuple(name, fc.constant(4), isoDate),
  );
  const event = fc.record({
    message_id: fc.uuid(),
    event_type: fc.constantFrom('compute.instance.create.end', 'constructor', '__proto__', 'a\u0000b', '\u202eevil', 'x'.repeat(300)),
    generated: isoDate,
    traits: fc
      .tuple(fc.constant('project_id'), fc.constant(1), fc.constantFrom(...fx.projects, 'p'))
      .chain((pt) => fc.array(trait, { minLength: 1, maxLength: 5 }).map((ts) => [pt, ...ts])),
    raw: fc.constant({}),
  });
  return fc.array(event, { minLength: 1, maxLength: 3 }).map((events) =>
    m('events with hostile trait names and values (storable)', (d) => {
      d.body = { json: events };
    }),
  );
}

/**
 * Events with hostile traits (prototype, NUL, bidi and dotted names; values that do not match their type code),
 * odd dates and envelopes: stored ones are then read back by every event query the run sends.
 */
function hostileEvents(): fc.Arbitrary<Mutation> {
  const traitName = fc.constantFrom(...HOSTILE_STRINGS, 'project_id', 'a.b.c', '$set', 'x'.repeat(300));
  const traitValue = fc.oneof(
    fc.constantFrom(...HOSTILE_STRINGS),
    fc.constantFrom(...HOSTILE_NUMBERS),
    fc.constant(null),
    fc.constant({ a: 1 }),
    fc.constant([1]),
  );
  const trait = fc.tuple(traitName, fc.constantFrom<unknown>(0, 1, 2, 3, 4, 5, -1, '1', null), traitValue);
  const generated = fc.constantFrom<unknown>(
    '2026-13-45T00:00:00',
    '',
    'now',
    1e20,
    null,
    '0000-01-01T00:00:00',
    '9999-12-31T23:59:59.999999',
    '2026-11-24T00:00:00+14:00',
  );
  const serialized = fc.record({
    message_id: fc.oneof(fc.uuid(), fc.constantFrom(...HOSTILE_STRINGS)),
    event_type: fc.oneof(fc.constantFrom('compute.instance.create.end'), fc.constantFrom(...HOSTILE_STRINGS)),
    generated: fc.oneof(isoDate, generated),
    traits: fc.array(trait, { maxLength: 5 }),
    raw: fc.constantFrom<unknown>({}, { __proto__x: 1 }, JSON.parse('{"__proto__":{"a":1}}'), 'raw'),
  });
  const notification = fc.record({
    message_id: fc.uuid(),
    event_type: fc.constantFrom('compute.instance.create.end', 'port.update.end', ...PROTOTYPE_NAMES),
    timestamp: fc.oneof(isoDate, generated),
    priority: fc.constantFrom('INFO', 'DEBUG', 'ERROR', 'constructor', ''),
    payload: fc.constantFrom<unknown>(
      'a string payload',
      { tenant_id: '__proto__', instance_id: '\u0000' },
      null,
      [],
      JSON.parse('{"__proto__":{"tenant_id":"x"}}'),
    ),
  });
  const envelope = fc.record({
    'oslo.version': fc.constantFrom('2.0', '9.0', '', '2'),
    'oslo.message': fc.constantFrom('{', '{}', '"x"', JSON.stringify({ message_id: 'x', event_type: 'a', timestamp: 'b', payload: 'c' })),
  });
  return fc.array(fc.oneof(serialized, notification, envelope), { minLength: 1, maxLength: 5 }).map((events) =>
    m('events: malformed records, dates and envelopes', (d) => {
      d.body = { json: events };
    }),
  );
}
