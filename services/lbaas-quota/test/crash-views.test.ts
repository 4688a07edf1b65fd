/**
 * A process that dies after its commit and before it updates the shared show cache (Redis) must leave no view behind
 * that hides the commit: show, list and usage agree on the last committed revision, on the running replica and on a
 * restarted one.
 */
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cacheRedis, RedisRevisionCache } from '@stratum/cache';
import { signIdentity } from '@stratum/identity';
import type { RevisionCache } from '@stratum/revisions';
import { startTestStack, type TestStack, tokenOf } from '@stratum/testing';
import request from 'supertest';
import { buildApp, createDeps, loadConfig } from '../src';
import { LBAAS_QUOTAS_COLLECTION, QuotasRepository } from '../src/quotas/quotas.repository';
import { QuotasService } from '../src/quotas/quotas.service';

const REDIS_URL = process.env.STRATUM_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/0';
const UNLIMITED = { load_balancer: -1, listener: -1, member: -1, pool: -1, health_monitor: -1, l7policy: -1, l7rule: -1 };

/**
 * The show cache as a process sees it that is killed right after each commit: whatever it offers after its write
 * never arrives (the offer never settles, as the process is gone), while what it did before the write did.
 */
class KilledAfterCommit implements RevisionCache {
  constructor(private readonly real: RevisionCache) {}
  get(key: string) {
    return this.real.get(key);
  }
  offer(key: string, revision: number, json: string): Promise<void> {
    // Before a write a writer may only mark the revision it is about to commit (an empty JSON); a record's JSON is
    // only offered once the write is done, and this process is dead by then.
    if (json === '') return this.real.offer(key, revision, json);
    return new Promise<void>(() => undefined);
  }
}

describe('views after a crash between the commit and the cache update', () => {
  let stack: TestStack;
  let redis: ReturnType<typeof cacheRedis>;
  /** A process that will be killed right after its next commit (one per crash: a dead process commits no more). */
  let doomed: () => QuotasService;

  beforeAll(async () => {
    stack = await startTestStack();
    redis = cacheRedis(REDIS_URL);
    // The same database and the same Redis keys as the stack's lbaas-quota (deps.ts).
    const cache = new RedisRevisionCache(redis, `stratum:${stack.db.databaseName}:lbaas_quotas:`, 60);
    doomed = () => new QuotasService(new QuotasRepository(stack.db, new KilledAfterCommit(cache)), UNLIMITED, 1000);
  });
  afterAll(async () => {
    redis.disconnect();
    await stack.close();
  });

  const as = (who: keyof TestStack['personas']) => tokenOf(stack, who);
  const revisionOf = async (p: string) =>
    (await stack.db.collection<{ _id: string; revision: number }>(LBAAS_QUOTAS_COLLECTION).findOne({ _id: p }))?.revision ?? 0;
  /** Polls the store until the project's record reaches `revision`. */
  async function committed(p: string, revision: number): Promise<void> {
    for (let i = 0; i < 500 && (await revisionOf(p)) < revision; i++) await new Promise((r) => setImmediate(r));
    expect(await revisionOf(p)).toBe(revision);
  }

  /** What show, the list and usage say of a project's load balancers (limit; in_use where the view has it). */
  async function views(get: (path: string) => Promise<{ status: number; body: Record<string, unknown> }>, p: string) {
    const show = await get(`/v2.0/lbaas/quotas/${p}`);
    const list = await get(`/v2.0/lbaas/quotas?project_id=${p}`);
    const usage = await get(`/v2.0/lbaas/quotas/${p}/usage`);
    expect([show.status, list.status, usage.status]).toEqual([200, 200, 200]);
    const item = (list.body.quotas as Record<string, number>[])[0] as Record<string, number>;
    const u = (usage.body.usage as Record<string, { limit: number; in_use: number }>).load_balancer;
    return {
      show: (show.body.quota as Record<string, number>).load_balancer,
      list: [item.load_balancer, item.in_use_load_balancer],
      usage: [u?.limit, u?.in_use],
    };
  }
  const viaGateway = async (path: string) => {
    const res = await request(stack.gateway).get(path).set(as('admin'));
    return { status: res.status, body: res.body };
  };

  it('a PUT and a consume killed after their commits: show, list and usage agree, also after a restart', async () => {
    const p = randomBytes(16).toString('hex');
    await request(stack.gateway)
      .put(`/v2.0/lbaas/quotas/${p}`)
      .set(as('admin'))
      .send({ quota: { load_balancer: 100 } })
      .expect(202);
    await request(stack.gateway)
      .post(`/v2.0/lbaas/quotas/${p}/usage`)
      .set(as('service'))
      .send({ consume: { load_balancer: 64 } })
      .expect(200);
    // The show fills the cache with the current revision.
    expect(await views(viaGateway, p)).toEqual({ show: 100, list: [100, 64], usage: [100, 64] });
    const before = await revisionOf(p);

    void doomed().update(p, { load_balancer: 120 });
    await committed(p, before + 1);
    void doomed().enforce(p, 'consume', { load_balancer: 2 });
    await committed(p, before + 2);

    expect(await views(viaGateway, p)).toEqual({ show: 120, list: [120, 66], usage: [120, 66] });

    // A restarted lbaas-quota (a new process state on the same store and Redis) says the same.
    const secret = stack.gatewayDeps.config.STRATUM_IDENTITY_SECRET;
    const deps = await createDeps(
      loadConfig({
        MONGODB_URI: process.env.STRATUM_TEST_MONGODB_URI,
        MONGODB_DATABASE: stack.db.databaseName,
        STRATUM_IDENTITY_SECRET: secret,
        LOG_LEVEL: 'silent',
        REDIS_URL,
      }),
    );
    const server: Server = buildApp(deps).listen(0, '127.0.0.1');
    try {
      await new Promise((ok) => server.once('listening', ok));
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const identity = { userId: 'admin', projectId: 'admin', domainId: 'default', roles: ['admin'] };
      const restarted = async (path: string) => {
        const res = await fetch(base + path, { headers: signIdentity(identity, secret, { method: 'GET', url: path }) });
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      };
      expect(await views(restarted, p)).toEqual({ show: 120, list: [120, 66], usage: [120, 66] });
    } finally {
      server.closeAllConnections();
      await new Promise((ok) => server.close(ok));
      await deps.close();
    }
  });
});
