/**
 * AMQP ingestion end to end: real notification bodies published to the local RabbitMQ, as the services published
 * them (exchange, routing key, properties), come back through the gateway as events.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { ROOT } from '@stratum/store-runtime';
import { ALL_TENANTS, Bus, ingestEnv, startTestStack, suffix, type TestStack, tokenOf, uuid, waitFor } from '@stratum/testing';
import { EVENTS_FORWARD_EXCHANGE } from '@stratum/traits';
import pino from 'pino';
import request from 'supertest';
import { computeSignature } from '../src';

const bodies = readFileSync(join(ROOT, 'deploy/samples/notifications.jsonl'), 'utf8').trim().split('\n');
const manifest = readFileSync(join(ROOT, 'deploy/samples/notifications.manifest.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as { exchange: string; routing_key: string; event_type: string; message_id: string });

jest.setTimeout(120_000);

const CAPTURED_PROJECT = '2f66f0d537d740d79ad1e52238df492a';

let stack: TestStack;
let bus: Bus;
const queue = `stratum.test.${suffix()}`;
const forwarded = `${queue}.forwarded`;
/** The event service's log lines (JSON), for the drops it must report. */
const logLines: Record<string, unknown>[] = [];
const logSink = new Writable({
  write(chunk, _enc, done) {
    for (const line of String(chunk).split('\n')) if (line) logLines.push(JSON.parse(line));
    done();
  },
});

beforeAll(async () => {
  bus = new Bus();
  // A subscriber that never consumes: forwarding must not wait for it.
  await bus.connection.exchangeDeclare({ exchange: EVENTS_FORWARD_EXCHANGE, type: 'topic', durable: true });
  await bus.connection.queueDeclare({ queue: forwarded, durable: true });
  await bus.connection.queueBind({ queue: forwarded, exchange: EVENTS_FORWARD_EXCHANGE, routingKey: 'identity.project.*' });
  stack = await startTestStack({
    eventEnv: ingestEnv(queue, { INGEST_TOPICS: 'notifications,versioned_notifications', TELEMETRY_SECRET: 'telemetry-secret' }),
    eventLogger: pino({ level: 'warn' }, logSink),
  });
});

afterAll(async () => {
  await stack?.close();
  await bus?.deleteQueues(queue, `${queue}.dead`, forwarded);
  await bus?.close();
});

const get = (path: string) => request(stack.gateway).get(path).set(tokenOf(stack, 'admin'));

async function stored(id: string): Promise<boolean> {
  return (await get(`/v2/events/${id}?all_tenants=true`)).status === 200;
}

const traitsOf = (e: { traits: { name: string; type: string; value: string }[] }) =>
  Object.fromEntries(e.traits.map((t) => [t.name, t.value]));

