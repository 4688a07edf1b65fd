/**
 * The one-time upgrade of `npm start`'s data from FerretDB 1.24 (SQLite files in ./var/ferretdb, the embedded default
 * of earlier versions) into FerretDB 2.5: FerretDB 1.24.2 (built by deploy/scripts/install-ferretdb-1.24.sh) serves
 * the old files on a free loopback port, and every database, collection and index is copied through the driver.
 * Then the old directory is renamed to ./var/ferretdb-1.24-migrated, so it happens once.
 *
 * A copy interrupted half way is finished by the next start: documents already copied are skipped (duplicate `_id`).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, ROOT, stopChild, waitForPing } from '@stratum/store-runtime';
import { type Db, type Document, MongoBulkWriteError, MongoClient, MongoServerError } from 'mongodb';

/** What was copied: `<database>.<collection>` → documents in the source. */
export type MigrationSummary = Record<string, number>;

const log = (msg: string) => process.stderr.write(`migrate: ${msg}\n`);
const SYSTEM_DATABASES = ['admin', 'config', 'local'];
// Keep every BSON type as it is (an int64 stays an int64, not a JS number written back as int32 or double).
const EXACT = { promoteValues: false, promoteLongs: false, promoteBuffers: false, bsonRegExp: true } as const;

/** Index options FerretDB 1.24 reports and createIndex takes. */
const INDEX_OPTIONS = ['unique', 'sparse', 'partialFilterExpression', 'expireAfterSeconds', 'collation'];

/**
 * Copies the collections of database `name` from `src` to `dst`: documents in batches of 1,000 (unordered, duplicate
 * `_id`s skipped), then the indexes. @returns source document counts per collection.
 * @throws Error when the target holds fewer documents than the source afterwards.
 */
async function copyDatabase(src: MongoClient, dst: MongoClient, name: string): Promise<MigrationSummary> {
  const counts: MigrationSummary = {};
  const from = src.db(name, EXACT);
  const to = dst.db(name);
  for (const info of await from.listCollections({}, { nameOnly: false }).toArray()) {
    if (info.type && info.type !== 'collection') continue;
    const source = from.collection(info.name);
    const target = to.collection(info.name);
    let batch: Document[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      try {
        await target.insertMany(batch, { ordered: false });
      } catch (err) {
        // An earlier, interrupted migration copied these already.
        const dupOnly = err instanceof MongoBulkWriteError && [err.writeErrors].flat().every((e) => e.code === 11000);
        if (!dupOnly) throw err;
      }
      batch = [];
    };
    for await (const doc of source.find({}, { batchSize: 1000 })) {
      batch.push(doc);
      if (batch.length >= 1000) await flush();
    }
    await flush();
    for (const ix of await source.listIndexes().toArray()) {
      if (ix.name === '_id_') continue;
      const options: Document = { name: ix.name };
      for (const k of INDEX_OPTIONS) if (ix[k] !== undefined) options[k] = ix[k];
      try {
        await target.createIndex(ix.key, options);
      } catch (err) {
        // 85/86: an index of that name exists already (a rerun, or the service created it first).
        if (!(err instanceof MongoServerError && (err.code === 85 || err.code === 86))) throw err;
      }
    }
    const [have, want] = [Number(await target.countDocuments()), Number(await source.countDocuments())];
    if (have < want) throw new Error(`${name}.${info.name}: ${have} documents copied of ${want}`);
    counts[`${name}.${info.name}`] = want;
  }
  return counts;
}

/**
 * Earlier versions committed each quota change as an entry `{_id: "<key>@<n>", key, revision, state}` of a log
 * collection `<name>.revisions` and then wrote the record `{_id: key, revision, …state}` of `<name>`; a process that
 * died between the two left the record behind its log. Today a change is one conditional write on the record, so
 * each record takes its log's newest state where that is newer, and the logs are dropped.
 * @returns how many records were rolled forward.
 */
