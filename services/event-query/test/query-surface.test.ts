/**
 * Group A's full surface through the gateway on FerretDB: paging, typed filters, exact round trips, event types,
 * capabilities and the visibility rules, with events crafted for each rule (two projects side by side, an admin's
 * own project, and events without a project).
 */

import { startTestStack, type TestStack, uuid } from '@stratum/testing';
import type { Event, Trait } from '@stratum/traits';
import request from 'supertest';
import { EventsRepository, toEventDoc } from '../src';

interface Spec {
  type: string;
  generated: string;
  project?: string | null;
  resource?: string;
  traits?: Trait[];
}

function event(s: Spec): Event {
  const traits: Trait[] = [{ name: 'service', type: 'String', value: 'test' }];
  if (s.project) traits.push({ name: 'project_id', type: 'String', value: s.project });
  if (s.resource) traits.push({ name: 'resource_id', type: 'String', value: s.resource });
  traits.push(...(s.traits ?? []));
  return { message_id: uuid(), event_type: s.type, generated: s.generated, traits, raw: {} };
}

const at = (minute: number) => `2026-11-20T10:${String(minute).padStart(2, '0')}:00.000000`;

describe('group A: query surface, paging and visibility (FerretDB)', () => {
  let stack: TestStack;
  let repo: EventsRepository;
  const seed = async (events: Event[]) => {
    const r = await repo.insertMany(events.map(toEventDoc));
    expect(r.inserted).toBe(events.length);
    return events;
  };
  const as = (who: keyof TestStack['personas']) => ({ 'X-Auth-Token': stack.personas[who].token });
  const ids = (res: request.Response) => res.body.map((e: { message_id: string }) => e.message_id);

  beforeAll(async () => {
    stack = await startTestStack({ eventEnv: { EVENTS_MAX_LIMIT: '200' } });
    repo = new EventsRepository(stack.db);
  });
  afterAll(() => stack.close());

  describe('marker paging and the Link header', () => {
    const resource = uuid();
    let seeded: Event[];

    beforeAll(async () => {
      // 12 events, two of them at the same instant (the message_id breaks the tie).
      seeded = await seed(
        Array.from({ length: 12 }, (_, i) =>
          event({ type: 'paging.test', generated: at(i === 5 ? 4 : i), project: stack.projectA, resource }),
        ),
      );
    });

    const byOrder = (events: Event[]) =>
      [...events].sort((a, b) => (a.generated < b.generated ? -1 : a.generated > b.generated ? 1 : a.message_id < b.message_id ? -1 : 1));
    const follow = (link: string) => {
      const m = /^<([^>]+)>; rel="next"$/.exec(link);
      expect(m).not.toBeNull();
      const url = new URL(m?.[1] as string);
      return `${url.pathname}${url.search}`;
    };

    it('pages through every row exactly once, in order, following Link until it is absent', async () => {
      const seen: string[] = [];
      let path: string | undefined = `/v2/events?q.field=resource_id&q.value=${resource}&limit=5`;
      let pages = 0;
      while (path) {
        const res: request.Response = await request(stack.gateway).get(path).set(as('memberA'));
        expect(res.status).toBe(200);
        seen.push(...ids(res));
        pages++;
        path = res.headers.link ? follow(res.headers.link as string) : undefined;
      }
      expect(pages).toBe(3);
      expect(seen).toEqual(byOrder(seeded).map((e) => e.message_id));
    });

    it('stays stable while events are inserted: no repeats, no skips; later rows appear, earlier ones do not', async () => {
      const first = await request(stack.gateway).get(`/v2/events?q.field=resource_id&q.value=${resource}&limit=6`).set(as('memberA'));
      const [before, after] = await seed([
        event({ type: 'paging.test', generated: at(0), project: stack.projectA, resource }),
        event({ type: 'paging.test', generated: at(30), project: stack.projectA, resource }),
      ]);
      const rest = await request(stack.gateway)
        .get(follow(first.headers.link as string).replace('limit=6', 'limit=50'))
        .set(as('memberA'));
      const all = [...ids(first), ...ids(rest)];
      expect(new Set(all).size).toBe(all.length);
      expect(all).not.toContain(before?.message_id);
      expect(ids(rest).at(-1)).toBe(after?.message_id);
      for (const e of seeded) expect(all).toContain(e.message_id);
    });

    it('pages in descending order by generated and by message_id', async () => {
      const desc = await request(stack.gateway)
        .get(`/v2/events?q.field=event_type&q.value=paging.test&sort=generated:desc&limit=3`)
        .set(as('memberA'));
      const next = await request(stack.gateway)
        .get(follow(desc.headers.link as string))
        .set(as('memberA'));
      const gens = [...desc.body, ...next.body].map((e: { generated: string }) => e.generated);
      expect(gens).toEqual([...gens].sort().reverse());
      const byId = await request(stack.gateway)
        .get(`/v2/events?q.field=event_type&q.value=paging.test&sort=message_id&limit=4`)
        .set(as('memberA'));
      const more = await request(stack.gateway)
        .get(follow(byId.headers.link as string))
        .set(as('memberA'));
      const msgIds = [...ids(byId), ...ids(more)];
      expect(msgIds).toEqual([...msgIds].sort());
    });

    it('puts the next link on the base URL the client used, prefix included', async () => {
      const res = await request(stack.gateway).get(`/event/v2/events?q.field=resource_id&q.value=${resource}&limit=2`).set(as('memberA'));
      expect(res.headers.link).toMatch(
        /^<http:\/\/127\.0\.0\.1:\d+\/event\/v2\/events\?q\.field=resource_id&q\.op=eq&q\.value=[^&]+&q\.type=&limit=2&marker=[^>]+>; rel="next"$/,
      );
      const page2 = await request(stack.gateway)
        .get(follow(res.headers.link as string))
        .set(as('memberA'));
      expect(page2.status).toBe(200);
      expect(page2.body).toHaveLength(2);
    });

    it('answers a POST list with a GET link carrying the body query', async () => {
      const res = await request(stack.gateway)
        .post('/v2/events')
        .set(as('memberA'))
        .send({ q: [{ field: 'resource_id', value: resource }], limit: 4 });
      expect(res.status).toBe(200);
      const next = await request(stack.gateway)
        .get(follow(res.headers.link as string))
        .set(as('memberA'));
      expect(next.body).toHaveLength(4);
      expect(ids(next)).not.toContain(ids(res)[0]);
    });

    it("refuses an unknown marker, or another project's, with a 400 (Panko: 500)", async () => {
      const [other] = await seed([event({ type: 'paging.test', generated: at(1), project: stack.projectB })]);
      for (const marker of [uuid(), other?.message_id]) {
        const res = await request(stack.gateway).get(`/v2/events?marker=${marker}`).set(as('memberA'));
        expect(res.status).toBe(400);
        expect(res.body.error_message.faultstring).toBe(`Marker ${marker} not found.`);
      }
    });
  });

  describe('typed simple queries and request forms', () => {
    const resource = uuid();
    beforeAll(async () => {
      await seed(
        [1, 2, 3].map((n) =>
          event({
            type: 'typed.test',
            generated: at(n),
            project: stack.projectA,
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
      const res = await request(stack.gateway)
        .get(q(field, op, value, type))
        .set(as('memberA'));
      expect(res.status).toBe(200);
      expect(sizes(res)).toEqual(expected);
    });

    it('accepts indexed q[i].field keys and the JSON body q on GET', async () => {
      const indexed = await request(stack.gateway)
        .get(`/v2/events?q[0].field=resource_id&q[0].value=${resource}&q[1].field=size&q[1].op=ge&q[1].value=30&q[1].type=integer`)
        .set(as('memberA'));
      expect(sizes(indexed)).toEqual([30]);
      const body = await request(stack.gateway)
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
      const res = await request(stack.gateway)
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
      const res = await request(stack.gateway).get(`/v2/events${qs}`).set(as('memberA')).send(body);
      expect(res.status).toBe(status);
      expect(res.body.error_message.faultstring).toBe(message);
    });

    it('answers 415 for a body that is not JSON and 405 for methods the list does not take', async () => {
      const text = await request(stack.gateway).post('/v2/events').set(as('memberA')).set('Content-Type', 'text/plain').send('q=1');
      expect(text.status).toBe(415);
      expect(text.body.error_message.faultstring).toBe('Unknown mimetype: text/plain');
      const put = await request(stack.gateway).put('/v2/events').set(as('memberA')).send({});
      expect(put.status).toBe(405);
      expect(put.headers.allow).toBe('GET, POST');
      expect(put.body.error_message.faultcode).toBe('Client');
      for (const path of ['/v2/event_types', '/v2/capabilities', '/v2/query/events']) {
        const res = await request(stack.gateway).delete(path).set(as('memberA'));
        expect(res.status).toBe(405);
      }
      const twice = await request(stack.gateway).post('/v2/query/events?all_tenants=1&all_tenants=0').set(as('admin')).send({});
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
        event({ type: 'roundtrip.test', generated: '2026-11-20T10:00:00.000001', project: stack.projectA, traits }),
      ])) as [Event];
    });

    it('returns every trait, in order, byte for byte', async () => {
      const res = await request(stack.gateway).get(`/v2/events/${stored.message_id}`).set(as('memberA'));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ...stored, generated: '2026-11-20T10:00:00.000001' });
      expect(res.text).toContain('"value":"9223372036854775807"');
    });

    const find = async (qs: string) => ids(await request(stack.gateway).get(`/v2/events?${qs}`).set(as('memberA')));

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
        request(stack.gateway)
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
            project: stack.projectA,
            resource,
            traits: [{ name: 'vcpus', type: 'integer', value: String(i + 1) }],
          }),
        ),
      );
    });
    const run = async (filter: unknown, extra: Record<string, unknown> = {}) => {
      const res = await request(stack.gateway)
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
      const res = await request(stack.gateway).post('/v2/query/events').set(as('memberA')).send({});
      expect(res.status).toBe(200);
      for (const e of seeded) expect(ids(res)).toContain(e.message_id);
    });
  });

  describe('visibility in every endpoint', () => {
    const typeA = `vis.a.${uuid().slice(0, 8)}`;
    const typeB = `vis.b.${uuid().slice(0, 8)}`;
    const typeAdmin = `vis.admin.${uuid().slice(0, 8)}`;
    const typeNone = `vis.none.${uuid().slice(0, 8)}`;
    let a: Event;
    let b: Event;
    let own: Event;
    let none: Event;
    let tenantOnly: Event;

    beforeAll(async () => {
      [a, b, own, none, tenantOnly] = (await seed([
        event({ type: typeA, generated: at(1), project: stack.projectA, traits: [{ name: 'flavor', type: 'String', value: 'a-flavor' }] }),
        event({ type: typeB, generated: at(2), project: stack.projectB, traits: [{ name: 'flavor', type: 'String', value: 'b-flavor' }] }),
        event({ type: typeAdmin, generated: at(3), project: stack.personas.admin.projectId }),
        event({ type: typeNone, generated: at(4), project: null, traits: [{ name: 'flavor', type: 'String', value: 'no-project' }] }),
        // Scope from tenant_id when there is no project_id trait (older notifications).
        event({ type: typeA, generated: at(5), traits: [{ name: 'tenant_id', type: 'String', value: stack.projectA }] }),
      ])) as [Event, Event, Event, Event, Event];
    });

    const listIds = async (who: keyof TestStack['personas'], qs = '') =>
      ids(await request(stack.gateway).get(`/v2/events?limit=200${qs}`).set(as(who)));

    it('list: a member sees their project only (project_id or tenant_id); a reader the same', async () => {
      for (const who of ['memberA', 'readerA'] as const) {
        const seen = await listIds(who);
        expect(seen).toEqual(expect.arrayContaining([a.message_id, tenantOnly.message_id]));
        for (const e of [b, own, none]) expect(seen).not.toContain(e.message_id);
      }
      const seenB = await listIds('memberB');
      expect(seenB).toContain(b.message_id);
      for (const e of [a, own, none, tenantOnly]) expect(seenB).not.toContain(e.message_id);
    });

    it('list: an admin sees their own project and project-less events; all_tenants shows everything', async () => {
      const seen = await listIds('admin');
      expect(seen).toEqual(expect.arrayContaining([own.message_id, none.message_id]));
      for (const e of [a, b, tenantOnly]) expect(seen).not.toContain(e.message_id);
      const all = await listIds('admin', '&q.field=all_tenants&q.value=True');
      expect(all).toEqual(expect.arrayContaining([a.message_id, b.message_id, own.message_id, none.message_id, tenantOnly.message_id]));
    });

    it('a member cannot lift the restriction with all_tenants (it is a trait filter for them), nor can a department admin', async () => {
      expect(await listIds('memberA', '&q.field=all_tenants&q.value=True')).toEqual([]);
      expect(await listIds('deptAdmin', '&q.field=all_tenants&q.value=True')).toEqual([]);
      const types = await request(stack.gateway).get('/v2/event_types?all_tenants=true').set(as('deptAdmin'));
      expect(types.body).toEqual([]);
    });

    it('get: 404 for events outside the caller scope; admins may read any with all_tenants', async () => {
      const get = (who: keyof TestStack['personas'], id: string, qs = '') =>
        request(stack.gateway).get(`/v2/events/${id}${qs}`).set(as(who));
      expect((await get('memberA', b.message_id)).status).toBe(404);
      expect((await get('memberA', none.message_id)).status).toBe(404);
      expect((await get('memberA', tenantOnly.message_id)).status).toBe(200);
      expect((await get('admin', a.message_id)).status).toBe(404);
      expect((await get('admin', none.message_id)).status).toBe(200);
      expect((await get('admin', a.message_id, '?all_tenants=true')).status).toBe(200);
      expect((await get('memberB', a.message_id, '?all_tenants=true')).status).toBe(404);
    });

    it('complex query: scoped the same way; all_tenants only lifts it for admins', async () => {
      const types = [typeA, typeB, typeAdmin, typeNone];
      const query = async (who: keyof TestStack['personas'], extra = {}) =>
        ids(
          await request(stack.gateway)
            .post('/v2/query/events')
            .set(as(who))
            .send({ filter: JSON.stringify({ in: { event_type: types } }), ...extra }),
        );
      expect((await query('memberA')).sort()).toEqual([a.message_id, tenantOnly.message_id].sort());
      expect((await query('memberA', { all_tenants: true })).sort()).toEqual([a.message_id, tenantOnly.message_id].sort());
      expect((await query('admin')).sort()).toEqual([own.message_id, none.message_id].sort());
      expect(await query('admin', { all_tenants: true })).toHaveLength(5);
    });

    it('event types: each caller sees the types of the events they may see', async () => {
      const types = async (who: keyof TestStack['personas'], qs = '') => {
        const res = await request(stack.gateway).get(`/v2/event_types/${qs}`).set(as(who));
        expect(res.status).toBe(200);
        expect(res.body).toEqual([...res.body].sort());
        return res.body as string[];
      };
      const seenA = await types('memberA');
      expect(seenA).toContain(typeA);
      for (const t of [typeB, typeAdmin, typeNone]) expect(seenA).not.toContain(t);
      const seenAdmin = await types('admin');
      expect(seenAdmin).toEqual(expect.arrayContaining([typeAdmin, typeNone]));
      expect(seenAdmin).not.toContain(typeA);
      expect(await types('admin', '?all_tenants=true')).toEqual(expect.arrayContaining([typeA, typeB, typeAdmin, typeNone]));
    });

    it('trait descriptions and trait values: scoped too, values paged', async () => {
      const desc = await request(stack.gateway).get(`/v2/event_types/${typeA}/traits/`).set(as('memberA'));
      expect(desc.body).toEqual([
        { name: 'flavor', type: 'String' },
        { name: 'project_id', type: 'String' },
        { name: 'service', type: 'String' },
        { name: 'tenant_id', type: 'String' },
      ]);
      expect((await request(stack.gateway).get(`/v2/event_types/${typeA}/traits`).set(as('memberB'))).body).toEqual([]);
      const values = await request(stack.gateway).get(`/v2/event_types/${typeA}/traits/flavor`).set(as('memberA'));
      expect(values.body).toEqual([{ name: 'flavor', type: 'String', value: 'a-flavor' }]);
      expect((await request(stack.gateway).get(`/v2/event_types/${typeB}/traits/flavor`).set(as('memberA'))).body).toEqual([]);
      const paged = await request(stack.gateway).get(`/v2/event_types/${typeA}/traits/service?limit=1`).set(as('memberA'));
      expect(paged.body).toHaveLength(1);
      expect(paged.headers.link).toMatch(/\/v2\/event_types\/[^/]+\/traits\/service\?limit=1&marker=/);
      expect((await request(stack.gateway).get(`/v2/event_types/${typeA}`).set(as('memberA'))).status).toBe(404);
    });
  });

  describe('discovery and health', () => {
    it('serves capabilities, the Panko versions document under /event, and public health checks', async () => {
      const caps = await request(stack.gateway).get('/v2/capabilities/').set(as('readerA'));
      expect(caps.status).toBe(200);
      expect(caps.body).toEqual({
        api: { 'events:query:simple': true, 'events:query:complex': true },
        event_storage: { 'storage:production_ready': true },
      });
      expect((await request(stack.gateway).get('/v2/capabilities')).status).toBe(401);
      const versions = await request(stack.gateway).get('/event/');
      expect(versions.body.versions.values[0]).toMatchObject({ id: 'v2', status: 'stable' });
      expect(versions.body.versions.values[0].links[0].href).toMatch(/\/event\/v2$/);
      const health = await request(stack.gateway).get('/event/healthcheck');
      expect(health.status).toBe(200);
      expect(health.text).toBe('OK');
    });
  });
});
