import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, ROOT, stopChild } from '@stratum/store-runtime';
import { MongoClient } from 'mongodb';
import { loadEvents } from '../src/load';
import { ensureSecret, ensureTokensFile, SAMPLE_PROJECT_ID } from '../src/tokens';
import { cpuWindow, loadAverage, pidOf } from './cpu';
import { postmasterPid } from './memory';
import { enforcementRound, SERVICE_IDENTITY, signedFetch } from './replicas/enforcement';
import { failoverRow, type Outcome, upstreamCounters } from './replicas/failover';
import { ingestPart } from './replicas/ingest';
import { cannon, type Measurement } from './replicas/measure';
import { type Proc, REDIS_URL, startProc } from './replicas/procs';
import { startBenchStore } from './store';

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
