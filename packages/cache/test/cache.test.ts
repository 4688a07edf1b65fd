import { randomBytes } from 'node:crypto';
import { RevisionedRecords } from '@stratum/revisions';
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
    const db: Db = (clients[0] as MongoClient).db(`t_${randomBytes(6).toString('hex')}`);
    try {
      const [a, b] = [0, 1].map(
        () => new RevisionedRecords<{ n: number }>(db, 'counters', { cache: new RedisRevisionCache(redis, prefix, 60) }),
      );
      const key = randomBytes(4).toString('hex');
      expect(await b?.peek(key)).toBeNull(); // cached as "no record"
      await a?.update(key, () => ({ next: { n: 1 }, result: undefined }));
      expect(await b?.peek(key)).toEqual({ revision: 1, state: { n: 1 } });
      await b?.update(key, (cur) => ({ next: { n: (cur?.state.n ?? 0) + 1 }, result: undefined }));
      expect(await a?.peek(key)).toEqual({ revision: 2, state: { n: 2 } });
    } finally {
      await db.dropDatabase();
      await Promise.all(clients.map((c) => c.close()));
    }
  });
});