export async function foldRevisionLogs(db: Db): Promise<number> {
  let rolled = 0;
  const names = (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
  for (const logName of names.filter((n) => n.endsWith('.revisions'))) {
    const records = db.collection<Document>(logName.slice(0, -'.revisions'.length));
    const newest = new Map<string, Document>();
    for await (const entry of db.collection<Document>(logName).find({})) {
      const key = String(entry.key);
      if (Number(entry.revision) > Number(newest.get(key)?.revision ?? 0)) newest.set(key, entry);
    }
    for (const [key, entry] of newest) {
      const record = await records.findOne({ _id: key } as Document);
      if (record && Number(record.revision ?? 0) >= Number(entry.revision)) continue;
      await records.replaceOne({ _id: key } as Document, { ...entry.state, revision: entry.revision }, { upsert: true });
      rolled++;
    }
    await db.collection(logName).drop();
    log(`${db.databaseName}.${logName}: ${rolled} record(s) rolled forward to their log, log dropped`);
  }
  return rolled;
}

/**
 * FerretDB 1.24.2 (built into the cache by deploy/scripts/install-ferretdb-1.24.sh) serving the SQLite files in
 * `sqliteDir` on a free loopback port, with its state and log in a temporary directory.
 * @returns its URI, and `stop()`, which also removes the temporary directory.
 * @throws Error when it cannot be built, or does not answer within 30 s (the log's path is in the message).
 */
export async function startFerretDB124(sqliteDir: string): Promise<{ uri: string; stop(): Promise<void> }> {
  const bin = execFileSync('sh', [join(ROOT, 'deploy', 'scripts', 'install-ferretdb-1.24.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
  const stateDir = mkdtempSync(join(tmpdir(), 'stratum-ferretdb-1.24-'));
  const logPath = join(stateDir, 'ferretdb.log');
  const port = await freePort();
  const fd = openSync(logPath, 'a');
  const child: ChildProcess = spawn(
    bin,
    [
      '--handler=sqlite',
      `--sqlite-url=file:${sqliteDir}/`,
      `--listen-addr=127.0.0.1:${port}`,
      `--state-dir=${stateDir}`,
      '--telemetry=disable',
      '--debug-addr=127.0.0.1:0',
      '--log-level=warn',
    ],
    { stdio: ['ignore', fd, fd] },
  );
  const uri = `mongodb://127.0.0.1:${port}/`;
  await waitForPing(uri, child, logPath, 30_000);
  return {
    uri,
    stop: async () => {
      await stopChild(child);
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

/**
 * Copies FerretDB 1.24's SQLite data in `<varDir>/ferretdb` (if there is any) into the store at `targetUri`, then
 * renames the directory to `<varDir>/ferretdb-1.24-migrated`.
 * @returns what was copied, or undefined when there was nothing to migrate.
 * @throws Error when FerretDB 1.24.2 cannot be built or started, or a copy falls short (the old directory is kept).
 */
export async function migrateFromFerretDB124(varDir: string, targetUri: string): Promise<MigrationSummary | undefined> {
  const old = join(varDir, 'ferretdb');
  if (!existsSync(old) || !readdirSync(old).some((f) => f.endsWith('.sqlite'))) return undefined;
  log(`${old} holds FerretDB 1.24 data (SQLite); copying it into FerretDB 2.5 (once)`);
  const old124 = await startFerretDB124(old);
  const uri = old124.uri;
  let summary: MigrationSummary = {};
  try {
    const src = await MongoClient.connect(uri, EXACT);
    const dst = await MongoClient.connect(targetUri);
    try {
      const names = (await src.db().admin().listDatabases({ nameOnly: true })).databases.map((d) => d.name);
      for (const name of names.filter((n) => !SYSTEM_DATABASES.includes(n))) {
        summary = { ...summary, ...(await copyDatabase(src, dst, name)) };
        await foldRevisionLogs(dst.db(name, EXACT));
      }
    } finally {
      await src.close();
      await dst.close();
    }
  } finally {
    await old124.stop();
  }
  let done = join(varDir, 'ferretdb-1.24-migrated');
  if (existsSync(done)) done = `${done}-${Date.now()}`;
  renameSync(old, done);
  for (const [ns, n] of Object.entries(summary)) log(`${ns}: ${n} documents`);
  log(`done; the old files are in ${done} (remove them when you no longer need them)`);
  return summary;
}
