/**
 * Ceilometer's http:// publisher body on POST /v2/ingest/events, the retention expirer, and the import CLI.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { ROOT } from '@stratum/store-runtime';
import { startTestStack, type TestStack, tokenOf, uuid } from '@stratum/testing';
import pino from 'pino';
import request from 'supertest';
import { computeSignature, EventsRepository, expireEvents } from '../src';

jest.setTimeout(60_000);

let stack: TestStack;
/** The event service's log lines (JSON). */
const logLines: Record<string, unknown>[] = [];
const logSink = new Writable({
  write(chunk, _enc, done) {
    for (const line of String(chunk).split('\n')) if (line) logLines.push(JSON.parse(line));
    done();
  },
});
beforeAll(async () => {
  stack = await startTestStack({ eventEnv: { TELEMETRY_SECRET: 'telemetry-secret' }, eventLogger: pino({ level: 'warn' }, logSink) });
});
afterAll(() => stack.close());

const serialized = (over: Record<string, unknown> = {}) => ({
  message_id: uuid(),
  event_type: 'compute.instance.create.end',
  generated: '2026-11-21T12:20:00.040721',
  traits: [
    ['service', 1, 'compute'],
    ['project_id', 1, stack.projectA],
    ['memory_mb', 2, 9007199254740992], // written as …993 in the body text below
    ['load', 3, 0.25],
    ['launched_at', 4, '2026-11-21T12:20:00'],
  ],
  raw: {},
  ...over,
});

const ingest = (body: unknown, who: keyof TestStack['personas'] = 'admin') =>
  request(stack.gateway)
    .post('/v2/ingest/events')
    .set(tokenOf(stack, who))
    .set('Content-Type', 'application/json')
    .send(JSON.stringify(body));

describe('POST /v2/ingest/events (Ceilometer http:// publisher)', () => {
  it('stores a batch, exact to the digit, and counts a repeated one as duplicates', async () => {
    const events = [serialized(), serialized()];
    const text = JSON.stringify(events).replace('9007199254740992', '9007199254740993');
    const r = await request(stack.gateway)
      .post('/v2/ingest/events')
      .set(tokenOf(stack, 'admin'))
      .set('Content-Type', 'application/json')
      .send(text);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ stored: 2, duplicates: 0, dropped: [] });
    const e = await request(stack.gateway).get(`/v2/events/${events[0]?.message_id}`).set(tokenOf(stack, 'memberA'));
    expect(e.body.traits).toEqual([
      { name: 'service', type: 'String', value: 'compute' },
      { name: 'project_id', type: 'String', value: stack.projectA },
      { name: 'memory_mb', type: 'integer', value: '9007199254740993' },
      { name: 'load', type: 'float', value: '0.25' },
      { name: 'launched_at', type: 'datetime', value: '2026-11-21T12:20:00.000000' },
    ]);
    expect((await ingest(events)).body).toEqual({ stored: 0, duplicates: 2, dropped: [] });
  });

  it('accepts one event object (batch=False), notifications, and Basic credentials (the publisher cannot send X-Auth-Token)', async () => {
    const e = serialized();
    const basic = Buffer.from(`ceilometer:${stack.personas.admin.token}`).toString('base64');
    const r = await request(stack.gateway)
      .post('/event/v2/ingest/events')
      .set('Authorization', `Basic ${basic}`)
      .set('Content-Type', 'application/json')
      .send(e);
    expect(r.status).toBe(200);
    const note = {
      message_id: uuid(),
      event_type: 'port.create.end',
      priority: 'INFO',
      publisher_id: 'network.h',
      timestamp: '2026-11-21 12:00:00.5',
      payload: { port: { id: 'p1', name: 'n' } },
    };
    expect((await ingest([note])).body).toEqual({ stored: 1, duplicates: 0, dropped: [] });
  });

  it('is all or nothing, and lists every reason', async () => {
    const good = serialized();
    const r = await ingest([good, { ...serialized(), generated: 'noon' }, { ...serialized(), traits: [['x', 9, 'y']] }, 'text']);
    expect(r.status).toBe(400);
    expect(r.body.error_message.faultstring).toMatch(
      /^Nothing was stored\. records\[1\]: .*unparsable generated noon; records\[2\]: .*trait 0 is not \[name, dtype 1-4, value\]; records\[3\]: /,
    );
    expect((await request(stack.gateway).get(`/v2/events/${good.message_id}`).set(tokenOf(stack, 'admin'))).status).toBe(404);
  });

  it('refuses an envelope of another version and a payload that is not an object; reports what it drops', async () => {
    const note = (over: Record<string, unknown> = {}) => ({
      message_id: uuid(),
      event_type: 'compute.instance.update',
      priority: 'INFO',
      publisher_id: 'compute.h',
      timestamp: '2026-11-21 12:00:00',
      payload: { tenant_id: stack.projectA },
      ...over,
    });
    const envelope = (version: string, m: unknown) => ({ 'oslo.version': version, 'oslo.message': JSON.stringify(m) });
    const cases: [unknown, string][] = [
      [envelope('9.0', note()), 'unsupported oslo.version "9.0": this endpoint reads envelope 2.0'],
      [{ 'oslo.message': JSON.stringify(note()) }, 'not an oslo envelope: oslo.version and oslo.message go together'],
      [note({ payload: 'a string' }), 'not a notification: payload is a string, not a JSON object'],
      [note({ payload: null }), 'not a notification: payload is a null, not a JSON object'],
      [note({ priority: 3 }), 'not a notification: priority is a number'],
    ];
    for (const [record, reason] of cases) {
      const r = await ingest([record]);
      expect({ status: r.status, faultstring: r.body.error_message?.faultstring }).toEqual({
        status: 400,
        faultstring: `Nothing was stored. records[0]: ${reason}`,
      });
    }
    const [debug, bogus, good] = [note({ priority: 'DEBUG' }), note({ priority: 'bogus' }), note()];
    const r = await ingest([debug, envelope('2.0', bogus), good]);
    expect(r.body).toEqual({
      stored: 1,
      duplicates: 0,
      dropped: ['records[0]: priority DEBUG is not converted into events (only INFO and ERROR)', 'records[1]: unknown priority "bogus"'],
    });
    const status = async (id: string) =>
      (await request(stack.gateway).get(`/v2/events/${id}?all_tenants=true`).set(tokenOf(stack, 'admin'))).status;
    expect([await status(debug.message_id), await status(bogus.message_id), await status(good.message_id)]).toEqual([404, 404, 200]);
    const line = logLines.find((l) => l.message_id === debug.message_id);
    expect(line).toMatchObject({
      level: 40,
      kind: 'priority',
      event_type: 'compute.instance.update',
      msg: 'notification dropped: Ceilometer makes no event of it',
    });
  });

  it('checks a message_signature that is present', async () => {
    const e = serialized();
    const signed = { ...e, message_signature: computeSignature(e, 'telemetry-secret') };
    expect((await ingest([signed])).status).toBe(200);
    const r = await ingest([{ ...signed, message_id: uuid() }]);
    expect(r.status).toBe(400);
    expect(r.body.error_message.faultstring).toMatch(/invalid message_signature/);
  });

  it('refuses non-admins, missing tokens, non-JSON and other methods', async () => {
    expect((await ingest([serialized()], 'memberA')).status).toBe(403);
    expect((await ingest([serialized()], 'deptAdmin')).status).toBe(403);
    expect((await request(stack.gateway).post('/v2/ingest/events').send([])).status).toBe(401);
    const bad = await request(stack.gateway)
      .post('/v2/ingest/events')
      .set(tokenOf(stack, 'admin'))
      .set('Content-Type', 'application/json')
      .send('[{');
    expect(bad.status).toBe(400);
    expect(bad.body.error_message.faultstring).toBe('Request is not in valid JSON format');
    const get = await request(stack.gateway).get('/v2/ingest/events').set(tokenOf(stack, 'admin'));
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
  });
});

