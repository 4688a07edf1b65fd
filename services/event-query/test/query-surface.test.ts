/**
 * Group A's query surface through the gateway on FerretDB: typed filters and request forms, exact round trips,
 * complex-query operators, capabilities and discovery, with events crafted for each case.
 */
import { uuid } from '@stratum/testing';
import type { Event, Trait } from '@stratum/traits';
import request from 'supertest';
import { at, craftedStack, event, ids } from './crafted';

describe('group A: query surface (FerretDB)', () => {
  const ctx = craftedStack();
  const { seed, as } = ctx;

  describe('typed simple queries and request forms', () => {
    const resource = uuid();
    beforeAll(async () => {
      await seed(
        [1, 2, 3].map((n) =>
          event({
            type: 'typed.test',
            generated: at(n),
            project: ctx.stack.projectA,
            resource,
            traits: [
              { name: 'size', type: 'integer', value: String(n * 10) },
              { name: 'ratio', type: 'float', value: `${n}.5` },
              { name: 'seen_at', type: 'datetime', value: `2026-11-0${n}T00:00:00` },
              { name: 'colour', type: 'String', value: ['amber', 'blue', 'cyan'][n - 1] as string },
            ],
          }),
        ),
      );
    });
    const sizes = (res: request.Response) =>
      res.body.map((e: { traits: Trait[] }) => Number(e.traits.find((t) => t.name === 'size')?.value));
    const q = (field: string, op: string, value: string, type: string) =>
      `/v2/events?q.field=resource_id&q.op=eq&q.value=${resource}&q.type=string&q.field=${field}&q.op=${op}&q.value=${value}&q.type=${type}`;

    it.each([
      ['size', 'gt', '10', 'Integer', [20, 30]],
      ['size', 'le', '20', 'INTEGER', [10, 20]],
      ['size', 'ne', '20', 'integer', [10, 30]],
      ['ratio', 'ge', '2.5', 'Float', [20, 30]],
      ['ratio', 'eq', '1.5', 'float', [10]],
      ['seen_at', 'lt', '2026-11-02T00:00:00', 'DateTime', [10]],
      ['seen_at', 'eq', '2026-11-03', 'datetime', [30]],
      ['colour', 'ge', 'b', 'string', [20, 30]],
      ['colour', 'lt', 'b', '', [10]],
      ['missing_trait', 'ne', 'x', 'string', []],
    ])('%s %s %s (%s)', async (field, op, value, type, expected) => {
      const res = await request(ctx.stack.gateway)
        .get(q(field, op, value, type))
        .set(as('memberA'));
      expect(res.status).toBe(200);
      expect(sizes(res)).toEqual(expected);
    });

    it('accepts indexed q[i].field keys and the JSON body q on GET', async () => {
      const indexed = await request(ctx.stack.gateway)
        .get(`/v2/events?q[0].field=resource_id&q[0].value=${resource}&q[1].field=size&q[1].op=ge&q[1].value=30&q[1].type=integer`)
        .set(as('memberA'));
      expect(sizes(indexed)).toEqual([30]);
      const body = await request(ctx.stack.gateway)
        .get('/v2/events')
        .set(as('memberA'))
        .send({
          q: [
            { field: 'resource_id', value: resource },
            { field: 'size', op: 'lt', value: 20, type: 'integer' },
          ],
        });
      expect(body.status).toBe(200);
      expect(sizes(body)).toEqual([10]);
    });

    it('accepts the end_timestamp bound inclusively and both bounds with eq (python-pankoclient)', async () => {
      const res = await request(ctx.stack.gateway)
        .get(
          `/v2/events?q.field=resource_id&q.value=${resource}&q.field=start_timestamp&q.op=eq&q.value=${at(2)}&q.field=end_timestamp&q.op=eq&q.value=${at(3)}`,
        )
        .set(as('memberA'));
      expect(sizes(res)).toEqual([20, 30]);
    });

    it.each([
      ['q given in the query string and the body', '?q.field=a&q.value=b', { q: [] }, 400, 'Parameter q was given several times'],
      ['a bare list body', '', [{ field: 'a', value: 'b' }], 400, 'The request body must be a JSON object.'],
    ])('refuses %s', async (_what, qs, body, status, message) => {
      const res = await request(ctx.stack.gateway).get(`/v2/events${qs}`).set(as('memberA')).send(body);
      expect(res.status).toBe(status);
      expect(res.body.error_message.faultstring).toBe(message);
    });

    it('answers 415 for a body that is not JSON and 405 for methods the list does not take', async () => {
      const text = await request(ctx.stack.gateway).post('/v2/events').set(as('memberA')).set('Content-Type', 'text/plain').send('q=1');
      expect(text.status).toBe(415);
      expect(text.body.error_message.faultstring).toBe('Unknown mimetype: text/plain');
      const put = await request(ctx.stack.gateway).put('/v2/events').set(as('memberA')).send({});
      expect(put.status).toBe(405);
      expect(put.headers.allow).toBe('GET, POST');
      expect(put.body.error_message.faultcode).toBe('Client');
      for (const path of ['/v2/event_types', '/v2/capabilities', '/v2/query/events']) {
        const res = await request(ctx.stack.gateway).delete(path).set(as('memberA'));
        expect(res.status).toBe(405);
      }
      const twice = await request(ctx.stack.gateway).post('/v2/query/events?all_tenants=1&all_tenants=0').set(as('admin')).send({});
      expect(twice.status).toBe(400);
      expect(twice.body.error_message.faultstring).toBe('Parameter all_tenants was given several times');
    });
  });

  describe('values round-trip exactly', () => {
    const traits: Trait[] = [
      { name: 'int64_max', type: 'integer', value: '9223372036854775807' },
      { name: 'beyond_2_53', type: 'integer', value: '9007199254740993' },
      { name: 'beyond_int64', type: 'integer', value: '123456789012345678901234567890' },
      { name: 'negative', type: 'integer', value: '-42' },
      { name: 'no_fraction', type: 'datetime', value: '2026-11-20T10:00:00' },
      { name: 'fraction', type: 'datetime', value: '2026-11-20T10:00:00.123456' },
      { name: 'ratio', type: 'float', value: '100.123456' },
      { name: 'unicode', type: 'String', value: 'Zürich ✓ 東京 😀 "quoted" \\ back' },
      { name: 'x-forwarded-name', type: 'String', value: 'dashed' },
      { name: 'os.distro', type: 'String', value: 'dotted' },
      { name: 'empty', type: 'String', value: '' },
    ];
    let stored: Event;
    beforeAll(async () => {
      [stored] = (await seed([
        event({ type: 'roundtrip.test', generated: '2026-11-20T10:00:00.000001', project: ctx.stack.projectA, traits }),
      ])) as [Event];
    });

    it('returns every trait, in order, byte for byte', async () => {
      const res = await request(ctx.stack.gateway).get(`/v2/events/${stored.message_id}`).set(as('memberA'));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ...stored, generated: '2026-11-20T10:00:00.000001' });
      expect(res.text).toContain('"value":"9223372036854775807"');
    });

    const find = async (qs: string) => ids(await request(ctx.stack.gateway).get(`/v2/events?${qs}`).set(as('memberA')));

    it('filters on them exactly', async () => {
      const id = stored.message_id;
      expect(await find('q.field=beyond_2_53&q.value=9007199254740993&q.type=integer')).toEqual([id]);
      expect(await find('q.field=beyond_2_53&q.value=9007199254740992&q.type=integer')).toEqual([]);
      expect(await find('q.field=int64_max&q.op=ge&q.value=9223372036854775806&q.type=integer')).toEqual([id]);
      expect(await find('q.field=beyond_int64&q.value=123456789012345678901234567890&q.type=integer')).toEqual([id]);
      expect(await find('q.field=no_fraction&q.value=2026-11-20T10:00:00.000000&q.type=datetime')).toEqual([id]);
      expect(await find('q.field=fraction&q.op=gt&q.value=2026-11-20T10:00:00.123455&q.type=datetime')).toEqual([id]);
      expect(await find(`q.field=unicode&q.value=${encodeURIComponent(traits[7]?.value as string)}`)).toEqual([id]);
      expect(await find('q.field=x-forwarded-name&q.value=dashed')).toEqual([id]);
      expect(await find('q.field=os.distro&q.value=dotted')).toEqual([id]);
    });

    it('compares integers beyond 2^53 exactly in a complex query too', async () => {
      const query = (n: string) =>
        request(ctx.stack.gateway)
          .post('/v2/query/events')
          .set(as('memberA'))
          .send({ filter: `{"and":[{"=":{"event_type":"roundtrip.test"}},{"=":{"beyond_2_53":${n}}}]}` });
      expect(ids(await query('9007199254740993'))).toEqual([stored.message_id]);
      expect(ids(await query('9007199254740992'))).toEqual([]);
    });
  });

  describe('complex query operators', () => {
    const resource = uuid();
    let seeded: Event[];
    beforeAll(async () => {
      seeded = await seed(
        ['compute.instance.create.end', 'compute.instance.delete.end', 'port.update.end'].map((type, i) =>
          event({
            type,
            generated: at(i),
            project: ctx.stack.projectA,
            resource,
            traits: [{ name: 'vcpus', type: 'integer', value: String(i + 1) }],
          }),
        ),
      );
    });
    const run = async (filter: unknown, extra: Record<string, unknown> = {}) => {
      const res = await request(ctx.stack.gateway)
        .post('/v2/query/events')
        .set(as('memberA'))
        .send({ filter: JSON.stringify({ and: [{ '=': { resource_id: resource } }, filter] }), ...extra });
      expect(res.status).toBe(200);
      return res.body.map((e: { event_type: string }) => e.event_type);
    };

    it('supports in, not, or, != and a safe =~, newest first by default', async () => {
      expect(await run({ in: { vcpus: [1, 3] } })).toEqual(['port.update.end', 'compute.instance.create.end']);
      expect(await run({ not: { '=': { event_type: 'port.update.end' } } })).toEqual([
        'compute.instance.delete.end',
        'compute.instance.create.end',
      ]);
      expect(await run({ or: [{ '=': { vcpus: 1 } }, { '>': { vcpus: 2 } }] })).toEqual(['port.update.end', 'compute.instance.create.end']);
      expect(await run({ '!=': { event_type: 'port.update.end' } })).toHaveLength(2);
      expect(await run({ '=~': { event_type: '^compute\\.instance\\..*\\.end$' } })).toEqual([
        'compute.instance.delete.end',
        'compute.instance.create.end',
      ]);
    });

    it('orders by an orderby list and honours limit', async () => {
      expect(await run({ '>': { vcpus: 0 } }, { orderby: JSON.stringify([{ event_type: 'asc' }]), limit: 2 })).toEqual([
        'compute.instance.create.end',
        'compute.instance.delete.end',
      ]);
    });

    it('returns the first page of everything visible for an empty body', async () => {
      const res = await request(ctx.stack.gateway).post('/v2/query/events').set(as('memberA')).send({});
      expect(res.status).toBe(200);
      for (const e of seeded) expect(ids(res)).toContain(e.message_id);
    });
  });

  describe('discovery and health', () => {
    it('serves capabilities, the Panko versions document under /event, and public health checks', async () => {
      const caps = await request(ctx.stack.gateway).get('/v2/capabilities/').set(as('readerA'));
      expect(caps.status).toBe(200);
      expect(caps.body).toEqual({
        api: { 'events:query:simple': true, 'events:query:complex': true },
        event_storage: { 'storage:production_ready': true },
      });
      expect((await request(ctx.stack.gateway).get('/v2/capabilities')).status).toBe(401);
      const versions = await request(ctx.stack.gateway).get('/event/');
      expect(versions.body.versions.values[0]).toMatchObject({ id: 'v2', status: 'stable' });
      expect(versions.body.versions.values[0].links[0].href).toMatch(/\/event\/v2$/);
      const health = await request(ctx.stack.gateway).get('/event/healthcheck');
      expect(health.status).toBe(200);
      expect(health.text).toBe('OK');
    });
  });
});
