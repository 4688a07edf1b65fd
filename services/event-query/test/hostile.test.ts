/**
 * Client input that once reached a 500: names that are also Object.prototype members, empty and NUL-bearing trait
 * names, malformed percent-encoding in every id route, and garbage ingest bodies. Each answers 2xx or a 4xx in
 * Panko's shape, never a 5xx.
 */
import request from 'supertest';
import { at, craftedStack, event, ids } from './crafted';

const PROTO_NAMES = ['constructor', '__proto__', 'hasOwnProperty', 'toString', 'valueOf'];

/** A 4xx in Panko's shape: `{"error_message":{"faultcode":"Client","faultstring":…,"debuginfo":null}}`. */
function expectPankoClientError(res: request.Response, status = 400): void {
  expect({ status: res.status, body: res.body }).toEqual({
    status,
    body: { error_message: { faultcode: 'Client', faultstring: expect.any(String), debuginfo: null } },
  });
}

describe('group A: hostile names and bodies', () => {
  const ctx = craftedStack();
  const { seed, as } = ctx;
  const type = `hostile.${Date.now()}`;
  let stored: string[] = [];

  beforeAll(async () => {
    const events = await seed(
      [...PROTO_NAMES, 'with space'].map((name, i) =>
        event({ type, generated: at(i + 1), project: ctx.stack.projectA, traits: [{ name, type: 'String', value: `v-${name}` }] }),
      ),
    );
    stored = events.map((e) => e.message_id);
  });

  const get = (path: string) => request(ctx.stack.gateway).get(path).set(as('memberA'));
  const admin = (path: string) => request(ctx.stack.gateway).get(path).set(as('admin'));

  it.each(PROTO_NAMES)('q.field=%s is a plain trait name: it finds the event that has it, and nothing else', async (name) => {
    const hit = await get(`/v2/events?q.field=event_type&q.value=${type}&q.field=${name}&q.op=eq&q.value=v-${name}`);
    expect(hit.status).toBe(200);
    expect(ids(hit)).toEqual([stored[PROTO_NAMES.indexOf(name)]]);
    const miss = await get(`/v2/events?q.field=${name}&q.op=eq&q.value=nope`);
    expect(miss.status).toBe(200);
    expect(miss.body).toEqual([]);
    const body = await request(ctx.stack.gateway)
      .get('/v2/events')
      .set(as('memberA'))
      .send({ q: [{ field: name, value: `v-${name}` }] });
    expect(ids(body)).toEqual([stored[PROTO_NAMES.indexOf(name)]]);
  });

  it.each(PROTO_NAMES)('a complex query on trait %s finds it; %s as an operator or order key is a 400', async (name) => {
    const hit = await request(ctx.stack.gateway)
      .post('/v2/query/events')
      .set(as('memberA'))
      .send({ filter: JSON.stringify({ and: [{ '=': { event_type: type } }, { '=': { [name]: `v-${name}` } }] }) });
    expect(hit.status).toBe(200);
    expect(ids(hit)).toEqual([stored[PROTO_NAMES.indexOf(name)]]);
    for (const body of [{ filter: `{"${name}":{"a":"b"}}` }, { orderby: `[{"${name}":"asc"}]` }]) {
      expectPankoClientError(await request(ctx.stack.gateway).post('/v2/query/events').set(as('memberA')).send(body));
    }
  });

  it.each(PROTO_NAMES)('sort=%s is a 400 naming the sort keys', async (name) => {
    const res = await get(`/v2/events?sort=${name}`);
    expectPankoClientError(res);
    expect(res.body.error_message.faultstring).toContain('the supported sort keys are');
    expectPankoClientError(await get(`/v2/events?sort=generated:${name}`));
  });

  it('trait values and descriptions of trait names that are prototype members', async () => {
    const traits = await admin(`/v2/event_types/${type}/traits?all_tenants=true`);
    expect(traits.status).toBe(200);
    expect(traits.body.map((t: { name: string }) => t.name).sort()).toEqual([...PROTO_NAMES, 'project_id', 'service', 'with space'].sort());
    for (const name of PROTO_NAMES) {
      const values = await admin(`/v2/event_types/${type}/traits/${name}?all_tenants=true`);
      expect(values.status).toBe(200);
      expect(values.body).toEqual([{ name, type: 'String', value: `v-${name}` }]);
    }
  });

  it('prototype member names as body keys are unknown arguments or ignored, never a 500', async () => {
    for (const body of [
      '{"__proto__":{"limit":1}}',
      '{"constructor":1}',
      '{"q":[{"field":"x","value":"y","__proto__":{"op":"ne"}}]}',
      '{"q":[{"field":"x","value":"y","constructor":"z"}]}',
    ]) {
      const res = await request(ctx.stack.gateway).post('/v2/events').set(as('memberA')).set('Content-Type', 'application/json').send(body);
      expect({ body, ok: res.status === 200 || res.status === 400 }).toEqual({ body, ok: true });
      if (res.status === 400) expectPankoClientError(res);
    }
    for (const body of [
      '{"__proto__":{"limit":1}}',
      '{"filter":{"__proto__":{"=":{"a":1}}}}',
      '{"filter":"{\\"__proto__\\":{\\"a\\":1}}"}',
    ]) {
      const res = await request(ctx.stack.gateway)
        .post('/v2/query/events')
        .set(as('memberA'))
        .set('Content-Type', 'application/json')
        .send(body);
      expect({ body, ok: res.status === 200 || res.status === 400 }).toEqual({ body, ok: true });
      if (res.status === 400) expectPankoClientError(res);
    }
  });

  it('an empty q.field is a 400', async () => {
    expectPankoClientError(await get('/v2/events?q.field=&q.op=eq&q.value=x'));
    expectPankoClientError(await get('/v2/events?q[0].field=&q[0].value=x'));
    expectPankoClientError(
      await request(ctx.stack.gateway)
        .get('/v2/events')
        .set(as('memberA'))
        .send({ q: [{ field: '', value: 'x' }] }),
    );
    expectPankoClientError(await request(ctx.stack.gateway).post('/v2/query/events').set(as('memberA')).send({ filter: '{"=":{"":"x"}}' }));
  });

  it('a NUL byte in a trait name is a 400 in q.field, in a complex filter and in the trait-values path', async () => {
    expectPankoClientError(await get('/v2/events?q.field=a%00b&q.op=eq&q.value=x'));
    expectPankoClientError(
      await request(ctx.stack.gateway)
        .get('/v2/events')
        .set(as('memberA'))
        .send({ q: [{ field: 'a\u0000b', value: 'x' }] }),
    );
    expectPankoClientError(
      await request(ctx.stack.gateway)
        .post('/v2/query/events')
        .set(as('memberA'))
        .send({ filter: JSON.stringify({ '=': { 'a\u0000b': 'x' } }) }),
    );
    expectPankoClientError(
      await request(ctx.stack.gateway)
        .post('/v2/query/events')
        .set(as('memberA'))
        .send({ filter: JSON.stringify({ in: { 'a\u0000b': ['x'] } }) }),
    );
    expectPankoClientError(await admin(`/v2/event_types/${type}/traits/a%00b`));
  });

  it('a space in a trait name is an ordinary name: its values, or [] when no event has it', async () => {
    const values = await admin(`/v2/event_types/${type}/traits/with%20space?all_tenants=true`);
    expect(values.status).toBe(200);
    expect(values.body).toEqual([{ name: 'with space', type: 'String', value: 'v-with space' }]);
    const none = await admin(`/v2/event_types/${type}/traits/no%20such`);
    expect(none.status).toBe(200);
    expect(none.body).toEqual([]);
    const filtered = await get(`/v2/events?q.field=with%20space&q.value=v-with%20space`);
    expect(ids(filtered)).toEqual([stored[PROTO_NAMES.length]]);
  });

  it('NUL and control characters in ids and event types never reach a 500', async () => {
    for (const path of [
      '/v2/events/a%00b',
      '/v2/events/%01',
      '/v2/event_types/a%00b/traits',
      '/v2/event_types/a%00b/traits/x',
      '/v2/event_types/a%00b',
      `/v2/events?q.field=event_type&q.value=a%00b`,
      `/v2/events?q.field=message_id&q.value=a%00b`,
      `/v2/events?marker=a%00b`,
    ]) {
      const res = await admin(path);
      expect({ path, status: res.status < 500 }).toEqual({ path, status: true });
      if (res.status >= 400) expectPankoClientError(res, res.status);
    }
  });

  it('malformed percent-encoding in every id route is a 400', async () => {
    for (const path of ['/v2/events/%ZZ', '/v2/event_types/%ZZ/traits', '/v2/event_types/x/traits/%ZZ', '/v2/event_types/%ZZ']) {
      const res = await admin(path);
      expect({ path, status: res.status }).toEqual({ path, status: 400 });
      expectPankoClientError(res);
    }
  });

  it.each(['/v2/events', '/v2/query/events'])('POST %s with a body that is JSON but not an object is a 400', async (path) => {
    for (const body of ['null', '[]', '"x"', '1']) {
      const res = await request(ctx.stack.gateway).post(path).set(as('admin')).set('Content-Type', 'application/json').send(body);
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
      expectPankoClientError(res);
    }
  });

  describe('POST /v2/ingest/events with garbage bodies', () => {
    const ingest = (body: string | Buffer, contentType = 'application/json') =>
      request(ctx.stack.gateway).post('/v2/ingest/events').set(as('admin')).set('Content-Type', contentType).send(body);

    it.each([
      ['not JSON', 'this is not JSON'],
      ['a truncated object', '{"message_id":'],
      ['an array of non-objects', '[1, "x", null, true, []]'],
      ['a bare string', '"x"'],
      ['a bare number', '12'],
      ['null', 'null'],
      ['deeply nested arrays', `${'['.repeat(5000)}${']'.repeat(5000)}`],
      ['deeply nested objects', `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`],
      [
        'a huge event_type',
        JSON.stringify({ message_id: 'm1', event_type: 'x'.repeat(500_000), timestamp: '2026-11-21 12:00:00', payload: {} }),
      ],
      [
        'a huge message_id',
        JSON.stringify({ message_id: 'm'.repeat(500_000), event_type: 't', generated: '2026-11-21T12:00:00', traits: [] }),
      ],
      [
        'a huge trait name',
        JSON.stringify({ message_id: 'm2', event_type: 't', generated: '2026-11-21T12:00:00', traits: [['n'.repeat(500_000), 1, 'v']] }),
      ],
      [
        'a NUL in a trait name',
        JSON.stringify({ message_id: 'm3', event_type: 't', generated: '2026-11-21T12:00:00', traits: [['a\u0000b', 1, 'v']] }),
      ],
      [
        'a prototype trait name in a serialized event',
        '{"message_id":"m4","event_type":"t","generated":"x","traits":[["__proto__",1,"v"]]}',
      ],
      ['numbers beyond any double', `[{"message_id":"m5","event_type":"t","generated":"2026-11-21T12:00:00","traits":[["n",3,1e999999]]}]`],
    ])('%s: a 4xx, never a 5xx', async (_what, body) => {
      const res = await ingest(body);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expectPankoClientError(res, res.status);
    });

    it('a body that is not JSON by its type, or empty, is a 4xx', async () => {
      for (const [body, type] of [
        ['[{}]', 'text/plain'],
        ['<xml/>', 'application/xml'],
        ['', 'application/json'],
      ]) {
        const res = await ingest(body as string, type as string);
        expect({ type, status: res.status >= 400 && res.status < 500 }).toEqual({ type, status: true });
        expectPankoClientError(res, res.status);
      }
    });

    it('names at the length limit, in four-byte characters, are stored and found', async () => {
      const long = (c: string) => c.repeat(255);
      const e = {
        message_id: long('\u{1d11e}'),
        event_type: long('\u{1f600}'),
        generated: '2026-11-21T12:00:00',
        traits: [
          ['project_id', 1, ctx.stack.projectA],
          ['resource_id', 1, long('\u{1f680}')],
          [long('\u{1f4a1}'), 1, long('\u{1f4a3}')],
        ],
        raw: {},
      };
      const res = await ingest(JSON.stringify([e]));
      expect(res.status).toBe(200);
      const found = await get(`/v2/events?q.field=resource_id&q.value=${encodeURIComponent(long('\u{1f680}'))}`);
      expect(ids(found)).toEqual([e.message_id]);
    });

    it('a record nested deeper than Python reads JSON is refused, whatever part is deep', async () => {
      const deep = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
      const notification = `{"message_id":"deep-1","event_type":"t","priority":"INFO","timestamp":"2026-11-21 12:00:00","payload":${deep(3000)}}`;
      const signed = `{"message_id":"deep-2","event_type":"t","generated":"2026-11-21T12:00:00","traits":[],"raw":${deep(3000)},"message_signature":"x"}`;
      const enveloped = JSON.stringify({ 'oslo.version': '2.0', 'oslo.message': notification });
      for (const body of [notification, signed, enveloped, `[${notification}]`]) {
        const res = await ingest(body);
        expectPankoClientError(res);
        expect(res.body.error_message.faultstring).toMatch(/nested deeper than 100 levels/);
      }
      const ok = `{"message_id":"deep-${Date.now()}","event_type":"t","priority":"INFO","timestamp":"2026-11-21 12:00:00","payload":${deep(90)}}`;
      expect((await ingest(ok)).body).toEqual({ stored: 1, duplicates: 0, dropped: [] });
    });

    it('a trait named __proto__ or constructor is stored and found like any other', async () => {
      const id = `proto-${Date.now()}`;
      const body = `[{"message_id":"${id}","event_type":"${type}.ingested","generated":"2026-11-21T12:00:00","traits":[["project_id",1,"${ctx.stack.projectA}"],["__proto__",1,"p"],["constructor",2,7]],"raw":{}}]`;
      const res = await ingest(body);
      expect(res.status).toBe(200);
      expect(ids(await get('/v2/events?q.field=__proto__&q.value=p'))).toEqual([id]);
      expect(ids(await get('/v2/events?q.field=constructor&q.value=7&q.type=integer'))).toEqual([id]);
    });
  });
});