describe('retention', () => {
  it('deletes events older than the time to live in batches, keeps the rest, and prunes the summaries', async () => {
    const old = Array.from({ length: 25 }, () => serialized({ event_type: 'expiry.old', generated: '2020-01-01T00:00:00.000000' }));
    const recent = serialized({ event_type: 'expiry.recent', generated: '2026-11-21T00:00:00.000000' });
    expect((await ingest([...old, recent])).body.stored).toBe(26);
    const r = await expireEvents(new EventsRepository(stack.db), 86_400 * 30, 10, undefined, new Date('2026-11-21T12:00:00Z'));
    expect(r).toMatchObject({ cutoff: '2026-10-22T12:00:00.000000', deleted: 25, batches: 3 });
    expect(r.summariesDropped).toBeGreaterThanOrEqual(1);
    const types = await request(stack.gateway).get('/v2/event_types').set(tokenOf(stack, 'memberA'));
    expect(types.body).toContain('expiry.recent');
    expect(types.body).not.toContain('expiry.old');
    expect((await request(stack.gateway).get(`/v2/events/${recent.message_id}`).set(tokenOf(stack, 'memberA'))).status).toBe(200);
  });
});

describe('pnpm events import', () => {
  it('imports JSON lines with a summary: stored, duplicates, rejected with reasons; exit 1 when some were rejected', () => {
    const dir = mkdtempSync(join(tmpdir(), 'stratum-import-'));
    const file = join(dir, 'events.jsonl');
    const e = serialized();
    writeFileSync(file, `${JSON.stringify(e)}\n${JSON.stringify(e)}\nnot json\n\n${JSON.stringify({ ...serialized(), generated: 'x' })}\n`);
    const env = { ...process.env, MONGODB_URI: process.env.STRATUM_TEST_MONGODB_URI, MONGODB_DATABASE: stack.db.databaseName };
    const run = spawnSync('node', ['--import', 'tsx', join(ROOT, 'services/event-query/src/cli.ts'), 'import', file], {
      env,
      encoding: 'utf8',
    });
    expect(run.stdout).toContain('records: 4  stored: 1  duplicates: 1  ignored: 0  rejected: 2');
    expect(run.stdout).toMatch(/record 3: not valid JSON/);
    expect(run.stdout).toMatch(/record 5: event .*: unparsable generated x/);
    expect(run.status).toBe(1);
    const again = execFileSync(
      'node',
      ['--import', 'tsx', join(ROOT, 'services/event-query/src/cli.ts'), 'import', join(ROOT, 'deploy/samples/notifications.jsonl')],
      { env, encoding: 'utf8' },
    );
    expect(again).toContain('records: 389  stored: 389  duplicates: 0  ignored: 0  rejected: 0');
  });
});
