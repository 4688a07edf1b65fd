/**
 * A quick sample of the fuzz suite (deploy/fuzz; `pnpm fuzz` runs 10,000 and more): requests generated with
 * fast-check for every operation of the gateway's `/openapi.json`, hostile mutations included, sent raw through the
 * real gateway of a real stack. No answer is a 5xx, every 4xx has its group's error shape, none hangs, no untrusted
 * forwarded host is echoed, and the stack answers its health checks afterwards. The seed is fixed (FUZZ_SEED
 * overrides it, FUZZ_SAMPLE the count) and printed with the failures, so a failure reproduces.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestStack, type TestStack } from '@stratum/testing';
import { type FuzzRequest, fetchOpenApi, fixturesFor, foreignData, runFuzz, seedFixtures, shapeProblem, tallyMarkdown } from '../fuzz/fuzz';
import { expectedGroup, operationsOf } from '../fuzz/operations';
import { encodeSegment } from '../fuzz/valid';
import { accepts } from '../fuzz/validate';
import { parseResponse } from '../fuzz/wire';
import { withSection } from '../src/markdown';

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_124);
const REQUESTS = Number(process.env.FUZZ_SAMPLE ?? 600);

describe('fuzz sample through the gateway', () => {
  let stack: TestStack;
  let server: Server;
  let port: number;

  beforeAll(async () => {
    stack = await startTestStack();
    server = stack.gateway.listen(0, '127.0.0.1');
    await new Promise<void>((ok, fail) => {
      server.once('listening', ok);
      server.once('error', fail);
    });
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((ok) => server.close(ok));
    await stack.close();
  });

  test(`${REQUESTS} generated requests: no 5xx, the group's error shape on every 4xx, no hang, healthy after (seed ${SEED})`, async () => {
    const target = { host: '127.0.0.1', port };
    const p = stack.personas;
    const ids = { projectA: stack.projectA, projectB: stack.projectB, deptDomainId: stack.deptDomainId };
    const fx = fixturesFor(
      {
        admin: p.admin.token,
        member: p.memberA.token,
        reader: p.readerA.token,
        otherMember: p.memberB.token,
        deptAdmin: p.deptAdmin.token,
      },
      ids,
    );
    await seedFixtures(target, fx, ids);
    const doc = await fetchOpenApi(target);

    const tally = await runFuzz({
      target,
      doc,
      fixtures: fx,
      seed: SEED,
      requests: REQUESTS,
      seconds: 100, // a bound, far above the few seconds it takes, for a machine busy with other suites
      concurrency: 4,
      timeoutMs: 20_000,
    });

    // Every operation of the document was exercised.
    const ops = Object.values((doc as { paths: Record<string, object> }).paths).reduce(
      (n, item) => n + Object.keys(item).filter((k) => ['get', 'put', 'post', 'delete', 'patch'].includes(k)).length,
      0,
    );
    expect(tally.perOperation.size).toBe(ops);
    const health = await Promise.all(
      ['/healthcheck', '/event/healthcheck', '/load-balancer/healthcheck', '/domain-quota/healthcheck'].map(async (path) => {
        const res = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(5000) });
        return `${path} ${res.status}`;
      }),
    );
    expect(health).toEqual([
      '/healthcheck 200',
      '/event/healthcheck 200',
      '/load-balancer/healthcheck 200',
      '/domain-quota/healthcheck 200',
    ]);
    if (tally.failed > 0) {
      throw new Error(`fuzz sample failed; FUZZ_SEED=${SEED} reproduces it\n${tallyMarkdown(tally, { maxCauses: 25 })}`);
    }
    expect(tally.requests).toBe(REQUESTS);
  }, 150_000);
});

describe('the fuzz oracle', () => {
  test("a 4xx body is judged against its group's shape", () => {
    const panko = Buffer.from(JSON.stringify({ error_message: { faultcode: 'Client', faultstring: 'x', debuginfo: null } }));
    const octavia = Buffer.from(JSON.stringify({ faultcode: 'Client', faultstring: 'x', debuginfo: null }));
    const keystone = Buffer.from(JSON.stringify({ error: { code: 404, title: 'Not Found', message: 'x' } }));
    expect(shapeProblem('panko', 400, panko)).toBeNull();
    expect(shapeProblem('octavia', 400, octavia)).toBeNull();
    expect(shapeProblem('keystone', 404, keystone)).toBeNull();
    expect(shapeProblem('keystone', 400, keystone)).toMatch(/Keystone/); // code must be the status
    expect(shapeProblem('panko', 400, octavia)).toMatch(/Panko/);
    expect(shapeProblem('octavia', 400, panko)).toMatch(/Octavia/);
    expect(shapeProblem('octavia', 431, Buffer.alloc(0))).toBe('empty body');
    expect(shapeProblem('keystone', 400, Buffer.from('<html>'))).toMatch(/^not JSON/);
  });

  test('a raw path is expected in the shape of the group that serves it, at the root and under its prefix', () => {
    const doc = {
      paths: {
        '/v2/events/{message_id}': { get: { servers: [{ url: '/' }, { url: '/event' }], tags: ['Events'] } },
        '/v2.0/lbaas/quotas/{project_id}': { get: { servers: [{ url: '/' }, { url: '/load-balancer' }], tags: ['Load balancer quotas'] } },
        '/v3/domain_quotas/{domain_id}': { get: { servers: [{ url: '/' }, { url: '/domain-quota' }], tags: ['Department quotas'] } },
        '/event': { get: { security: [] } },
        '/projects/{id}': { get: {} },
      },
    };
    const { groups, operations } = operationsOf(doc);
    expect(operations.find((o) => o.path === '/event')?.group).toBe('event');
    expect(expectedGroup(groups, '/v2/events/%ZZ')).toBe('event');
    expect(expectedGroup(groups, '/event/v2/events/a/b')).toBe('event');
    expect(expectedGroup(groups, '/load-balancer/v2.0/lbaas/quotas/x')).toBe('lbaas');
    expect(expectedGroup(groups, '/domain-quota/v3/domain_quotas/x')).toBe('domain');
    expect(expectedGroup(groups, '/event/healthcheck')).toBe('event');
    expect(expectedGroup(groups, '/event/v3/domain_quotas/x')).toBe('gateway'); // another group's path under a prefix
    expect(expectedGroup(groups, '/projects/x')).toBe('gateway');
  });

  test('answers are read whole: chunked bodies, an interim 100 Continue, a length', () => {
    const chunked = Buffer.from('HTTP/1.1 400 Bad Request\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n');
    expect(parseResponse(chunked, 'GET', false)).toEqual({
      response: { status: 400, headers: { 'transfer-encoding': 'chunked' }, body: Buffer.from('abcde') },
      complete: true,
    });
    const cont = Buffer.from('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\n{}');
    expect(parseResponse(cont, 'PUT', false)?.response.status).toBe(201);
    expect(parseResponse(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab'), 'GET', false)?.complete).toBe(false);
  });

  test('a body is checked against its schema (a 2xx to one that breaks it is reported)', () => {
    const id = (s: object) => s;
    const schema = {
      type: 'object',
      properties: {
        quota: { type: 'object', properties: { pool: { type: ['integer', 'null'], minimum: -1 } }, additionalProperties: false },
      },
      required: ['quota'],
      additionalProperties: false,
    };
    expect(accepts(schema, { quota: { pool: 3 } }, id)).toBe(true);
    expect(accepts(schema, { quota: { pool: null } }, id)).toBe(true);
    expect(accepts(schema, { quota: { pool: 1.5 } }, id)).toBe(false);
    expect(accepts(schema, { quota: { pool: -2 } }, id)).toBe(false);
    expect(accepts(schema, { quota: JSON.parse('{"constructor":1}') }, id)).toBe(false);
    expect(accepts(schema, {}, id)).toBe(false);
    expect(accepts(schema, { quota: { pool: '\u0001RAW:1e400\u0001' } }, id)).toBe(false); // Infinity once parsed
  });

  test("a member's answer with another project's events or quotas is caught", () => {
    const fx = fixturesFor(
      { admin: 'a', member: 'm', reader: 'r', otherMember: 'o', deptAdmin: 'd' },
      { projectA: 'A', projectB: 'B', deptDomainId: 'D' },
    );
    const req = (group: 'event' | 'lbaas', target: string, who: FuzzRequest['who'] = 'member') =>
      ({ op: { group }, who, wire: { method: 'GET', target, headers: [] } }) as unknown as FuzzRequest;
    const events = (p: string) =>
      Buffer.from(JSON.stringify([{ message_id: 'e', traits: [{ name: 'project_id', type: 'string', value: p }] }]));
    expect(foreignData(req('event', '/v2/events'), fx, events('A'))).toBeNull();
    expect(foreignData(req('event', '/v2/events'), fx, events('B'))).toMatch(/project_id "B"/);
    expect(foreignData(req('event', '/v2/events', 'admin'), fx, events('B'))).toBeNull();
    expect(foreignData(req('lbaas', '/v2.0/lbaas/quotas/B'), fx, Buffer.from('{"quota":{}}'))).toMatch(/project "B"/);
    expect(foreignData(req('lbaas', '/v2.0/lbaas/quotas/A/usage'), fx, Buffer.from('{}'))).toBeNull();
    expect(foreignData(req('lbaas', '/v2.0/lbaas/quotas/B/default'), fx, Buffer.from('{}'))).toBeNull();
    expect(foreignData(req('lbaas', '/v2.0/lbaas/quotas'), fx, Buffer.from('{"quotas":[{"project_id":"A"},{"project_id":"B"}]}'))).toMatch(
      /"B"/,
    );
  });

  test('a lone surrogate in an id is sent as its three bytes, not refused', () => {
    expect(encodeSegment('a\ud800b')).toBe('a%ED%A0%80b');
    expect(encodeSegment('名')).toBe('%E5%90%8D');
  });

  test("the tally's section replaces only itself, and pnpm bench's sections leave it alone", () => {
    const doc = '# Benchmarks\n\n## Gateway overhead\n\nold\n\n## Fuzz\n\nold fuzz\n\n## Reading\n\nkept\n';
    const fuzzed = withSection(doc, 'Fuzz', 'new fuzz');
    expect(fuzzed).toBe('# Benchmarks\n\n## Gateway overhead\n\nold\n\n## Fuzz\n\nnew fuzz\n\n## Reading\n\nkept\n');
    // deploy/bench/run.ts replaces a section the same way: from its heading to the next one.
    expect(withSection(fuzzed, 'Gateway overhead', 'new bench')).toContain('## Fuzz\n\nnew fuzz\n');
    expect(withSection('# B\n', 'Fuzz', 'x')).toBe('# B\n\n## Fuzz\n\nx\n');
  });
});
