/**
 * The move from FerretDB 1.24: a real FerretDB 1.24.2 on SQLite holds data as `npm start` of earlier versions left
 * it, and migrateFromFerretDB124 copies it into the test store (types, indexes, revision logs folded into their
 * records), once. foldRevisionLogs on its own: a record left behind its log takes the log's newest state.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Db, type Document, Double, Int32, Long, MongoClient } from 'mongodb';
import { foldRevisionLogs, migrateFromFerretDB124, startFerretDB124 } from '../src/migrate';

jest.setTimeout(240_000);

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

describe('migrateFromFerretDB124', () => {
  it('copies FerretDB 1.24 SQLite data into the store once: documents with their BSON types, indexes, folded logs', async () => {
    const varDir = mkdtempSync(join(tmpdir(), 'stratum-migrate-'));
    const database = `m_${randomBytes(6).toString('hex')}`;
    const target = await MongoClient.connect(process.env.STRATUM_TEST_MONGODB_URI as string, { promoteValues: false });
    try {
      // FerretDB 1.24 on SQLite, as earlier versions ran it, with data written through it.
      mkdirSync(join(varDir, 'ferretdb'));
      const old = await startFerretDB124(join(varDir, 'ferretdb'));
      try {
        const src = await MongoClient.connect(old.uri);
        const db = src.db(database);
        await db.collection<Document>('events').insertMany([
          {
            _id: 'e1' as never,
            event_type: 't',
            generated: '2026-11-20T00:00:00.000000',
            t: { n: new Long(2 ** 40), i: new Int32(7), f: new Double(2) },
          },
          { _id: 'e2' as never, event_type: 't', generated: '2026-11-20T00:00:01.000000', t: {} },
        ]);
        await db.collection('events').createIndex({ event_type: 1, generated: 1 }, { name: 'type_generated' });
        await db.collection<Document>('lbaas_quotas').insertOne({ _id: 'p1' as never, revision: 1, limits: { load_balancer: 5 } });
        await db.collection<Document>('lbaas_quotas.revisions').insertMany([
          { _id: 'p1@1' as never, key: 'p1', revision: 1, state: { limits: { load_balancer: 5 } } },
          { _id: 'p1@2' as never, key: 'p1', revision: 2, state: { limits: { load_balancer: 8 } } },
        ]);
        await src.close();
      } finally {
        await old.stop();
      }

      const summary = await migrateFromFerretDB124(varDir, process.env.STRATUM_TEST_MONGODB_URI as string);
      expect(summary).toMatchObject({ [`${database}.events`]: 2, [`${database}.lbaas_quotas`]: 1 });
      const db = target.db(database);
      const e1 = (await db.collection<Document>('events').findOne({ _id: 'e1' as never })) as Document;
      expect(e1.t.n).toBeInstanceOf(Long);
      expect(e1.t.i).toBeInstanceOf(Int32);
      expect(e1.t.f).toBeInstanceOf(Double);
      expect((await db.collection('events').listIndexes().toArray()).map((i) => i.name).sort()).toEqual(['_id_', 'type_generated']);
      const p1 = (await target.db(database, { promoteValues: true }).collection<Document>('lbaas_quotas').findOne({})) as Document;
      expect(p1).toEqual({ _id: 'p1', revision: 2, limits: { load_balancer: 8 } });
      expect((await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name).sort()).toEqual(['events', 'lbaas_quotas']);
      // Once: the old directory is moved aside, and a second call finds nothing to do.
      expect(existsSync(join(varDir, 'ferretdb'))).toBe(false);
      expect(existsSync(join(varDir, 'ferretdb-1.24-migrated'))).toBe(true);
      expect(await migrateFromFerretDB124(varDir, process.env.STRATUM_TEST_MONGODB_URI as string)).toBeUndefined();
    } finally {
      await target.db(database).dropDatabase();
      await target.close();
      rmSync(varDir, { recursive: true, force: true });
    }
  });
});
