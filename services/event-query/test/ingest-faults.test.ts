/**
 * No acknowledged event is lost: the store stops mid-stream and comes back; the consumer is shut down mid-stream;
 * the broker drops the consumer's connection. Each case ends with every published event stored exactly once.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { freePort, ROOT, type RunningFerretDB, startFerretDB } from '@stratum/store-runtime';
import { ALL_TENANTS, Bus, ingestEnv, startTestStack, suffix, type TestStack, tokenOf, uuid, waitFor } from '@stratum/testing';
import request from 'supertest';

jest.setTimeout(180_000);

/** A compute.instance.update notification in the oslo 2.0 envelope with a fresh message_id. */
function notification(i: number): { id: string; body: string } {
  const id = uuid();
  const msg = {
    message_id: id,
    event_type: 'compute.instance.update',
    publisher_id: 'compute.host-1',
    priority: 'INFO',
    timestamp: `2026-11-21 12:00:${String(i % 60).padStart(2, '0')}.${String(i).padStart(6, '0')}`,
    payload: { tenant_id: 'p-faults', instance_id: uuid(), memory_mb: 512, state: 'active' },
    _context_request_id: `req-${i}`,
  };
  return { id, body: JSON.stringify({ 'oslo.version': '2.0', 'oslo.message': JSON.stringify(msg) }) };
}

/** Every stored event id, through the gateway (marker paging). */
async function storedIds(stack: TestStack): Promise<string[]> {
  const ids: string[] = [];
  let marker = '';
  for (;;) {
    const r = await request(stack.gateway)
      .get(`/v2/events?${ALL_TENANTS}&limit=1000&sort=message_id:asc${marker}`)
      .set(tokenOf(stack, 'admin'));
    if (r.status !== 200) throw new Error(`list answered ${r.status}`);
    ids.push(...(r.body as { message_id: string }[]).map((e) => e.message_id));
    if (r.body.length < 1000) return ids;
    marker = `&marker=${ids[ids.length - 1]}`;
  }
}

describe('ingestion faults', () => {
  let bus: Bus;
  beforeAll(() => {
    bus = new Bus();
  });
  afterAll(() => bus.close());

  it('keeps every event when the store stops mid-stream and comes back', async () => {
    // A FerretDB of this test's own on the test cluster, which the test stops and starts again.
    const postgresqlUrl = process.env.STRATUM_TEST_POSTGRESQL_URL;
    if (!postgresqlUrl) throw new Error('STRATUM_TEST_POSTGRESQL_URL is not set (integration global setup)');
    const port = await freePort();
    const stateDir = join(ROOT, 'var', 'test', `fault-${suffix()}`);
    let store: RunningFerretDB = await startFerretDB({ postgresqlUrl, port, stateDir });
    const queue = `stratum.test.${suffix()}`;
    const exchange = `stratum-test-nova-${suffix()}`;
    const stack = await startTestStack({ mongodbUri: store.uri, eventEnv: ingestEnv(queue, { INGEST_EXCHANGES: exchange }) });
    try {
      const sent = Array.from({ length: 1500 }, (_, i) => notification(i));
      for (const n of sent.slice(0, 500)) await bus.publish(exchange, 'notifications.info', n.body);
      await store.stop(); // mid-stream: some of the first 500 are stored, the rest wait unacknowledged
      for (const n of sent.slice(500)) await bus.publish(exchange, 'notifications.info', n.body);
      await waitFor('the consumer retried a store write', async () => (stack.eventDeps.consumer?.stats.storeRetries ?? 0) > 0, 60_000);
      expect(stack.eventDeps.consumer?.stats.storeRetries).toBeGreaterThan(0);
      store = await startFerretDB({ postgresqlUrl, port, stateDir });
      await waitFor('the queue drained', async () => (await bus.count(queue)) === 0, 120_000);
      await waitFor('all events readable', async () => (await storedIds(stack).catch(() => [])).length === 1500, 60_000);
      expect(new Set(await storedIds(stack))).toEqual(new Set(sent.map((n) => n.id)));
      expect(await bus.count(`${queue}.dead`)).toBe(0);
    } finally {
      await stack.close();
      await store.stop();
      await bus.deleteQueues(queue, `${queue}.dead`);
    }
  });

  it('reconnects after the broker drops its connection, and drains in-flight batches on shutdown', async () => {
    const queue = `stratum.test.${suffix()}`;
    const exchange = `stratum-test-nova-${suffix()}`;
    const stack = await startTestStack({ eventEnv: ingestEnv(queue, { INGEST_EXCHANGES: exchange }) });
    try {
      const sent = Array.from({ length: 1000 }, (_, i) => notification(i));
      for (const n of sent.slice(0, 400)) await bus.publish(exchange, 'notifications.info', n.body);
      // The broker closes the service's connection (as in a broker restart); rabbitmq-client reconnects by itself.
      execFileSync('rabbitmqctl', [
        '-q',
        'eval',
        'rabbit_networking:close_connections([P || P <- rabbit_networking:connections(), proplists:get_value(name, rabbit_networking:connection_info(P, [name])) =/= undefined, lists:member({<<"connection_name">>, longstr, <<"stratum-event-query">>}, element(2, lists:keyfind(client_properties, 1, rabbit_networking:connection_info(P, [client_properties]))))], "test").',
      ]);
      await waitFor('the consumer reconnected', async () => (stack.eventDeps.consumer?.stats.ready ?? 0) >= 2, 30_000);
      for (const n of sent.slice(400)) await bus.publish(exchange, 'notifications.info', n.body);
      await waitFor('all events stored after the reconnect', async () => (await storedIds(stack)).length === 1000, 60_000);
      expect(new Set(await storedIds(stack))).toEqual(new Set(sent.map((n) => n.id)));

      // Shutdown mid-stream: what was taken is stored or requeued, never dropped.
      const more = Array.from({ length: 1000 }, (_, i) => notification(i + 1000));
      for (const n of more) await bus.publish(exchange, 'notifications.info', n.body);
      await stack.eventDeps.consumer?.close();
      // The broker requeues the closed channel's unacknowledged messages: wait until every event is stored or waiting.
      const accounted = async () => {
        const stored = new Set(await storedIds(stack));
        return more.filter((n) => stored.has(n.id)).length + (await bus.count(queue));
      };
      await waitFor('every event stored or back in the queue', async () => (await accounted()) >= 1000, 30_000);
      expect(await accounted()).toBe(1000);
    } finally {
      await stack.close();
      await bus.deleteQueues(queue, `${queue}.dead`);
    }
  });
});
