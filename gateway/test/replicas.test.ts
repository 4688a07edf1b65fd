/**
 * Two real lbaas-quota processes behind one gateway (LBAAS_QUOTA_URL lists both): both take traffic, reads keep
 * answering 200 while one replica is killed (SIGKILL) mid-load, a write the dead replica refused goes to the live one,
 * the group's 503 when none is left, and `/ready` reports each replica.
 */

import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { freePort, stopChild } from '@stratum/store-runtime';
import { listenGateway, startServiceProcess, startTestStack, type TestStack, tokenOf, uuid, waitFor } from '@stratum/testing';

jest.setTimeout(120_000);

describe('replicas of a service behind the gateway', () => {
  let stack: TestStack;
  let gateway: { url: string; close(): Promise<void> };
  const children: ChildProcess[] = [];
  let urls: string[] = [];

  beforeAll(async () => {
    const ports = [await freePort(), await freePort()];
    urls = ports.map((p) => `http://127.0.0.1:${p}`);
    stack = await startTestStack({
      upstreamOverride: { LBAAS_QUOTA_URL: urls.join(',') },
      // Short, so the dead replica is tried again (and retried around) several times within the test.
      gatewayEnv: { UPSTREAM_COOLDOWN_MS: '200' },
    });
    const settings = { database: stack.db.databaseName, secret: stack.gatewayDeps.config.STRATUM_IDENTITY_SECRET };
    for (const port of ports) children.push(await startServiceProcess('lbaas-quota', port, settings));
    gateway = await listenGateway(stack);
  });
  afterAll(async () => {
    await gateway?.close();
    await Promise.all(children.map(stopChild));
    await stack?.close();
  });

  const admin = () => ({ ...tokenOf(stack, 'admin'), 'Content-Type': 'application/json' });
  const getQuota = (project: string) => fetch(`${gateway.url}/v2.0/lbaas/quotas/${project}`, { headers: admin() });
  const put = (project: string, pool: number) =>
    fetch(`${gateway.url}/v2.0/lbaas/quotas/${project}`, { method: 'PUT', headers: admin(), body: JSON.stringify({ quota: { pool } }) });
  /** Requests the gateway sent to each replica so far, by URL, and its retries. */
  const sent = async () => {
    const m = stack.gatewayDeps.metrics;
    const values = (await m.upstreamRequests.get()).values.filter((v) => v.labels.group === 'lbaas');
    const retries = (await m.upstreamRetries.get()).values.find((v) => v.labels.group === 'lbaas')?.value ?? 0;
    return { byReplica: urls.map((u) => values.find((v) => v.labels.replica === u)?.value ?? 0), retries };
  };
  const ready = async () =>
    (await (await fetch(`${gateway.url}/ready`)).json()) as {
      checks: Record<string, { status: string; checks?: Record<string, { status: string; cooling_down: boolean }> }>;
    };

  it('spreads requests over both replicas, and /ready reports each', async () => {
    const before = await sent();
    for (let i = 0; i < 10; i++) expect((await getQuota(uuid())).status).toBe(200);
    const after = await sent();
    expect(after.byReplica.map((n, i) => n - (before.byReplica[i] ?? 0))).toEqual([5, 5]);
    const lbaas = (await ready()).checks['lbaas-quota'];
    expect(lbaas?.status).toBe('ok');
    expect(Object.keys(lbaas?.checks ?? {})).toEqual(urls);
    for (const url of urls) expect(lbaas?.checks?.[url]).toMatchObject({ status: 'ok', cooling_down: false });
  });

  it('keeps answering reads 200 while a replica is killed mid-load, retrying them on the other', async () => {
    const before = await sent();
    const statuses: number[] = [];
    let killedAt = 0;
    let running = true;
    const clients = Array.from({ length: 4 }, async () => {
      while (running) statuses.push((await getQuota(uuid())).status);
    });
    await waitFor('reads before the kill', async () => statuses.length >= 40, 30_000);
    const victim = children[0] as ChildProcess;
    victim.kill('SIGKILL');
    await once(victim, 'exit');
    killedAt = statuses.length;
    // Long enough for several cool-downs to pass, so the dead replica is picked (and retried around) again.
    const until = Date.now() + 1500;
    await waitFor('reads after the kill', async () => statuses.length >= killedAt + 80 && Date.now() >= until, 30_000);
    running = false;
    await Promise.all(clients);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    const after = await sent();
    expect(after.retries - before.retries).toBeGreaterThanOrEqual(1);
    // The survivor took the reads after the kill.
    expect((after.byReplica[1] ?? 0) - (before.byReplica[1] ?? 0)).toBeGreaterThan(40);

    const lbaas = (await ready()).checks['lbaas-quota'];
    expect(lbaas?.status).toBe('ok'); // one replica is enough to serve
    expect(lbaas?.checks?.[urls[0] as string]?.status).toBe('down');
    expect(lbaas?.checks?.[urls[1] as string]?.status).toBe('ok');
  });

  it('sends a write the dead replica refused to the live one (nothing was sent), once', async () => {
    // Once the dead replica's cool-down has passed it takes its turn again.
    await waitFor('the cool-down to pass', async () => {
      const lbaas = (await ready()).checks['lbaas-quota'];
      return lbaas?.checks?.[urls[0] as string]?.cooling_down === false;
    });
    const before = await sent();
    // Round-robin over two replicas: one of two consecutive writes is given to the dead one first.
    const projects = [uuid(), uuid()];
    for (const project of projects) expect((await put(project, 7)).status).toBe(202);
    const after = await sent();
    expect(after.retries - before.retries).toBe(1);
    for (const project of projects) {
      const stored = (await (await getQuota(project)).json()) as { quota: { pool: number } };
      expect(stored.quota.pool).toBe(7);
    }
  });

  it("answers the group's 503 when no replica can be reached", async () => {
    const survivor = children[1] as ChildProcess;
    survivor.kill('SIGKILL');
    await once(survivor, 'exit');
    const project = uuid();
    const res = await put(project, 9);
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ faultcode: 'Server', faultstring: expect.stringContaining('(Service Unavailable)') });
  });
});
