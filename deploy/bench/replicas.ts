/**
 * `pnpm bench replicas`: two replicas of each service behind the gateway, as real processes on this machine, on
 * FerretDB 2.5 + DocumentDB (the bench cluster), with Redis for the caches and RabbitMQ for ingestion. Four parts:
 *
 * 1. Two ingestion consumers on one queue: two event-query processes consume the run's own durable queue; the bench
 *    publishes BENCH_REPLICAS_MESSAGES captured notification bodies (deploy/samples, fresh message_ids) with
 *    publisher confirms, waits until the store holds them, and counts: events stored once each (the consumers'
 *    `duplicates`), none lost (store = the bodies that make an event), and each consumer's share (their stats, logged
 *    at shutdown).
 * 2. Quota enforcement across replicas: a project with load_balancer limit 50, 200 concurrent consumes of 1, split
 *    alternately over the two lbaas-quota replicas (direct, with the identity signed as the gateway signs it) and, when
 *    the gateway takes replica lists, through the gateway: exactly 50 must succeed and in_use end at 50.
 * 3. Throughput of B3 (GET /v2.0/lbaas/quotas/{project_id}) and A1 (GET /v2/events/{message_id}) through a gateway
 *    with one replica per service and through a gateway with both (comma-separated upstream lists), alternately, same
 *    connections, with the CPU each process used.
 * 4. A replica killed mid-load: constant B3 and A1 reads and PUT quota / POST usage writes through the two-replica
 *    gateway; one lbaas-quota and one event-query replica get SIGKILL and are started again on their ports a while
 *    later; requests are counted by status and phase, with when each failure came.
 *
 * Environment: BENCH_SECONDS (part 3, per measurement), BENCH_CONNECTIONS (parts 3 and 4), and
 * - BENCH_REPLICAS_ROUNDS (default 3): measurements per operation and replica count, alternating order;
 * - BENCH_REPLICAS_WARMUP_SECONDS (default 5): unrecorded load per operation and gateway first (JIT warm-up);
 * - BENCH_REPLICAS_MESSAGES (default 20000), BENCH_REPLICAS_RATE (default 4000 messages/s): part 1;
 * - BENCH_REPLICAS_FAILOVER_SECONDS (default 25), BENCH_REPLICAS_KILL_AFTER_SECONDS (default 7),
 *   BENCH_REPLICAS_RESTART_AFTER_SECONDS (default 10 after the kill; 0 = left dead): part 4;
 * - BENCH_AMQP_URL (default amqp://guest:guest@127.0.0.1:5672), BENCH_REDIS_URL (default redis://127.0.0.1:6379/0).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Identity, signIdentity } from '@stratum/identity';
import { freePort, ROOT, stopChild, waitHealthy } from '@stratum/store-runtime';
import autocannon from 'autocannon';
import { MongoClient } from 'mongodb';
import { Connection } from 'rabbitmq-client';
import { loadEvents } from '../src/load';
import { ensureSecret, ensureTokensFile, SAMPLE_PROJECT_ID } from '../src/tokens';
import { cpuWindow, loadAverage, pidOf } from './cpu';
import { postmasterPid } from './memory';
import { capturedNotifications, consumerEnv } from './notifications';
import { type BenchStore, startBenchStore } from './store';

const AMQP_URL = process.env.BENCH_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/0';
/** A process the bench started: its name, base URL, the child and (when captured) its stdout lines. */
interface Proc {
  name: string;
  url: string;
  child: ChildProcess;
  lines: string[];
}

/**
 * Starts `file` (an entry point under the repository) on a free port with `env` over the bench's environment and
 * waits for its health check. The IPC channel makes the child stop if the bench dies (http-kit's serve).
 * @param capture keep its stdout lines (JSON logs) in `lines`; otherwise stdout is discarded.
 * @param onPort the port to listen on (a replica restarted where it was); default a free one.
 * @throws Error when it exits or does not become healthy (it is stopped then).
 */
async function startProc(name: string, file: string, env: Record<string, string>, capture = false, onPort?: number): Promise<Proc> {
  const port = onPort ?? (await freePort());
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, file)], {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', capture ? 'pipe' : 'ignore', 'inherit', 'ipc'],
  });
  const lines: string[] = [];
  if (capture && child.stdout) {
    let rest = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      const parts = (rest + chunk).split('\n');
      rest = parts.pop() ?? '';
      lines.push(...parts);
    });
  }
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitHealthy(url, child, name);
  } catch (err) {
    await stopChild(child);
    throw err;
  }
  return { name, url, child, lines };
}

