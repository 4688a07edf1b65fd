/**
 * POLICY_FILE: an operator's policy file changes who may do what without a code change, and a bad one stops the
 * service at start with a message naming the file, the rule and the position.
 */
import { join } from 'node:path';
import { startWithPolicy, writePolicyFile } from '@stratum/policy/testing';
import { startTestStack, type TestStack, tokenOf, uuid } from '@stratum/testing';
import request from 'supertest';
import { at, event, ids, seeder } from './crafted';

describe('event-query policy file', () => {
  let byDefault: TestStack;
  let granted: TestStack;
  const type = `policy.${uuid().slice(0, 8)}`;
  beforeAll(async () => {
    byDefault = await startTestStack();
    // Readers are not segregated: with all_tenants=true they read every project's events.
    const file = writePolicyFile('segregation: "rule:context_is_admin or role:reader"\n');
    granted = await startTestStack({ eventEnv: { POLICY_FILE: file } });
  });
  afterAll(async () => {
    await byDefault?.close();
    await granted?.close();
  });

  /** Seeds one event in project B and lists with all_tenants as `who`: the message ids seen. */
  const seenAcrossProjects = async (stack: TestStack, who: 'readerA') => {
    const [b] = await seeder(() => stack)([event({ type, generated: at(1), project: stack.projectB })]);
    const res = await request(stack.gateway)
      .get(`/v2/events?q.field=event_type&q.op=eq&q.value=${type}&q.field=all_tenants&q.op=eq&q.value=True`)
      .set(tokenOf(stack, who));
    expect(res.status).toBe(200);
    return { seen: ids(res), id: (b as { message_id: string }).message_id };
  };

  it("by default a reader does not see another project's events, even with all_tenants", async () => {
    const { seen, id } = await seenAcrossProjects(byDefault, 'readerA');
    expect(seen).not.toContain(id);
  });

  it('a file granting segregation to readers lets them read every project, and not publish', async () => {
    const { seen, id } = await seenAcrossProjects(granted, 'readerA');
    expect(seen).toEqual([id]);
    const one = await request(granted.gateway).get(`/v2/events/${id}?all_tenants=true`).set(tokenOf(granted, 'readerA'));
    expect(one.status).toBe(200);
    const post = await request(granted.gateway).post('/v2/ingest/events').set(tokenOf(granted, 'readerA')).send([]);
    expect(post.status).toBe(403);
    expect(post.body.error_message.faultstring).toBe('RBAC Authorization Failed');
  });

  it.each([
    [
      'a check that does not parse',
      '"telemetry:events:index": "role:reader and and role:member"\n',
      [':1:27', 'rule "telemetry:events:index"', 'column 17'],
    ],
    ['an unknown rule name', '"telemetry:events:list": "@"\n', ['rule "telemetry:events:list"', 'unknown rule name']],
    ['rules that refer to each other', 'context_is_admin: "rule:segregation"\n', ['cycle']],
  ])('%s stops the service at start with a clear error', async (_what, text, parts) => {
    const { code, output, file } = await startWithPolicy(join(__dirname, '..', 'src', 'server.ts'), text, { INGEST_AMQP_URL: '' });
    expect(code).toBe(1);
    expect(output).toContain(`policy file ${file}`);
    for (const p of parts) expect(output).toContain(p);
  });
});
