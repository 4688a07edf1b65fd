import { randomBytes } from 'node:crypto';
import { must } from '@stratum/testing';
import { type Db, MongoClient } from 'mongodb';
import { type Revision, RevisionedRecords } from '../src';

/**
 * Two "replicas" (separate clients and RevisionedRecords instances) on one store database race for the same keys.
 * Only the store's atomic conditional write keeps these counts exact across replicas.
 */
describe('RevisionedRecords on the store', () => {
  const clients: MongoClient[] = [];
  let dbs: Db[];
  const name = `rev_${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    const uri = process.env.STRATUM_TEST_MONGODB_URI as string;
    for (let i = 0; i < 2; i++) clients.push(await MongoClient.connect(uri));
    const database = `t_${randomBytes(6).toString('hex')}`;
    dbs = clients.map((c) => c.db(database));
  });
  afterAll(async () => {
    await dbs[0]?.dropDatabase().catch(() => undefined);
    await Promise.all(clients.map((c) => c.close()));
  });

  type Counter = { n: number };
  const inc = (cap: number) => (cur: Revision<Counter> | null) => {
    const n = cur?.state.n ?? 0;
    return n < cap ? { next: { n: n + 1 }, result: true } : { result: false };
  };
  const key = () => `k-${randomBytes(4).toString('hex')}`;

  it('200 concurrent capped increments from two replicas: exactly the cap succeed, none lost', async () => {
    const replicas = dbs.map((db) => new RevisionedRecords<Counter>(db, name));
    const k = key();
    const outcomes = await Promise.all(Array.from({ length: 200 }, (_, i) => must(replicas[i % 2]).update(k, inc(50))));
    expect(outcomes.filter((o) => o.result).length).toBe(50);
    const read = must(await must(replicas[1]).read(k));
    expect(read.state).toEqual({ n: 50 });
    // Updates queued together in one replica commit as one revision.
    expect(read.revision).toBeLessThanOrEqual(50);
    expect(await must(replicas[0]).heads.findOne({ _id: k })).toEqual({ _id: k, n: 50, revision: read.revision });
  });

  it('a group commit refuses only the update whose decision threw; the others take effect in order', async () => {
    const records = new RevisionedRecords<Counter>(must(dbs[0]), name);
    const k = key();
    const boom = () => {
      throw new Error('refused');
    };
    const [a, b, c] = await Promise.allSettled([records.update(k, inc(10)), records.update(k, boom), records.update(k, inc(10))]);
    expect(a.status).toBe('fulfilled');
    expect(b).toMatchObject({ status: 'rejected', reason: new Error('refused') });
    expect(c.status).toBe('fulfilled');
    expect((await records.read(k))?.state).toEqual({ n: 2 });
  });

  it('a refusal changes nothing, and a decision that throws propagates without a write', async () => {
    const records = new RevisionedRecords<Counter>(must(dbs[0]), name);
    const k = key();
    await records.update(k, inc(1));
    expect((await records.update(k, inc(1))).result).toBe(false);
    await expect(
      records.update(k, () => {
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(await records.read(k)).toEqual({ revision: 1, state: { n: 1 } });
    expect(await records.read(`never-${k}`)).toBeNull();
  });

  it('a record stored before revisions existed (no revision field) counts as revision 0 and is carried on', async () => {
    const records = new RevisionedRecords<Counter>(must(dbs[0]), name);
    const k = key();
    await records.heads.insertOne({ _id: k, n: 41 } as never);
    expect(await records.read(k)).toEqual({ revision: 0, state: { n: 41 } });
    await records.update(k, inc(100));
    expect(await records.read(k)).toEqual({ revision: 1, state: { n: 42 } });
  });

  it('writes one document per key and nothing else (no log collection)', async () => {
    const records = new RevisionedRecords<Counter>(must(dbs[0]), `${name}_only`);
    const k = key();
    for (let i = 0; i < 5; i++) await records.update(k, inc(100));
    const names = (await must(dbs[0]).listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
    expect(names.filter((n) => n.startsWith(`${name}_only`))).toEqual([`${name}_only`]);
    expect(await records.heads.countDocuments({})).toBe(1);
  });
});
