/**
 * The event query benchmark: a million realistic events (events-data.ts) loaded into FerretDB 2.5 + DocumentDB (the bench
 * cluster), then group A's reads measured through the gateway with autocannon.
 *
 * The loaded database (MongoDB `stratum_bench_events` on the bench cluster, var/bench-postgres) is kept between runs:
 * a rerun with the same population skips the load and reports the load figures recorded when it was made.
 * BENCH_FRESH=1 reloads.
 * Environment: BENCH_EVENTS (default 1000000), BENCH_LOAD_BATCH (1000), BENCH_LOAD_CONCURRENCY (8).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  EventsRepository,
  mergeAnd,
  toEventDoc,
  translateComplexFilter,
  translateSimpleQuery,
  visibilityFilter,
} from '@stratum/event-query';
import type { TokensFile } from '@stratum/gateway';
import type { Identity } from '@stratum/identity';
import { collectionSize, freePort } from '@stratum/store-runtime';
import { SingleBar } from 'cli-progress';
import { type Db, type Document, MongoClient } from 'mongodb';
import { startStack } from '../src/processes';
import { ensureSecret, newToken } from '../src/tokens';
import { type BenchRequest, rowsTable, runScenario, type ScenarioRow } from './autocannon';
import { Population, type PopulationOptions } from './events-data';
import { explainFind } from './explain';
import { startBenchStore } from './store';

const DATABASE = 'stratum_bench_events';
/** Bump when events-data.ts or the stored document changes, so an old database is not reused. */
const POPULATION_VERSION = 4;

interface LoadRecord {
  _id: 'population';
  version: number;
  options: PopulationOptions;
  seconds: number;
  rate: number;
  batch: number;
  concurrency: number;
}