// ---------------------------------------------------------------------------------------------------------------
// Part 1: two ingestion consumers on one queue

interface ConsumerStats {
  received: number;
  stored: number;
  duplicates: number;
  ignored: number;
  deadLettered: number;
  storeRetries: number;
}

/** The stats a consumer logged when it closed (services/event-query/src/deps.ts), or undefined. */
function loggedStats(p: Proc): ConsumerStats | undefined {
  for (const line of p.lines) {
    try {
      const o = JSON.parse(line) as { msg?: string; stats?: ConsumerStats };
      if (o.msg === 'ingest consumer closed' && o.stats) return o.stats;
    } catch {
      // not JSON
    }
  }
  return undefined;
}

async function ingestPart(store: BenchStore, secret: string, eventful: Set<string>): Promise<string> {
  const total = Number(process.env.BENCH_REPLICAS_MESSAGES ?? 20_000);
  const rate = Number(process.env.BENCH_REPLICAS_RATE ?? 4000);
  const database = `${store.database}_ingest`;
  const suffix = `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
  const prefix = `bench-replicas-${suffix}-`;
  const queue = `stratum.bench.replicas.${suffix}`;
  const { bodies, manifest, exchanges } = capturedNotifications();
  const env = {
    MONGODB_URI: store.uri,
    MONGODB_DATABASE: database,
    STRATUM_IDENTITY_SECRET: secret,
    REDIS_URL: '',
    LOG_LEVEL: 'info',
    ...consumerEnv(AMQP_URL, queue, prefix, exchanges),
  };
  const bus = new Connection({ url: AMQP_URL, connectionName: 'stratum-bench-replicas' });
  const client = await MongoClient.connect(store.uri);
  const consumers: Proc[] = [];
  try {
    await client.db(database).dropDatabase();
    for (const n of ['a', 'b'])
      consumers.push(await startProc(`event-query consumer ${n}`, 'services/event-query/src/server.ts', env, true));
    const events = client.db(database).collection<{ _id: string }>('events');
    const pub = bus.createPublisher({ confirm: true, maxAttempts: 3 });
    process.stderr.write(`bench: replicas, ingestion: ${total} messages at ${rate}/s to two consumers on ${queue}\n`);
    let expected = 0;
    const t0 = Date.now();
    for (let sent = 0; sent < total; ) {
      const due = Math.min(total, Math.floor(((Date.now() - t0) / 1000) * rate) + 1);
      const confirms: Promise<void>[] = [];
      for (; sent < due; sent++) {
        const k = sent % bodies.length;
        const m = manifest[k] as (typeof manifest)[number];
        const id = randomUUID();
        if (eventful.has(m.message_id)) expected++;
        const now = new Date().toISOString();
        const body = (bodies[k] as string).replace(m.message_id, id).replace(m.timestamp, `${now.slice(0, 10)} ${now.slice(11, 23)}000`);
        const props = { exchange: prefix + m.exchange, routingKey: m.routing_key, contentType: 'application/json', durable: true };
        confirms.push(pub.send(props, body));
      }
      await Promise.all(confirms);
      await sleep(20);
    }
    const published = Date.now();
    // Until the store holds every event, or nothing more arrives for 20 s.
    let stored = 0;
    let changed = Date.now();
    while (stored < expected && Date.now() - changed < 20_000) {
      await sleep(200);
      const n = await events.countDocuments({});
      if (n !== stored) changed = Date.now();
      stored = n;
    }
    const done = Date.now();
    await pub.close();
    await Promise.all(consumers.map((c) => stopChild(c.child)));
    const stats = consumers.map(loggedStats);
    const dead = (await bus.queueDeclare({ queue: `${queue}.dead`, passive: true }).catch(() => undefined))?.messageCount;
    const sum = (f: (s: ConsumerStats) => number) => stats.reduce((a, s) => a + (s ? f(s) : 0), 0);
    const received = sum((s) => s.received);
    const share = (s?: ConsumerStats) =>
      s ? `${s.received.toLocaleString('en')} (${((100 * s.received) / Math.max(1, received)).toFixed(1)} %)` : '— (no stats logged)';
    const rows = [
      '| measure | value |',
      '|---|---|',
      `| published (publisher confirms) | ${total.toLocaleString('en')} messages at ${rate.toLocaleString('en')}/s (the 389 captured bodies cycled, fresh message_ids), ${expected.toLocaleString('en')} of which make an event (the others are notifications Ceilometer makes no event of) |`,
      `| events in the store | **${stored.toLocaleString('en')}** of ${expected.toLocaleString('en')} expected: ${stored === expected ? '**none lost**' : `**${expected - stored} missing**`} |`,
      `| delivered to consumer a | ${share(stats[0])} |`,
      `| delivered to consumer b | ${share(stats[1])} |`,
      `| delivered in all | ${received.toLocaleString('en')} (${received === total ? 'each message once' : `${received - total} more than published: redeliveries`}) |`,
      `| stored twice (consumers' duplicates, dedup on message_id) | **${sum((s) => s.duplicates)}** |`,
      `| stored by a / b | ${stats.map((s) => s?.stored.toLocaleString('en') ?? '—').join(' / ')} |`,
      `| acknowledged without an event / dead-lettered / store retries | ${sum((s) => s.ignored)} / ${sum((s) => s.deadLettered)} (dead-letter queue holds ${dead ?? '?'}) / ${sum((s) => s.storeRetries)} |`,
      `| time | publishing ${((published - t0) / 1000).toFixed(1)} s, last event stored ${((done - t0) / 1000).toFixed(1)} s after the first publish |`,
    ];
    return rows.join('\n');
  } finally {
    await Promise.all(consumers.map((c) => stopChild(c.child)));
    await bus.queueDelete({ queue }).catch(() => undefined);
    await bus.queueDelete({ queue: `${queue}.dead` }).catch(() => undefined);
    await bus.close();
    await client.db(database).dropDatabase();
    await client.close();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Part 2: quota enforcement across replicas

const SERVICE_IDENTITY: Identity = { userId: 'octavia', projectId: 'service', domainId: 'default', roles: ['service'] };
const ADMIN_IDENTITY: Identity = { userId: 'bench-admin', projectId: 'admin', domainId: 'default', roles: ['admin'] };

/** One request with the identity signed for it, as the gateway signs it (a signature is bound to its request). */
function signedFetch(base: string, secret: string, who: Identity, method: string, path: string, body?: unknown): Promise<Response> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = { ...signIdentity(who, secret, { method, url: path, ...(text ? { body: text } : {}) }) };
  if (text) headers['Content-Type'] = 'application/json';
  return fetch(`${base}${path}`, { method, headers, body: text });
}

