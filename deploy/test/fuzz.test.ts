/**
 * A quick sample of the fuzz suite (deploy/fuzz; `pnpm fuzz` runs 10,000 and more): requests generated with
 * fast-check for every operation of the gateway's `/openapi.json`, hostile mutations included, sent raw through the
 * real gateway of a real stack. No answer is a 5xx, every 4xx has its group's error shape, none hangs, no untrusted
 * forwarded host is echoed, and the stack answers its health checks afterwards. The seed is fixed (FUZZ_SEED
 * overrides it) and printed with the failures, so a failure reproduces.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestStack, type TestStack } from '../../packages/testing/src';
import { fetchOpenApi, fixturesFor, runFuzz, seedFixtures, tallyMarkdown } from '../fuzz/fuzz';

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
      seconds: 45,
      concurrency: 4,
      timeoutMs: 10_000,
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
  });
});
