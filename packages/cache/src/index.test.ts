import { INTENT_MARKER } from '@stratum/revisions';
import { MemoryRevisionCache, revisionCache } from './index';

describe('MemoryRevisionCache', () => {
  it('misses on an unknown key and keeps the newest revision offered', async () => {
    const cache = new MemoryRevisionCache(10, 60);
    expect(await cache.get('k')).toBeNull();
    await cache.offer('k', 2, '{"n":2}');
    await cache.offer('k', 1, '{"n":1}');
    expect(await cache.get('k')).toEqual({ revision: 2, json: '{"n":2}' });
  });

  it('lets the committed record replace its own write-intent marker (same revision)', async () => {
    const cache = new MemoryRevisionCache(10, 60);
    await cache.offer('k', 1, '{"n":1}');
    await cache.offer('k', 2, INTENT_MARKER);
    expect(await cache.get('k')).toEqual({ revision: 2, json: INTENT_MARKER });
    await cache.offer('k', 1, '{"n":1}'); // a slow reader's older record does not hide the marker
    expect(await cache.get('k')).toEqual({ revision: 2, json: INTENT_MARKER });
    await cache.offer('k', 2, '{"n":2}');
    expect(await cache.get('k')).toEqual({ revision: 2, json: '{"n":2}' });
  });

  it('holds at most `max` entries, dropping the least recently used', async () => {
    const cache = new MemoryRevisionCache(2, 60);
    await cache.offer('a', 1, '{}');
    await cache.offer('b', 1, '{}');
    await cache.get('a');
    await cache.offer('c', 1, '{}');
    expect(await cache.get('b')).toBeNull();
    expect(await cache.get('a')).not.toBeNull();
    expect(await cache.get('c')).not.toBeNull();
  });
});

describe('revisionCache', () => {
  it('is the in-process cache without a Redis URL (no client to check or close)', async () => {
    const made = revisionCache({ redisUrl: '', prefix: 'p:', ttlSeconds: 60, max: 10 });
    expect(made.cache).toBeInstanceOf(MemoryRevisionCache);
    expect(made.redis).toBeUndefined();
    made.close();
  });
});
