import { randomBytes } from 'node:crypto';
import { type Revision, RevisionedRecords } from '@stratum/revisions';
import { must } from '@stratum/testing';
import type { Redis } from 'ioredis';
import { type Db, MongoClient } from 'mongodb';
import { cacheRedis, MemoryRevisionCache, RedisRevisionCache } from '../src';

const REDIS_URL = process.env.STRATUM_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/0';

describe('revision caches', () => {
  let redis: Redis;
  const prefix = `stratum:test:${randomBytes(4).toString('hex')}:`;
  beforeAll(async () => {
    redis = cacheRedis(REDIS_URL);
    if (redis.status !== 'ready') await new Promise((ok) => redis.once('ready', ok));
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it.each([
    ['Redis', () => new RedisRevisionCache(redis, prefix, 60)],
    ['in-process', () => new MemoryRevisionCache(100, 60)],
  ])('%s: an entry only moves forward (a slow reader cannot put back an older revision)', async (_kind, make) => {
    const cache = make();
    const key = randomBytes(4).toString('hex');
    expect(await cache.get(key)).toBeNull();
    await cache.offer(key, 2, '{"n":2}');
    await cache.offer(key, 1, '{"n":1}');
    expect(await cache.get(key)).toEqual({ revision: 2, json: '{"n":2}' });
    await cache.offer(key, 3, '{"n":3}');
    expect(await cache.get(key)).toEqual({ revision: 3, json: '{"n":3}' });
  });

  it('a Redis that cannot be reached answers misses at once and is never waited for', async () => {
    const down = cacheRedis('redis://127.0.0.1:9/0', 100);
    const cache = new RedisRevisionCache(down, prefix, 60);
    const t0 = Date.now();
    await cache.offer('k', 1, '{}');
    expect(await cache.get('k')).toBeNull();
    expect(Date.now() - t0).toBeLessThan(2000);
    down.disconnect();
  });

  it('two replicas sharing Redis: a read on one sees a change made on the other', async () => {
    const clients = [await MongoClient.connect(process.env.STRATUM_TEST_MONGODB_URI as string)];
    const db: Db = must(clients[0]).db(`t_${randomBytes(6).toString('hex')}`);
    try {
      const replica = () => new RevisionedRecords<{ n: number }>(db, 'counters', { cache: new RedisRevisionCache(redis, prefix, 60) });
      const a = replica();
      const b = replica();
      const key = randomBytes(4).toString('hex');
      expect(await b.peek(key)).toBeNull(); // cached as "no record"
      await a.update(key, () => ({ next: { n: 1 }, result: undefined }));
      expect(await b.peek(key)).toEqual({ revision: 1, state: { n: 1 } });
      await b.update(key, (cur) => ({ next: { n: (cur?.state.n ?? 0) + 1 }, result: undefined }));
      expect(await a.peek(key)).toEqual({ revision: 2, state: { n: 2 } });
    } finally {
      await db.dropDatabase();
      await Promise.all(clients.map((c) => c.close()));
    }
  });
});

/**
 * Records whose first attempt decides on a cached record: each replica's in-process cache is made stale by the other,
 * and the store's conditional write still keeps every count exact.
 */
describe('RevisionedRecords with stale caches', () => {
  type Counter = { n: number };
  const inc = (cap: number) => (cur: Revision<Counter> | null) => {
    const n = cur?.state.n ?? 0;
    return n < cap ? { next: { n: n + 1 }, result: true } : { result: false };
  };
  const key = () => `k-${randomBytes(4).toString('hex')}`;
  let clients: MongoClient[];
  let db: Db;
  const replicas = () =>
    [0, 1].map(
      (i) =>
        new RevisionedRecords<Counter>(must(clients[i]).db(db.databaseName), 'counters', {
          cache: new MemoryRevisionCache(100, 60),
        }),
    ) as [RevisionedRecords<Counter>, RevisionedRecords<Counter>];

  beforeAll(async () => {
    const uri = process.env.STRATUM_TEST_MONGODB_URI as string;
    clients = [await MongoClient.connect(uri), await MongoClient.connect(uri)];
    db = must(clients[0]).db(`t_${randomBytes(6).toString('hex')}`);
  });
  afterAll(async () => {
    await db.dropDatabase().catch(() => undefined);
    await Promise.all(clients.map((c) => c.close()));
  });

  it('uncapped increments from two replicas lose no update', async () => {
    const rs = replicas();
    const k = key();
    const unbounded = inc(Number.MAX_SAFE_INTEGER);
    await Promise.all(Array.from({ length: 60 }, (_, i) => rs[i % 2]?.update(k, unbounded)));
    // One at a time, alternating replicas: every first attempt starts from a cache the other replica made stale.
    for (let i = 0; i < 20; i++) await rs[i % 2]?.update(k, unbounded);
    expect((await rs[0].read(k))?.state).toEqual({ n: 80 });
  });

  it('a stale cache never refuses what the store allows: the refusal is confirmed against the store', async () => {
    const [a, b] = replicas();
    const k = key();
    await a.update(k, () => ({ next: { n: 5 }, result: undefined }));
    expect(await b.peek(k)).toEqual({ revision: 1, state: { n: 5 } }); // b caches n = 5
    await a.update(k, () => ({ next: { n: 0 }, result: undefined }));
    // On b's cached state the cap of 5 is met; the store has 0, so the increment goes through.
    expect((await b.update(k, inc(5))).result).toBe(true);
    expect(await a.read(k)).toEqual({ revision: 3, state: { n: 1 } });
  });
});