async function load(db: Db, population: Population, batch: number, concurrency: number): Promise<{ seconds: number; rate: number }> {
  const repo = new EventsRepository(db);
  const bar = new SingleBar({
    format: 'bench: loading events [{bar}] {percentage}% | {value}/{total} | {rate} events/s | ETA {eta_formatted}',
    hideCursor: true,
    // Without a terminal (CI logs, a pipe), print a line every 5 s instead of redrawing.
    noTTYOutput: true,
    notTTYSchedule: 5000,
  });
  const total = population.o.events;
  bar.start(total, 0, { rate: 0 });
  const started = performance.now();
  let done = 0;
  const inFlight = new Set<Promise<void>>();
  for (const events of population.batches(batch)) {
    const p = repo.insertMany(events.map(toEventDoc)).then(() => {
      done += events.length;
      bar.update(done, { rate: Math.round(done / ((performance.now() - started) / 1000)) });
    });
    inFlight.add(p);
    p.finally(() => inFlight.delete(p));
    if (inFlight.size >= concurrency) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  bar.stop();
  const seconds = (performance.now() - started) / 1000;
  return { seconds, rate: Math.round(total / seconds) };
}

function pickRandom<T>(items: readonly T[]): T {
  return items[Math.floor(Math.random() * items.length)] as T;
}

/** Runs the events benchmark; returns the markdown section for deploy/BENCHMARKS.md. */
export async function eventsBench(seconds: number, connections: number): Promise<string> {
  const options: PopulationOptions = {
    events: Number(process.env.BENCH_EVENTS ?? 1_000_000),
    resources: 10_000,
    projects: 50,
    days: 30,
    until: '2026-11-20',
    seed: 20261120,
  };
  const batch = Number(process.env.BENCH_LOAD_BATCH ?? 1000);
  const concurrency = Number(process.env.BENCH_LOAD_CONCURRENCY ?? 8);
  const store = await startBenchStore('bench-events', DATABASE, { keep: true });
  const dir = store.dir;
  const client = await MongoClient.connect(store.uri);
  const db = client.db(DATABASE);
  const population = new Population(options);
  let record = (await db.collection<LoadRecord>('bench_meta').findOne({ _id: 'population' })) ?? undefined;
  const reusable =
    record &&
    process.env.BENCH_FRESH !== '1' &&
    record.version === POPULATION_VERSION &&
    JSON.stringify(record.options) === JSON.stringify(options);
  if (!reusable) {
    await db.dropDatabase();
    // Every index the reads rely on exists while loading, as in a running deployment.
    await new EventsRepository(db).ensureIndexes();
    const loaded = await load(db, population, batch, concurrency);
    record = { _id: 'population', version: POPULATION_VERSION, options, ...loaded, batch, concurrency };
    await db.collection<LoadRecord>('bench_meta').insertOne(record);
  }
  // Current statistics, as autovacuum would have them some time after a bulk load (the planner's choice of an ordered
  // index scan over a Sort is cost-based).
  store.postgres.sql('ANALYZE');
  const size = collectionSize(store.postgres, DATABASE, 'events');
  // The index definitions DocumentDB made for the service's indexes (their opclass decides the A2 plan).
  const opclasses = store.postgres
    .sql(
      `SELECT DISTINCT substring(indexdef FROM 'USING ([a-z_]+)') || ' ' || substring(indexdef FROM '[.](bson_[a-z_]+_ops)') FROM pg_indexes WHERE schemaname = 'documentdb_data' AND tablename = (SELECT 'documents_' || collection_id FROM documentdb_api_catalog.collections WHERE database_name = '${DATABASE}' AND collection_name = 'events')`,
    )
    .trim()
    .split('\n')
    .filter(Boolean);

  // A sample of resources, their events' ids and a member token per project.
  const tokens: TokensFile = { tokens: {} };
  const memberOf = new Map<string, string>();
  for (const p of population.projects) {
    const t = newToken();
    memberOf.set(p, t);
    tokens.tokens[t] = { user_id: `user-${p.slice(0, 8)}`, project_id: p, domain_id: 'default', roles: ['member', 'reader'] };
  }
  const tokensFile = join(dir, 'tokens.json');
  writeFileSync(tokensFile, JSON.stringify(tokens), { mode: 0o600 });
  const sampleResources = Array.from({ length: 100 }, () => pickRandom(population.resources));
  const sampleEvents: { id: string; project: string }[] = [];
  for (const r of sampleResources) {
    const docs = await db
      .collection('events')
      .find({ resource_id: r.id }, { projection: { _id: 1 } })
      .limit(20)
      .toArray();
    for (const d of docs) sampleEvents.push({ id: String(d._id), project: r.project });
  }
  const typeOf = (family: string) =>
    ({ compute: 'compute.instance.update', port: 'port.update.end', volume: 'volume.attach.end', image: 'image.send' })[family] as string;
  const day = (d: number) => `2026-11-${String(d).padStart(2, '0')}T00:00:00`;

  const secret = ensureSecret(join(dir, 'identity.secret'));
  const ports = { gateway: await freePort(), eventQuery: await freePort(), lbaasQuota: await freePort(), domainQuota: await freePort() };
  const stack = await startStack({
    mongoUri: store.uri,
    database: DATABASE,
    identitySecret: secret,
    tokensFile,
    ports,
    env: { LOG_LEVEL: 'silent', EVENTS_QUERY_TIMEOUT_MS: '60000' },
    stdio: 'ignore',
  });

  const hostFilter = (): BenchRequest => {
    const r = pickRandom(sampleResources);
    return {
      method: 'GET',
      path: `/v2/events?q.field=host&q.value=${r.host}&limit=100`,
      headers: { 'X-Auth-Token': memberOf.get(r.project) as string },
    };
  };
  const scenarios: { name: string; connections?: number; request: () => BenchRequest }[] = [
    {
      name: 'A1 GET /v2/events/{message_id} (random ids, as the owning project member)',
      request: () => {
        const e = pickRandom(sampleEvents);
        return { method: 'GET', path: `/v2/events/${e.id}`, headers: { 'X-Auth-Token': memberOf.get(e.project) as string } };
      },
    },
    {
      name: 'A2 POST /v2/query/events resource + 3-day window + type, desc, limit 100',
      request: () => {
        const r = pickRandom(sampleResources);
        const from = 1 + Math.floor(Math.random() * 17);
        const filter = {
          and: [
            { '=': { resource_id: r.id } },
            { '>=': { timestamp: day(from) } },
            { '<=': { timestamp: day(from + 3) } },
            { '=': { event_type: typeOf(r.family) } },
          ],
        };
        return {
          method: 'POST',
          path: '/v2/query/events',
          headers: { 'X-Auth-Token': memberOf.get(r.project) as string, 'Content-Type': 'application/json' },
          body: JSON.stringify({ filter: JSON.stringify(filter), orderby: JSON.stringify([{ timestamp: 'desc' }]), limit: 100 }),
        };
      },
    },
    {
      name: 'A3 GET /v2/events trait filter resource_id + event_type, limit 100',
      request: () => {
        const r = pickRandom(sampleResources);
        return {
          method: 'GET',
          path: `/v2/events?q.field=resource_id&q.op=eq&q.value=${r.id}&q.type=string&q.field=event_type&q.op=eq&q.value=${typeOf(r.family)}&q.type=string&limit=100`,
          headers: { 'X-Auth-Token': memberOf.get(r.project) as string },
        };
      },
    },
    { name: 'A3 GET /v2/events trait filter host (no index), limit 100, non-admin', request: hostFilter },
    // The same request one at a time: how long one takes, without queueing behind seven others on 2 cores.
    { name: 'A3 same host filter, one request at a time', connections: 1, request: hostFilter },
    {
      name: 'A3 GET /v2/events non-admin list (project scope), limit 100',
      request: () => ({
        method: 'GET',
        path: '/v2/events?limit=100',
        headers: { 'X-Auth-Token': memberOf.get(pickRandom(population.projects)) as string },
      }),
    },
  ];

  const rows: ScenarioRow[] = [];
  const watch = store.watchMemory({ 'event-query': stack.pids.eventQuery, gateway: stack.pids.gateway });
  let memory: string[] = [];
  try {
    for (const s of scenarios) {
      rows.push(await runScenario(stack.gatewayUrl, s, { seconds, connections: s.connections ?? connections, timeoutSeconds: 90 }));
    }
  } finally {
    memory = watch.stop();
    await stack.stop();
  }

  // The plans of the queries the service builds for the scenarios (same translation code).
  const r = sampleResources[0] as (typeof sampleResources)[number];
  const member: Identity = { userId: 'bench', projectId: r.project, domainId: 'default', roles: ['member'] };
  const e = sampleEvents[0] as { id: string };
  const a2 = translateComplexFilter(
    {
      and: [
        { '=': { resource_id: r.id } },
        { '>=': { timestamp: day(3) } },
        { '<=': { timestamp: day(6) } },
        { '=': { event_type: typeOf(r.family) } },
      ],
    },
    { ownProject: r.project },
  );
  const a3 = translateSimpleQuery([{ field: 'resource_id', op: 'eq', value: r.id, type: '' }], false).filter;
  const scoped = (f: Document) => mergeAnd(f, visibilityFilter(member));
  const plans = [
    ['A1 by id', await explainFind(db, 'events', { _id: e.id }, {}, 1)],
    ['A2 resource + window + type', await explainFind(db, 'events', scoped(a2), { generated: -1, _id: -1 }, 101)],
    ['A3 resource_id trait filter', await explainFind(db, 'events', scoped(a3), { generated: 1, _id: 1 }, 101)],
    ['non-admin list', await explainFind(db, 'events', scoped({}), { generated: 1, _id: 1 }, 101)],
    [
      'unindexed trait host, non-admin',
      await explainFind(
        db,
        'events',
        scoped(translateSimpleQuery([{ field: 'host', op: 'eq', value: r.host, type: '' }], false).filter),
        { generated: 1, _id: 1 },
        101,
      ),
    ],
  ];
  await client.close();
  await store.stop();

  const mb = (n: number) => `${(n / 2 ** 20).toFixed(0)} MiB`;
  const loadRow = record as LoadRecord;
  return [
    `- population: ${options.events.toLocaleString('en')} events, ${options.resources.toLocaleString('en')} resources, ${options.projects} projects, ${options.days} days (compute.instance.*, port.*, volume.*, image.* with Ceilometer's trait sets; deploy/bench/events-data.ts, seed ${options.seed})`,
    `- load: ${loadRow.rate.toLocaleString('en')} events/s (${loadRow.seconds.toFixed(0)} s; batches of ${loadRow.batch}, ${loadRow.concurrency} in flight, straight into EventsRepository.insertMany)${reusable ? ' — recorded when this database was loaded; this run reused it' : ''}`,
    `- indexes: ${opclasses.join(', ') || '(none found)'} (docs/stores.md, "Indexes")`,
    `- memory during the scenarios (first → middle → last sample, 1 s apart): ${memory.join('; ')}`,
    `- on disk (PostgreSQL): events table ${mb(size.table)} (${Math.round(size.table / options.events)} bytes/event), its indexes ${mb(size.indexes)}`,
    '',
    rowsTable(rows),
    '',
    'Query plans (FerretDB `explain` of the filters the service builds):',
    '',
    ...plans.map(([name, plan]) => `- ${name}: ${plan}`),
  ].join('\n');
}
