/**
 * The test store is FerretDB 2.5 on DocumentDB as docs/stores.md describes it: indexes made through FerretDB are
 * extended RUM indexes with the composite opclass and serve a sorted page in index order, pg_cron reaches the server
 * over its socket, and collectionSize finds a collection's table.
 */
import { randomBytes } from 'node:crypto';
import { type Db, MongoClient } from 'mongodb';
import { collectionSize, type RunningPostgres, STORE_PURPOSES, startPostgres } from '../src';

// Only on the project's own test store (not when STRATUM_TEST_MONGODB_URI names another server).
const onOwnStore = process.env.STRATUM_TEST_POSTGRESQL_URL ? describe : describe.skip;

onOwnStore('the test store (FerretDB 2.5 + DocumentDB)', () => {
  let client: MongoClient;
  let db: Db;
  let pg: RunningPostgres;

  beforeAll(async () => {
    client = await MongoClient.connect(process.env.STRATUM_TEST_MONGODB_URI as string);
    db = client.db(`t_${randomBytes(6).toString('hex')}`);
    // Joins the cluster the global setup started (stop() only leaves it).
    pg = await startPostgres(STORE_PURPOSES.test);
  });
  afterAll(async () => {
    await db.dropDatabase();
    await client.close();
    await pg.stop();
  });

  it('creates indexes of the extended RUM access method with the composite opclass', async () => {
    await db.collection('events').insertOne({ resource_id: 'r', event_type: 't', generated: '2026-11-20T00:00:00' });
    await db.collection('events').createIndex({ resource_id: 1, event_type: 1, generated: -1 }, { name: 'rtg' });
    const defs = pg.sql(
      `SELECT indexdef FROM pg_indexes WHERE schemaname = 'documentdb_data' AND tablename = (SELECT 'documents_' || collection_id FROM documentdb_api_catalog.collections WHERE database_name = '${db.databaseName}' AND collection_name = 'events') AND indexdef LIKE '%rum%'`,
    );
    expect(defs).toContain('USING documentdb_extended_rum');
    expect(defs).toContain('bson_extended_rum_composite_path_ops');
    expect(defs).toContain('"resource_id", "event_type", { "generated" : -1 }');
  });

  it('serves a sorted page from the index in order: no Sort in the plan, the limit stops the scan', async () => {
    const col = db.collection('ordered');
    await col.createIndex({ project_id: 1, generated: 1, _id: 1 }, { name: 'project_generated_asc' });
    await col.insertMany(
      Array.from({ length: 2000 }, (_, i) => ({
        _id: `e${i}` as never,
        project_id: `p${i % 2}`,
        generated: `2026-11-20T00:${String(i % 60).padStart(2, '0')}`,
      })),
    );
    pg.sql(
      `ANALYZE documentdb_data.documents_${pg.sql(`SELECT collection_id FROM documentdb_api_catalog.collections WHERE database_name = '${db.databaseName}' AND collection_name = 'ordered'`).trim()}`,
    );
    const explained = await db.command({
      explain: { find: 'ordered', filter: { project_id: 'p1' }, sort: { generated: 1, _id: 1 }, limit: 10 },
    });
    const plan = JSON.stringify(explained.queryPlanner);
    expect(plan).toContain('"Index Name":"project_generated_asc"');
    expect(plan).toContain('"Order By"');
    expect(plan).not.toContain('"Node Type":"Sort"');
    const page = await col.find({ project_id: 'p1' }).sort({ generated: 1, _id: 1 }).limit(10).toArray();
    const expected = Array.from({ length: 1000 }, (_, k) => ({
      _id: `e${2 * k + 1}`,
      generated: `2026-11-20T00:${String((2 * k + 1) % 60).padStart(2, '0')}`,
    }))
      .sort((a, b) => (a.generated < b.generated ? -1 : a.generated > b.generated ? 1 : a._id < b._id ? -1 : 1))
      .slice(0, 10)
      .map((d) => d._id);
    expect(page.map((d) => d._id)).toEqual(expected);
  });

  it('reports the size of a collection, and zeros for one that does not exist', async () => {
    await db.collection('sized').insertMany(Array.from({ length: 100 }, (_, i) => ({ i, pad: 'x'.repeat(100) })));
    const size = collectionSize(pg, db.databaseName, 'sized');
    expect(size.table).toBeGreaterThan(0);
    expect(size.indexes).toBeGreaterThan(0);
    expect(collectionSize(pg, db.databaseName, 'absent')).toEqual({ table: 0, indexes: 0 });
  });

  it('schedules pg_cron jobs on the cluster socket, with DocumentDB built at the version FerretDB expects', () => {
    const hosts = pg.sql('SELECT DISTINCT nodename, nodeport FROM cron.job').trim();
    expect(hosts).toBe(`${pg.socketDir}|${pg.port}`);
    expect(pg.sql('SELECT documentdb_api.binary_extended_version()').trim()).toBe('0.106.0 gitref: HEAD sha:beb9d25d98 buildId:0');
  });
});