describe('AMQP ingestion', () => {
  it('stores the 389 captured notifications published to their exchanges, with the traits the definitions promise', async () => {
    for (const [i, m] of manifest.entries()) await bus.publish(m.exchange, m.routing_key, bodies[i] as string);
    await waitFor('every notification stored', async () => {
      const r = await get(`/v2/events?${ALL_TENANTS}&limit=1000`);
      return r.status === 200 && r.body.length === 389;
    });
    const all = (await get(`/v2/events?${ALL_TENANTS}&limit=1000`)).body as { message_id: string; event_type: string; traits: never[] }[];
    expect(new Set(all.map((e) => e.message_id))).toEqual(new Set(manifest.map((m) => m.message_id)));

    const one = (type: string) => traitsOf(all.find((e) => e.event_type === type) as never);
    expect(one('compute.instance.create.end')).toMatchObject({
      resource_id: '40c0a980-a947-45be-95a6-c7ed3180f03f',
      host: 'capture-compute',
      memory_mb: '256',
      project_id: CAPTURED_PROJECT,
    });
    expect(one('volume_type.create')).toMatchObject({ resource_id: '2c6ef396-a1fe-4269-990e-3282fe07c32d', name: 'cap-vtype-2' });
    expect(one('identity.project.created')).toMatchObject({ resource_id: '5bc2a353fba6491e83d89bdb94a0ff18' });
    expect(one('port.create.end')).toMatchObject({ resource_id: 'dfcadec6-3359-46cd-bbfb-a73575214001', name: 'cap-port' });
    expect(one('octavia.loadbalancer.create.end')).toMatchObject({ name: 'cap-lb', vip_address: '198.51.100.1' });
    expect(one('image.create')).toMatchObject({ name: 'cap-image-1', project_id: CAPTURED_PROJECT });

    // The forwarded identity.project.* events sit in the idle subscriber's queue; ingestion did not wait for it.
    const projectEvents = manifest.filter((m) => m.event_type.startsWith('identity.project.')).length;
    await waitFor('forwarded events', async () => (await bus.count(forwarded)) >= projectEvents);
    const msgs = await bus.drain(forwarded);
    expect(msgs.map((m) => (JSON.parse(m.body) as { event_type: string }).event_type).every((t) => t.startsWith('identity.project.'))).toBe(
      true,
    );
    expect(new Set(msgs.map((m) => (JSON.parse(m.body) as { message_id: string }).message_id)).size).toBe(projectEvents);
  });

  it('stores a redelivered or repeated message once', async () => {
    const msg = JSON.parse(JSON.parse(bodies[0] as string)['oslo.message']);
    const id = uuid();
    const body = JSON.stringify({ 'oslo.version': '2.0', 'oslo.message': JSON.stringify({ ...msg, message_id: id }) });
    for (let i = 0; i < 3; i++) await bus.publish('keystone', 'notifications.info', body);
    await waitFor('the event', () => stored(id));
    await waitFor('the queue drained', async () => (await bus.count(queue)) === 0);
    const r = await get(`/v2/events?${ALL_TENANTS}&q.field=message_id&q.op=eq&q.value=${id}`);
    expect(r.body).toHaveLength(1);
  });

  it('dead-letters what cannot be converted, with the reason, and stores nothing of it', async () => {
    const id = uuid();
    const badTrait = JSON.stringify({
      message_id: id,
      event_type: 'compute.instance.update',
      publisher_id: 'compute.h',
      priority: 'INFO',
      timestamp: '2026-11-21 12:00:00.000000',
      payload: { memory_mb: 'lots' },
    });
    await bus.publish('nova', 'notifications.info', 'this is not JSON');
    await bus.publish('nova', 'notifications.error', JSON.stringify({ event_type: 'x', payload: {} }));
    await bus.publish('nova', 'notifications.info', badTrait);
    await waitFor('three dead letters', async () => (await bus.count(`${queue}.dead`)) === 3);
    const dead = await bus.drain(`${queue}.dead`);
    expect(dead.map((d) => d.headers['x-stratum-reason'])).toEqual([
      expect.stringMatching(/^not valid JSON/),
      'not a notification: missing message_id',
      'trait memory_mb: invalid literal for int(): lots',
    ]);
    expect(dead[0]?.body).toBe('this is not JSON');
    expect(dead[2]?.headers['x-original-exchange']).toBe('nova');
    expect(await stored(id)).toBe(false);
  });

  describe('odd messages: never dropped silently', () => {
    const note = (over: Record<string, unknown>) => ({
      message_id: uuid(),
      event_type: 'compute.instance.update',
      publisher_id: 'compute.h',
      priority: 'INFO',
      timestamp: '2026-11-21 12:00:00.000000',
      payload: { tenant_id: CAPTURED_PROJECT, instance_id: uuid(), password: 'hunter2' },
      _context_auth_token: 'secret-token',
      ...over,
    });
    const envelope = (version: unknown, msg: unknown) => JSON.stringify({ 'oslo.version': version, 'oslo.message': JSON.stringify(msg) });

    it('dead-letters envelopes of another version and payloads that are not objects, with the reason', async () => {
      const [v9, v21, str, list, num] = [
        note({}),
        note({}),
        note({ payload: 'a string' }),
        note({ payload: [1, 2] }),
        note({ payload: 7 }),
      ];
      await bus.publish('nova', 'notifications.info', envelope('9.0', v9));
      await bus.publish('nova', 'notifications.info', envelope('2.1', v21));
      for (const m of [str, list, num]) await bus.publish('nova', 'notifications.info', JSON.stringify(m));
      await waitFor('five dead letters', async () => (await bus.count(`${queue}.dead`)) === 5);
      const dead = await bus.drain(`${queue}.dead`);
      expect(dead.map((d) => d.headers['x-stratum-reason'])).toEqual([
        'unsupported oslo.version "9.0": this endpoint reads envelope 2.0',
        'unsupported oslo.version "2.1": this endpoint reads envelope 2.0',
        'not a notification: payload is a string, not a JSON object',
        'not a notification: payload is a list, not a JSON object',
        'not a notification: payload is a number, not a JSON object',
      ]);
      for (const m of [v9, v21, str, list, num]) expect(await stored(m.message_id)).toBe(false);
      const line = logLines.find((l) => l.msg === 'notification dead-lettered' && l.message_id === v9.message_id);
      expect(line).toMatchObject({
        level: 40,
        event_type: 'compute.instance.update',
        exchange: 'nova',
        reason: expect.stringMatching(/^unsupported/),
      });
    });

    it('counts and logs what Ceilometer consumes without an event: DEBUG, AUDIT, WARN, SAMPLE and unknown priorities', async () => {
      const before = { ...stack.eventDeps.consumer?.stats.dropped };
      const msgs = ['DEBUG', 'AUDIT', 'WARN', 'SAMPLE', 'CRITICAL', 'BOGUS'].map((priority) => note({ priority }));
      const control = note({});
      for (const m of [...msgs, control]) await bus.publish('nova', 'notifications.info', envelope('2.0', m));
      await waitFor('the control event', () => stored(control.message_id));
      await waitFor('six drops', async () => {
        const now = stack.eventDeps.consumer?.stats.dropped;
        return (now?.priority ?? 0) - (before.priority ?? 0) === 5 && (now?.unknown_priority ?? 0) - (before.unknown_priority ?? 0) === 1;
      });
      for (const m of msgs) expect(await stored(m.message_id)).toBe(false);
      const lines = logLines.filter((l) => l.msg === 'notification dropped: Ceilometer makes no event of it');
      const debug = lines.find((l) => l.message_id === msgs[0]?.message_id);
      expect(debug).toEqual({
        level: 40,
        time: expect.any(Number),
        pid: expect.any(Number),
        hostname: expect.any(String),
        exchange: 'nova',
        routingKey: 'notifications.info',
        message_id: msgs[0]?.message_id,
        event_type: 'compute.instance.update',
        kind: 'priority',
        reason: 'priority DEBUG is not converted into events (only INFO and ERROR)',
        msg: 'notification dropped: Ceilometer makes no event of it',
      });
      expect(lines.find((l) => l.message_id === msgs[5]?.message_id)).toMatchObject({
        kind: 'unknown_priority',
        reason: 'unknown priority "BOGUS"',
      });
      const text = JSON.stringify(logLines);
      expect(text).not.toContain('hunter2');
      expect(text).not.toContain('secret-token');
    });
  });

  it("accepts Ceilometer's notifier:// output when message_signature is valid, and dead-letters a forged one", async () => {
    const signed = (id: string) => {
      const e = {
        message_id: id,
        event_type: 'compute.instance.delete.end',
        generated: '2026-11-21T12:30:00.250000',
        traits: [
          ['service', 1, 'compute'],
          ['project_id', 1, stack.projectA],
          ['vcpus', 2, 2],
          ['load', 3, 1.0],
          ['deleted_at', 4, '2026-11-21T12:29:59'],
        ],
        raw: {},
      };
      return { ...e, message_signature: computeSignature(e, 'telemetry-secret') };
    };
    const note = (events: unknown[]) =>
      JSON.stringify({
        'oslo.version': '2.0',
        'oslo.message': JSON.stringify({
          message_id: uuid(),
          publisher_id: 'telemetry.publisher.ctl',
          event_type: 'event',
          priority: 'SAMPLE',
          payload: events,
          timestamp: '2026-11-21 12:30:01.000000',
        }).replace('"load", 3, 1]', '"load", 3, 1.0]'),
      });
    const [a, b, forged] = [uuid(), uuid(), uuid()];
    await bus.publish('ceilometer', 'event.sample', note([signed(a), signed(b)]));
    await bus.publish('ceilometer', 'event.sample', note([{ ...signed(forged), event_type: 'tampered' }]));
    await waitFor('signed events', async () => (await stored(a)) && (await stored(b)));
    const e = (await request(stack.gateway).get(`/v2/events/${a}`).set(tokenOf(stack, 'memberA'))).body;
    expect(e.traits).toEqual([
      { name: 'service', type: 'String', value: 'compute' },
      { name: 'project_id', type: 'String', value: stack.projectA },
      { name: 'vcpus', type: 'integer', value: '2' },
      { name: 'load', type: 'float', value: '1.0' },
      { name: 'deleted_at', type: 'datetime', value: '2026-11-21T12:29:59.000000' },
    ]);
    await waitFor('the forged message dead-lettered', async () => (await bus.count(`${queue}.dead`)) === 1);
    const [dead] = await bus.drain(`${queue}.dead`);
    expect(dead?.headers['x-stratum-reason']).toBe(`event ${forged}: invalid message_signature`);
    expect(await stored(forged)).toBe(false);
  });
});
