import { randomBytes } from 'node:crypto';
import { type Db, MongoClient } from 'mongodb';
import { type Revision, RevisionedRecords } from '../src';

/**
 * Two "replicas" (separate clients and RevisionedRecords instances) on one FerretDB database race for the same keys.
 * FerretDB 1.x applies update filters outside the database, so only the claimed revisions keep these counts exact.
 */
describe('RevisionedRecords on FerretDB', () => {
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

  it('200 concurrent capped increments from two replicas: exactly the cap succeed, none lost', async () => {
    const replicas = (dbs as Db[]).map((db) => new RevisionedRecords<Counter>(db, name));
    const key = `k-${randomBytes(4).toString('hex')}`;
    const outcomes = await Promise.all(
      Array.from({ length: 200 }, (_, i) => (replicas[i % 2] as RevisionedRecords<Counter>).update(key, inc(50))),
    );
    expect(outcomes.filter((o) => o.result).length).toBe(50);
    const read = (await (replicas[1] as RevisionedRecords<Counter>).read(key)) as Revision<Counter>;
    expect(read.state).toEqual({ n: 50 });
    // Updates queued together in one replica commit as one revision.
    expect(read.revision).toBeLessThanOrEqual(50);
    // The head converged on the last revision, so lists see what reads see.
    const head = await (replicas[0] as RevisionedRecords<Counter>).heads.findOne({ _id: key });
    expect(head).toEqual({ _id: key, n: 50, revision: read.revision });
  });

  it('uncapped increments from two replicas lose no update, and old revisions are pruned', async () => {
    const replicas = (dbs as Db[]).map((db) => new RevisionedRecords<Counter>(db, name, { keep: 8 }));
    const key = `k-${randomBytes(4).toString('hex')}`;
    await Promise.all(
      Array.from({ length: 60 }, (_, i) => (replicas[i % 2] as RevisionedRecords<Counter>).update(key, inc(Number.MAX_SAFE_INTEGER))),
    );
    expect((await (replicas[0] as RevisionedRecords<Counter>).read(key))?.state).toEqual({ n: 60 });
    // One at a time, so each is its own revision: 40 more, and the log keeps the newest `keep`.
    const before = (await (replicas[0] as RevisionedRecords<Counter>).read(key))?.revision ?? 0;
    for (let i = 0; i < 40; i++) await (replicas[i % 2] as RevisionedRecords<Counter>).update(key, inc(Number.MAX_SAFE_INTEGER));
    expect(await (replicas[0] as RevisionedRecords<Counter>).read(key)).toEqual({ revision: before + 40, state: { n: 100 } });
    // Pruning is not awaited by the writers (housekeeping): give the last deletions a moment to land.
    const kept = async () => (dbs[0] as Db).collection(`${name}.revisions`).countDocuments({ key });
    for (let i = 0; i < 50 && (await kept()) > 8; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await kept()).toBeLessThanOrEqual(8);
  });

  it('a group commit refuses only the update whose decision threw; the others take effect in order', async () => {
    const records = new RevisionedRecords<Counter>(dbs[0] as Db, name);
    const key = `k-${randomBytes(4).toString('hex')}`;
    const boom = () => {
      throw new Error('refused');
    };
    const [a, b, c] = await Promise.allSettled([records.update(key, inc(10)), records.update(key, boom), records.update(key, inc(10))]);
    expect(a.status).toBe('fulfilled');
    expect(b).toMatchObject({ status: 'rejected', reason: new Error('refused') });
    expect(c.status).toBe('fulfilled');
    expect((await records.read(key))?.state).toEqual({ n: 2 });
  });

  it('a refusal changes nothing, and a decision that throws propagates without a write', async () => {
    const records = new RevisionedRecords<Counter>(dbs[0] as Db, name);
    const key = `k-${randomBytes(4).toString('hex')}`;
    await records.update(key, inc(1));
    expect((await records.update(key, inc(1))).result).toBe(false);
    await expect(
      records.update(key, () => {
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(await records.read(key)).toEqual({ revision: 1, state: { n: 1 } });
    expect(await records.read(`never-${key}`)).toBeNull();
  });

  it('a reader rolls forward over a revision whose head was never written (writer died after its commit)', async () => {
    const records = new RevisionedRecords<Counter>(dbs[0] as Db, name);
    const key = `k-${randomBytes(4).toString('hex')}`;
    await records.update(key, inc(10));
    // Simulate a writer that committed revision 2 and died before writing the head.
    await (dbs[0] as Db)
      .collection(`${name}.revisions`)
      .insertOne({ _id: `${key}@2` as never, key, revision: 2, state: { n: 7 }, at: new Date() });
    expect(await records.read(key)).toEqual({ revision: 2, state: { n: 7 } });
    await records.update(key, inc(10));
    expect(await records.heads.findOne({ _id: key })).toEqual({ _id: key, n: 8, revision: 3 });
  });

  it('a head written before revisions existed (no revision field) counts as revision 0 and is carried on', async () => {
    const records = new RevisionedRecords<Counter>(dbs[0] as Db, name);
    const key = `k-${randomBytes(4).toString('hex')}`;
    await records.heads.insertOne({ _id: key, n: 41 } as never);
    expect(await records.read(key)).toEqual({ revision: 0, state: { n: 41 } });
    await records.update(key, inc(100));
    expect(await records.read(key)).toEqual({ revision: 1, state: { n: 42 } });
  });
});
