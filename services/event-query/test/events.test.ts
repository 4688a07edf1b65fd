import { loadEvents } from '@stratum/deploy';
import { startTestStack, type TestStack, tokenOf, uuid } from '@stratum/testing';
import request from 'supertest';
import { messageIdOf, reowned } from './samples';

describe('group A: events through the gateway (real notifications, FerretDB)', () => {
  let stack: TestStack;
  const port = uuid();
  const instance = uuid();
  const bodies: Record<string, unknown>[] = [];

  beforeAll(async () => {
    stack = await startTestStack({ eventEnv: { EVENTS_MAX_LIMIT: '50' } });
    const a = stack.projectA;
    const b = stack.projectB;
    bodies.push(
      reowned('port.update.end', { projectId: a, resourceId: port, timestamp: '2026-11-20 10:00:00.000001' }),
      reowned('port.update.end', { projectId: a, resourceId: port, timestamp: '2026-11-20 11:00:00.500000' }),
      reowned('port.update.end', { projectId: a, resourceId: port, timestamp: '2026-11-22 09:00:00.000000' }),
      reowned('port.create.end', { projectId: a, resourceId: port, timestamp: '2026-11-20 10:30:00.000000' }),
      reowned('compute.instance.create.end', { projectId: a, resourceId: instance, timestamp: '2026-11-20 12:00:00.123456' }),
      reowned('compute.instance.create.end', { projectId: b, resourceId: uuid(), timestamp: '2026-11-20 12:00:01.000000' }),
      reowned('image.create', { projectId: b, timestamp: '2026-11-20 13:00:00.000000' }),
    );
    const summary = await loadEvents(stack.db, bodies.map((x) => JSON.stringify(x)).join('\n'));
    expect(summary).toEqual({ records: bodies.length, stored: bodies.length, duplicates: 0, ignored: 0, rejected: [] });
  });
  afterAll(() => stack.close());

  const as = (who: keyof TestStack['personas']) => tokenOf(stack, who);
  const generatedOf = (res: request.Response) => res.body.map((e: { generated: string }) => e.generated);

  describe('A1 GET /v2/events/{message_id}', () => {
    it('returns the event with its traits, microseconds kept', async () => {
      const id = messageIdOf(bodies[4] as Record<string, unknown>);
      const res = await request(stack.gateway).get(`/v2/events/${id}`).set(as('memberA'));
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        message_id: id,
        event_type: 'compute.instance.create.end',
        generated: '2026-11-20T12:00:00.123456',
        raw: {},
      });
      const traits = Object.fromEntries(
        res.body.traits.map((t: { name: string; type: string; value: string }) => [t.name, [t.type, t.value]]),
      );
      expect(traits.resource_id).toEqual(['String', instance]);
      expect(traits.project_id).toEqual(['String', stack.projectA]);
      expect(traits.memory_mb).toEqual(['integer', '256']);
      expect(traits.launched_at?.[0]).toBe('datetime');
    });

    it('answers 404 in Panko shape for an unknown id', async () => {
      const id = uuid();
      const res = await request(stack.gateway).get(`/v2/events/${id}`).set(as('memberA'));
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error_message: { faultcode: 'Client', faultstring: `Event ${id} Not Found`, debuginfo: null } });
    });

    it("hides another project's event behind a 404", async () => {
      const id = messageIdOf(bodies[5] as Record<string, unknown>);
      expect((await request(stack.gateway).get(`/v2/events/${id}`).set(as('memberA'))).status).toBe(404);
      expect((await request(stack.gateway).get(`/v2/events/${id}`).set(as('memberB'))).status).toBe(200);
    });
  });

  describe('A2 POST /v2/query/events', () => {
    const filter = (from: string, to: string, type = 'port.update.end') =>
      JSON.stringify({
        and: [{ '=': { resource_id: port } }, { '>=': { timestamp: from } }, { '<=': { timestamp: to } }, { '=': { event_type: type } }],
      });

    it("returns the resource's events of that type in the window, newest first", async () => {
      const res = await request(stack.gateway)
        .post('/v2/query/events')
        .set(as('memberA'))
        .send({ filter: filter('2026-11-20T00:00:00', '2026-11-21T00:00:00'), orderby: JSON.stringify([{ timestamp: 'desc' }]) });
      expect(res.status).toBe(200);
      expect(generatedOf(res)).toEqual(['2026-11-20T11:00:00.500000', '2026-11-20T10:00:00.000001']);
    });

    it('honours desc=false when no orderby is given', async () => {
      const res = await request(stack.gateway)
        .post('/v2/query/events')
        .set(as('memberA'))
        .send({ filter: filter('2026-11-01T00:00:00', '2026-12-01T00:00:00'), desc: 'false' });
      expect(generatedOf(res)).toEqual(['2026-11-20T10:00:00.000001', '2026-11-20T11:00:00.500000', '2026-11-22T09:00:00.000000']);
    });

    it('never widens past the caller project: naming project A is a 403, reaching for its resource finds nothing', async () => {
      const named = await request(stack.gateway)
        .post('/v2/query/events')
        .set(as('memberB'))
        .send({ filter: JSON.stringify({ or: [{ '=': { project_id: stack.projectA } }, { '=': { resource_id: port } }] }) });
      expect(named.status).toBe(403);
      expect(named.body.error_message.faultstring).toBe(`Not Authorized to access project ${stack.projectA}`);
      const reached = await request(stack.gateway)
        .post('/v2/query/events')
        .set(as('memberB'))
        .send({ filter: JSON.stringify({ or: [{ '=': { resource_id: port } }, { '=': { resource_id: instance } }] }) });
      expect(reached.status).toBe(200);
      expect(reached.body).toEqual([]);
      const not = await request(stack.gateway)
        .post('/v2/query/events')
        .set(as('memberB'))
        .send({ filter: JSON.stringify({ not: { '=': { event_type: 'image.create' } } }) });
      expect(not.body.map((e: { event_type: string }) => e.event_type)).toEqual(['compute.instance.create.end']);
    });

    it.each([
      [{ filter: '{"and": [' }, /^Filter expression not valid: /],
      [{ filter: '{"=~": {"event_type": "(a+)+$"}}' }, /groups and alternation are not supported/],
      [{ filter: '{"=": {"timestamp": "yesterday"}}' }, /Failed to parse the timestamp value yesterday/],
      [{ filter: '{"and": []}' }, /and needs a list of at least 2 expressions/],
      [{ filter: '{"=": {"resource_id": "x"}} trailing' }, /^Filter expression not valid: /],
      [{ filter: '{"and": [{"=": {"a": 1}}, {"like": {"a": "x"}}]}' }, /operator like is not supported/],
      [{ filter: '{"in": {"event_type": "port.update.end"}}' }, /in needs a non-empty list/],
      [{ orderby: '{"timestamp": "desc"}' }, /must be a list of \{field: direction\} objects/],
      [{ desc: 'sideways' }, /Invalid input for field\/attribute desc/],
      [{ limit: 51 }, /may not exceed 50/],
      [{ orderby: '[{"timestamp": "sideways"}]' }, /^Order-by expression not valid: /],
      [{ orderby: '[{"colour": "asc"}]' }, /cannot order by colour/],
      [{ limit: 0 }, /the limit should be a positive integer/],
      [{ nonsense: 1 }, /Invalid query body/],
    ])('answers 400 with a faultstring for %j', async (body, message) => {
      const res = await request(stack.gateway).post('/v2/query/events').set(as('memberA')).send(body);
      expect(res.status).toBe(400);
      expect(res.body.error_message.faultstring).toMatch(message);
    });
  });

  describe('A3 GET and POST /v2/events', () => {
    it('filters by q.field/q.value pairs (GET) and bounds the rows with limit', async () => {
      const res = await request(stack.gateway)
        .get(`/v2/events?q.field=resource_id&q.op=eq&q.value=${port}&q.field=event_type&q.value=port.update.end&limit=2`)
        .set(as('memberA'));
      expect(res.status).toBe(200);
      expect(generatedOf(res)).toEqual(['2026-11-20T10:00:00.000001', '2026-11-20T11:00:00.500000']);
    });

    it('accepts the same query as a POST body', async () => {
      const res = await request(stack.gateway)
        .post('/v2/events')
        .set(as('memberA'))
        .send({
          q: [
            { field: 'resource_id', op: 'eq', value: port },
            { field: 'start_timestamp', op: 'ge', value: '2026-11-21T00:00:00' },
          ],
          limit: 10,
        });
      expect(res.status).toBe(200);
      expect(generatedOf(res)).toEqual(['2026-11-22T09:00:00.000000']);
    });

    it('compares typed traits: integer memory_mb >= 256', async () => {
      const res = await request(stack.gateway).get('/v2/events?q.field=memory_mb&q.op=ge&q.value=256&q.type=integer').set(as('memberA'));
      expect(res.body).toHaveLength(1);
      expect(res.body[0].event_type).toBe('compute.instance.create.end');
    });

    it('shows a member only their project; an admin with all_tenants sees both', async () => {
      const a = await request(stack.gateway).get('/v2/events').set(as('memberA'));
      expect(a.body).toHaveLength(5);
      const all = await request(stack.gateway).get('/v2/events?q.field=all_tenants&q.value=true&limit=50').set(as('admin'));
      const ids = new Set(all.body.map((e: { message_id: string }) => e.message_id));
      for (const b of bodies) expect(ids.has(messageIdOf(b))).toBe(true);
    });

    it.each([
      ['limit=51', /may not exceed 50/],
      ['limit=-2', /the limit should be a positive integer/],
      ['bad_Stuff_here=1', /Unknown argument: "bad_Stuff_here"/],
      ['q.field=memory_mb&q.value=fake&q.type=integer', /Unable to convert the value fake to the expected data type integer/],
      ['q.field=x&q.value=1&q.type=whats-up', /The data type whats-up is not supported/],
      ['q.field=x&q.value=1&q.op=whats-up', /Operator whats-up is not supported/],
      ['q.field=start_timestamp&q.op=gt&q.value=2026-11-20', /Only `ge' operator is available for field start_timestamp/],
      ['q.field=end_timestamp&q.op=le&q.value=not-a-time', /Unable to convert the value not-a-time/],
    ])('answers 400 for ?%s', async (qs, message) => {
      const res = await request(stack.gateway).get(`/v2/events?${qs}`).set(as('memberA'));
      expect(res.status).toBe(400);
      expect(res.body.error_message.faultstring).toMatch(message);
    });

    it('reloading the same notifications stores nothing twice', async () => {
      const again = await loadEvents(stack.db, bodies.map((x) => JSON.stringify(x)).join('\n'));
      expect(again).toEqual({ records: bodies.length, stored: 0, duplicates: bodies.length, ignored: 0, rejected: [] });
    });
  });
});
