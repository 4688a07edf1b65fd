/**
 * The move from FerretDB 1.24 folds the revision logs of earlier versions into their records (a record left behind
 * its log by a process that died between the two writes takes the log's newest state) and drops the logs.
 */
import { randomBytes } from 'node:crypto';
import { type Db, type Document, MongoClient } from 'mongodb';
import { foldRevisionLogs } from '../src/migrate';

describe('foldRevisionLogs', () => {
  let client: MongoClient;
  let db: Db;
  beforeAll(async () => {
    client = await MongoClient.connect(process.env.STRATUM_TEST_MONGODB_URI as string);
    db = client.db(`t_${randomBytes(6).toString('hex')}`);
  });
  afterAll(async () => {
    await db.dropDatabase();
    await client.close();
  });

  it('rolls records forward to their log and drops the log; records at or past their log stay as they are', async () => {
    const records = db.collection<Document>('lbaas_quotas');
    await records.insertMany([
      { _id: 'behind' as never, revision: 2, limits: { load_balancer: 5 } },
      { _id: 'current' as never, revision: 3, limits: { load_balancer: 7 } },
    ]);
    await db.collection<Document>('lbaas_quotas.revisions').insertMany([
      { _id: 'behind@2' as never, key: 'behind', revision: 2, state: { limits: { load_balancer: 5 } } },
      { _id: 'behind@3' as never, key: 'behind', revision: 3, state: { limits: { load_balancer: 9 } } },
      { _id: 'current@3' as never, key: 'current', revision: 3, state: { limits: { load_balancer: 7 } } },
      { _id: 'lost@1' as never, key: 'lost', revision: 1, state: { limits: { load_balancer: 1 } } },
    ]);
    expect(await foldRevisionLogs(db)).toBe(2);
    expect(await records.find({}).sort({ _id: 1 }).toArray()).toEqual([
      { _id: 'behind', revision: 3, limits: { load_balancer: 9 } },
      { _id: 'current', revision: 3, limits: { load_balancer: 7 } },
      { _id: 'lost', revision: 1, limits: { load_balancer: 1 } },
    ]);
    const names = (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
    expect(names).toEqual(['lbaas_quotas']);
  });
});