/** Counts of statuses, e.g. `200 × 50, 403 × 150`. */
const statusList = (counts: Map<string, number>) =>
  [...counts]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([s, n]) => `${s} × ${n.toLocaleString('en')}`)
    .join(', ');

/**
 * 200 concurrent consumes of one load balancer against a limit of 50 on a fresh project, sent by `send(i, path,
 * body)`. @returns the table row: statuses, in_use after.
 */
async function enforcementRound(
  label: string,
  replicas: Proc[],
  secret: string,
  send: (i: number, path: string, body: unknown) => Promise<Response>,
): Promise<string> {
  const project = randomBytes(16).toString('hex');
  const base = `/v2.0/lbaas/quotas/${project}`;
  const put = await signedFetch((replicas[0] as Proc).url, secret, ADMIN_IDENTITY, 'PUT', base, { quota: { load_balancer: 50 } });
  if (put.status !== 202) throw new Error(`PUT ${base} answered ${put.status}: ${(await put.text()).slice(0, 300)}`);
  const statuses = new Map<string, number>();
  const results = await Promise.all(
    Array.from({ length: 200 }, async (_, i) => {
      try {
        const r = await send(i, `${base}/usage`, { consume: { load_balancer: 1 } });
        await r.arrayBuffer();
        return String(r.status);
      } catch (err) {
        return `error (${(err as Error).message})`;
      }
    }),
  );
  for (const s of results) statuses.set(s, (statuses.get(s) ?? 0) + 1);
  const inUse = await Promise.all(
    replicas.map(async (r) => {
      const res = await signedFetch(r.url, secret, ADMIN_IDENTITY, 'GET', `${base}/usage`);
      return ((await res.json()) as { usage: { load_balancer: { in_use: number } } }).usage.load_balancer.in_use;
    }),
  );
  const ok = statuses.get('200') ?? 0;
  const verdict = ok === 50 && inUse.every((n) => n === 50) ? '**exactly 50**' : '**WRONG**';
  return `| ${label} | 200 | ${statusList(statuses)} | ${inUse.join(' / ')} | ${verdict} |`;
}

// ---------------------------------------------------------------------------------------------------------------
// Part 3: throughput at 1 vs 2 replicas

interface Measurement {
  op: string;
  replicas: 1 | 2;
  round: number;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  cpu: Record<string, number>;
}

function cannon(
  origin: string,
  path: string,
  headers: Record<string, string>,
  seconds: number,
  connections: number,
): { instance: autocannon.Instance; done: Promise<autocannon.Result> } {
  let instance: autocannon.Instance | undefined;
  const done = new Promise<autocannon.Result>((ok, fail) => {
    instance = autocannon(
      { url: origin, duration: seconds, connections, pipelining: 1, timeout: 10, requests: [{ method: 'GET', path, headers }] },
      (err, r) => (err ? fail(err) : ok(r)),
    );
  });
  return { instance: instance as autocannon.Instance, done };
}

// ---------------------------------------------------------------------------------------------------------------
// Part 4: failover

interface Outcome {
  at: number;
  status: string;
}

/**
 * Per-load summary of outcomes around a kill at `killAt` and the replicas answering again at `backAt` (undefined: not
 * restarted): requests, failures by phase, and when each failure came (ms after the kill).
 */
function failoverRow(label: string, outcomes: Outcome[], killAt: number, backAt: number | undefined, ok: (s: string) => boolean): string {
  const counts = new Map<string, number>();
  for (const o of outcomes) counts.set(o.status, (counts.get(o.status) ?? 0) + 1);
  const failed = outcomes.filter((o) => !ok(o.status));
  const before = failed.filter((o) => o.at < killAt).length;
  const down = failed.filter((o) => o.at >= killAt && (backAt === undefined || o.at < backAt));
  const after = backAt === undefined ? [] : failed.filter((o) => o.at >= backAt);
  const offsets = down.map((o) => o.at - killAt);
  const shown = offsets.length > 12 ? `${offsets.slice(0, 12).join(', ')}, … (${offsets.length})` : offsets.join(', ') || '—';
  const pct = ((100 * failed.length) / Math.max(1, outcomes.length)).toFixed(2);
  return `| ${label} | ${outcomes.length.toLocaleString('en')} | ${failed.length} (${pct} %) | ${statusList(counts)} | ${before} | ${down.length} | ${shown} | ${backAt === undefined ? '—' : after.length} |`;
}

/**
 * The gateway's upstream counters (requests per replica, retries, errors) from its metrics listener on `port`, by
 * `name{labels}`.
 */
async function upstreamCounters(port: number): Promise<Map<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^(stratum_gateway_upstream_\w+\{[^}]*\}) (\S+)$/.exec(line);
    if (m) out.set(m[1] as string, Number(m[2]));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------

/** The suite: see the file's header. @returns its markdown section body. */
export async function replicasBench(seconds: number, connections: number): Promise<string> {
  const rounds = Number(process.env.BENCH_REPLICAS_ROUNDS ?? 3);
  const warmup = Number(process.env.BENCH_REPLICAS_WARMUP_SECONDS ?? 5);
  const failoverSeconds = Number(process.env.BENCH_REPLICAS_FAILOVER_SECONDS ?? 25);
  const killAfter = Number(process.env.BENCH_REPLICAS_KILL_AFTER_SECONDS ?? 7);
  const restartAfter = Number(process.env.BENCH_REPLICAS_RESTART_AFTER_SECONDS ?? 10);
  const loadStart = loadAverage();
  const store = await startBenchStore('bench-replicas', 'stratum_bench_replicas');
  const secret = ensureSecret(join(store.dir, 'identity.secret'));
  const tokensFile = join(store.dir, 'tokens.json');
  const { admin, member } = ensureTokensFile(tokensFile);
  const procs: Proc[] = [];
  const sections: string[] = [];
  try {
    // The samples: A1's target, and which captured bodies make an event (their message_id is the event's _id).
    const client = await MongoClient.connect(store.uri);
    const db = client.db(store.database);
    await loadEvents(db, readFileSync(join(ROOT, 'deploy/samples/notifications.jsonl'), 'utf8'));
    const eventful = new Set(
      (
        await db
          .collection<{ _id: string }>('events')
          .find({}, { projection: { _id: 1 } })
          .toArray()
      ).map((e) => e._id),
    );
    const anEvent = await db.collection<{ _id: string }>('events').findOne({ project_id: SAMPLE_PROJECT_ID });
    await client.close();
    if (!anEvent) throw new Error(`the samples hold no event of project ${SAMPLE_PROJECT_ID}`);

    sections.push('### 1. Two ingestion consumers on one queue', '', await ingestPart(store, secret, eventful), '');

    const common = { MONGODB_URI: store.uri, MONGODB_DATABASE: store.database, STRATUM_IDENTITY_SECRET: secret, LOG_LEVEL: 'silent' };
    const serviceEnv = { ...common, REDIS_URL, AMQP_URL: '', INGEST_AMQP_URL: '' };
    const start = async (name: string, file: string, env: Record<string, string>) => {
      const p = await startProc(name, file, env);
      procs.push(p);
      return p;
    };
    const eq: Proc[] = [];
    const lq: Proc[] = [];
    const dq: Proc[] = [];
    for (const n of ['a', 'b']) {
      eq.push(await start(`event-query ${n}`, 'services/event-query/src/server.ts', serviceEnv));
      lq.push(await start(`lbaas-quota ${n}`, 'services/lbaas-quota/src/server.ts', serviceEnv));
      dq.push(await start(`domain-quota ${n}`, 'services/domain-quota/src/server.ts', serviceEnv));
    }
    const gatewayEnv = (ps: Proc[][], metricsPort = '') => {
      const [e, l, d] = ps.map((list) => list.map((p) => p.url).join(','));
      return {
        ...common,
        REDIS_URL,
        TOKENS_FILE: tokensFile,
        EVENT_QUERY_URL: e as string,
        LBAAS_QUOTA_URL: l as string,
        DOMAIN_QUOTA_URL: d as string,
        RATE_LIMIT_PER_PROJECT: '0',
        RATE_LIMIT_PER_TOKEN: '0',
        METRICS_PORT: metricsPort,
      };
    };
    const g1 = await start(
      'gateway (1 replica each)',
      'gateway/src/server.ts',
      gatewayEnv([[eq[0] as Proc], [lq[0] as Proc], [dq[0] as Proc]]),
    );
    const metricsPort = await freePort();
    let g2: Proc | undefined;
    let g2Error = '';
    try {
      g2 = await start('gateway (2 replicas each)', 'gateway/src/server.ts', gatewayEnv([eq, lq, dq], String(metricsPort)));
    } catch (err) {
      g2Error = (err as Error).message;
    }
    const conditions = [
      `- processes: 2 × event-query, 2 × lbaas-quota, 2 × domain-quota (Redis for their caches), a gateway with one URL per service and a gateway with both replicas' URLs per service (comma-separated lists); ${g2 ? 'both gateways run throughout, one is loaded at a time' : `**the gateway refused replica lists (${g2Error}): parts 3 and 4 measure one replica only**`}`,
    ];

    // Part 2.
    const enforcement = [
      '| consumes sent | concurrent | statuses | in_use after (read on replica a / b) | |',
      '|---|---|---|---|---|',
      await enforcementRound(
        'alternately to lbaas-quota a and b, direct (identity signed as the gateway signs it)',
        lq,
        secret,
        (i, path, body) => signedFetch((lq[i % 2] as Proc).url, secret, SERVICE_IDENTITY, 'POST', path, body),
      ),
    ];
    if (g2) {
      const gw = g2;
      enforcement.push(
        await enforcementRound('through the gateway with both replicas (round-robin), cloud admin token', lq, secret, (_i, path, body) =>
          fetch(`${gw.url}${path}`, {
            method: 'POST',
            headers: { 'X-Auth-Token': admin, 'Content-Type': 'application/json' },
            body: JSON.stringify(body),
          }),
        ),
      );
    }
    sections.push(
      '### 2. Quota enforcement across replicas',
      '',
      'A fresh project with `load_balancer` limit 50; 200 consumes of 1 sent at once (one connection each).',
      '',
      ...enforcement,
      '',
    );

    // Part 3.
    const put = await fetch(`${g1.url}/v2.0/lbaas/quotas/${SAMPLE_PROJECT_ID}`, {
      method: 'PUT',
      headers: { 'X-Auth-Token': admin, 'Content-Type': 'application/json' },
      body: JSON.stringify({ quota: { load_balancer: 10, pool: 20 } }),
    });
    if (put.status !== 202) throw new Error(`PUT quota answered ${put.status}`);
    const ops = [
      { op: 'B3 GET /v2.0/lbaas/quotas/{project_id}', path: `/v2.0/lbaas/quotas/${SAMPLE_PROJECT_ID}`, service: lq },
      { op: 'A1 GET /v2/events/{message_id}', path: `/v2/events/${anEvent._id}`, service: eq },
    ];
    const auth = { 'X-Auth-Token': member };
    const postmaster = postmasterPid(store.postgres.dataDir);
    const redisPid = pidOf('redis-server');
    const measurements: Measurement[] = [];
    const gateways: [1 | 2, Proc][] = g2
      ? [
          [1, g1],
          [2, g2],
        ]
      : [[1, g1]];
    for (const o of ops) {
      for (const [, g] of gateways) {
        const r = await fetch(`${g.url}${o.path}`, { headers: auth });
        if (r.status !== 200) throw new Error(`${o.op} via ${g.name} answered ${r.status}: ${(await r.text()).slice(0, 300)}`);
        process.stderr.write(`bench: replicas, warm-up ${o.op} via ${g.name}\n`);
        await cannon(g.url, o.path, auth, warmup, connections).done;
      }
      for (let round = 1; round <= rounds; round++) {
        const order = round % 2 === 1 ? gateways : [...gateways].reverse();
        for (const [n, g] of order) {
          process.stderr.write(`bench: replicas, ${o.op} via ${g.name}, round ${round} (${seconds}s, ${connections} connections)\n`);
          const cpu = cpuWindow(
            {
              gateway: g.child.pid,
              [`${o.service === lq ? 'lbaas-quota' : 'event-query'} a`]: o.service[0]?.child.pid,
              [`${o.service === lq ? 'lbaas-quota' : 'event-query'} b`]: o.service[1]?.child.pid,
              FerretDB: store.ferretdbPid,
              Redis: redisPid,
            },
            postmaster,
          );
          const r = await cannon(g.url, o.path, auth, seconds, connections).done;
          measurements.push({
            op: o.op,
            replicas: n,
            round,
            rps: r.requests.total / seconds,
            p50: r.latency.p50,
            p99: r.latency.p99,
            non2xx: r.non2xx,
            errors: r.errors + r.timeouts,
            cpu: cpu.stop(),
          });
        }
      }
    }
    const cpuCell = (m: Measurement) =>
      Object.entries(m.cpu)
        .map(([k, v]) => `${k} ${Math.round(v)}`)
        .join(', ');
    // Machine busy time no listed process used: the kernel's loopback work, other processes (other builds, tests).
    const unaccounted = (m: Measurement) => Object.entries(m.cpu).reduce((a, [k, v]) => (k === 'machine (all)' ? a + v : a - v), 0);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
    const throughput = [
      `- ${connections} connections, ${rounds} rounds of ${seconds} s per operation and replica count (1, 2 | 2, 1 | …), after ${warmup} s of unrecorded warm-up each; member token of the sample project (static tokens file)`,
      "- CPU: % of one core over the window, from /proc (PostgreSQL = the postmaster and all its backends; Redis = the machine's, the services' caches; bench = this process, autocannon; machine = both cores' busy time, every process and the kernel)",
      '',
      '| operation | replicas | round | req/s | p50 ms | p99 ms | non-2xx | errors | CPU % by process |',
      '|---|---|---|---|---|---|---|---|---|',
      ...measurements.map(
        (m) =>
          `| ${m.op} | ${m.replicas} | ${m.round} | ${Math.round(m.rps)} | ${m.p50} | ${m.p99} | ${m.non2xx} | ${m.errors} | ${cpuCell(m)} |`,
      ),
      '',
      '| operation | replicas | req/s (mean of rounds) | p50 / p99 ms | gateway CPU µs/req | service CPU µs/req (replicas summed) | store CPU µs/req (FerretDB + PostgreSQL) | machine busy % (both cores, all processes) | not in the listed processes, % of one core |',
      '|---|---|---|---|---|---|---|---|---|',
      ...ops.flatMap((o) =>
        gateways.map(([n]) => {
          const ms = measurements.filter((m) => m.op === o.op && m.replicas === n);
          const rps = mean(ms.map((m) => m.rps));
          const perRequest = (f: (c: Record<string, number>) => number) =>
            mean(ms.map((m) => (f(m.cpu) * 10_000) / Math.max(1, m.rps))).toFixed(0);
          const service = (c: Record<string, number>) =>
            Object.entries(c)
              .filter(([k]) => / [ab]$/.test(k))
              .reduce((a, [, v]) => a + v, 0);
          return `| ${o.op} | ${n} | ${Math.round(rps)} | ${mean(ms.map((m) => m.p50)).toFixed(1)} / ${mean(ms.map((m) => m.p99)).toFixed(1)} | ${perRequest((c) => c.gateway ?? 0)} | ${perRequest(service)} | ${perRequest((c) => (c.FerretDB ?? 0) + (c.PostgreSQL ?? 0))} | ${mean(ms.map((m) => (m.cpu['machine (all)'] ?? 0) / 2)).toFixed(0)} | ${mean(ms.map(unaccounted)).toFixed(0)} |`;
        }),
      ),
      '',
      ...ops.map((o) => {
        const one = mean(measurements.filter((m) => m.op === o.op && m.replicas === 1).map((m) => m.rps));
        const two = mean(measurements.filter((m) => m.op === o.op && m.replicas === 2).map((m) => m.rps));
        return g2 ? `- ${o.op.split(' ')[0]}: 2 replicas ÷ 1 replica = **${(two / one).toFixed(2)}** (throughput)` : '';
      }),
      '',
      'This machine has 2 cores for everything: the gateway, the service replicas, FerretDB, PostgreSQL, Redis,',
      'autocannon and whatever else runs on it. A second replica on the same machine adds no CPU: it competes for the',
      'same two cores with the gateway and the store, so the 2 ÷ 1 ratio is what a second replica costs or gains without',
      "more hardware, not the scale-out a second node would give. The CPU per request separates each process's own cost",
      'from the contention; machine busy counts every process on the machine, whatever else ran meanwhile included.',
    ];
    sections.push('### 3. Throughput at 1 vs 2 replicas', '', ...throughput, '');

    // Part 4.
    if (g2) {
      const gw = g2;
      const writeProject = randomBytes(16).toString('hex');
      const adminJson = { 'X-Auth-Token': admin, 'Content-Type': 'application/json' };
      const initial = await fetch(`${gw.url}/v2.0/lbaas/quotas/${writeProject}`, {
        method: 'PUT',
        headers: adminJson,
        body: JSON.stringify({ quota: { member: -1 } }),
      });
      if (initial.status !== 202) throw new Error(`PUT quota answered ${initial.status}`);
      process.stderr.write(
        `bench: replicas, failover: ${failoverSeconds}s of load, SIGKILL of lbaas-quota b and event-query b after ${killAfter}s\n`,
      );
      const outcomes: Record<'B3' | 'A1' | 'write', Outcome[]> = { B3: [], A1: [], write: [] };
      const readConnections = Math.max(1, Math.floor(connections / 2));
      const loads = (['B3', 'A1'] as const).map((k, i) => {
        const c = cannon(gw.url, (ops[i] as (typeof ops)[number]).path, auth, failoverSeconds, readConnections);
        c.instance.on('response', (_client: unknown, status: number) => outcomes[k].push({ at: Date.now(), status: String(status) }));
        c.instance.on('reqError', (err: Error) => outcomes[k].push({ at: Date.now(), status: `error ${err.message}` }));
        return c.done;
      });
      const until = Date.now() + failoverSeconds * 1000;
      const writers = Array.from({ length: 4 }, async (_, w) => {
        for (let i = 0; Date.now() < until; i++) {
          // PUT quota, consume 1, release 1, …: every write path of the service, bounded usage.
          const kind = i % 3;
          const path = `/v2.0/lbaas/quotas/${writeProject}${kind === 0 ? '' : '/usage'}`;
          const body =
            kind === 0
              ? { quota: { pool: 100 + ((w + i) % 50), member: -1 } }
              : kind === 1
                ? { consume: { member: 1 } }
                : { release: { member: 1 } };
          try {
            const r = await fetch(`${gw.url}${path}`, {
              method: kind === 0 ? 'PUT' : 'POST',
              headers: adminJson,
              body: JSON.stringify(body),
            });
            await r.arrayBuffer();
            outcomes.write.push({ at: Date.now(), status: String(r.status) });
          } catch (err) {
            outcomes.write.push({ at: Date.now(), status: `error ${(err as Error).message}` });
          }
        }
      });
      await sleep(killAfter * 1000);
      const metricsBefore = await upstreamCounters(metricsPort);
      const killAt = Date.now();
      const victims = [lq[1], eq[1]] as Proc[];
      for (const p of victims) p.child.kill('SIGKILL');
      let backAt: number | undefined;
      if (restartAfter > 0) {
        // As an orchestrator would: a new process on the same port (the gateway's list names it) after a while.
        await sleep(restartAfter * 1000);
        process.stderr.write('bench: replicas, failover: restarting the killed replicas on their ports\n');
        const file = (p: Proc) => (p === lq[1] ? 'services/lbaas-quota/src/server.ts' : 'services/event-query/src/server.ts');
        const restarted = await Promise.all(
          victims.map((p) => startProc(`${p.name} (restarted)`, file(p), serviceEnv, false, Number(new URL(p.url).port))),
        );
        procs.push(...restarted);
        backAt = Date.now();
      }
      await Promise.all([...loads, ...writers]);
      const metricsAfter = await upstreamCounters(metricsPort);
      // The first process on a URL names it (a restarted replica keeps its name).
      const replicaName = new Map([...procs].reverse().map((p) => [p.url, p.name]));
      const counters = [...metricsAfter]
        .map(([k, v]) => [k, v - (metricsBefore.get(k) ?? 0)] as const)
        .filter(([, v]) => v > 0)
        .map(([k, v]) => `\`${k.replace(/http:\/\/127\.0\.0\.1:\d+/, (u) => replicaName.get(u) ?? u)}\` ${v}`);
      const ok2xx = (s: string) => s === '200';
      const okWrite = (s: string) => s === '200' || s === '202';
      sections.push(
        '### 4. A replica killed mid-load',
        '',
        `- through the gateway with both replicas: B3 and A1 reads (${readConnections} connections each, autocannon) and 4 writers in a loop (PUT quota → 202, POST usage consume 1 → 200, POST usage release 1 → 200; cloud admin token), for ${failoverSeconds} s`,
        `- after ${killAfter} s: SIGKILL of lbaas-quota b and event-query b; ${backAt === undefined ? 'not restarted' : `${restartAfter} s later a new process of each on the same port (answering its health check ${((backAt - killAt) / 1000).toFixed(1)} s after the kill)`}; a failure is any other status or a connection error seen by the client; the gateway skips a replica that failed to connect for UPSTREAM_COOLDOWN_MS (default 2 s), then tries it again`,
        '',
        '| load | requests | failed | by status | failed before the kill | failed while a replica was down | when (ms after the kill) | failed after the restart |',
        '|---|---|---|---|---|---|---|---|',
        failoverRow('B3 reads (lbaas-quota)', outcomes.B3, killAt, backAt, ok2xx),
        failoverRow('A1 reads (event-query)', outcomes.A1, killAt, backAt, ok2xx),
        failoverRow('writes (lbaas-quota)', outcomes.write, killAt, backAt, okWrite),
        '',
        `The gateway's upstream counters from the kill to the end of the load (GET /metrics, differences): ${counters.join(', ') || 'none'}.`,
        '',
      );
    } else {
      sections.push('### 4. A replica killed mid-load', '', 'Not measured: the gateway does not take replica lists.', '');
    }
    return [
      ...conditions,
      `- load average (1 / 5 / 15 min): ${loadStart} at the start, ${loadAverage()} at the end (the bench itself loads both cores; a start well above the machine's idle load means something else was running)`,
      '',
      ...sections,
    ].join('\n');
  } finally {
    await Promise.all(procs.map((p) => stopChild(p.child)));
    await store.stop();
  }
}
