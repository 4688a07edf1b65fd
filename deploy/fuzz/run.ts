/**
 * `pnpm fuzz`: the stack as it deploys (four processes) on the project's store (FerretDB 2.5 + DocumentDB on the test
 * cluster, var/test-postgres; a database of the run's own, dropped at the end), fixtures put in through the gateway,
 * then fuzz.ts's generated requests for every operation of `/openapi.json` until FUZZ_REQUESTS were sent or
 * FUZZ_SECONDS passed. Prints the tally, checks that every process is alive and healthy, and writes the tally into
 * the `## Fuzz` section of deploy/BENCHMARKS.md with the machine's conditions. Exits 1 when anything failed.
 *
 * Environment: FUZZ_REQUESTS (default 10000), FUZZ_SECONDS (default 900), FUZZ_SEED (default: random, printed),
 * FUZZ_CONCURRENCY (default 8), FUZZ_TIMEOUT_MS (per request, default 15000), FUZZ_SERVICE_LOGS=1 (the processes'
 * error logs on this terminal), FUZZ_WRITE=0 (do not touch BENCHMARKS.md), FUZZ_ONLY (a regular expression: only the
 * operations whose `METHOD /template` matches), FUZZ_VERBOSE=1 (print every request and its answer).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import type { TokensFile } from '@stratum/gateway';
import { ensureStoreInstalled, freePort, isAlive, ROOT, startStore } from '@stratum/store-runtime';
import { MongoClient } from 'mongodb';
import { withSection } from '../src/markdown';
import { startStack } from '../src/processes';
import { type Fixtures, type FuzzRequest, fetchOpenApi, fixturesFor, runFuzz, seedFixtures, tallyMarkdown } from './fuzz';
import type { WireOutcome } from './wire';

const hex = (n: number) => randomBytes(n).toString('hex');

/** The section of deploy/BENCHMARKS.md this run writes (`pnpm bench` replaces only its own sections). */
export const FUZZ_SECTION = 'Fuzz: generated requests through the gateway';

/** Health of every process at the end: alive (signal 0) and answering its health check. */
async function aliveAndHealthy(pids: Record<string, number>, urls: Record<string, string>): Promise<string[]> {
  const problems: string[] = [];
  for (const [name, pid] of Object.entries(pids)) {
    if (!isAlive(pid)) problems.push(`${name} (pid ${pid}) is not running`);
  }
  for (const [name, url] of Object.entries(urls)) {
    try {
      const res = await fetch(`${url}/healthcheck`, { signal: AbortSignal.timeout(5000) });
      if (res.status !== 200) problems.push(`${name} /healthcheck answered ${res.status}`);
    } catch (err) {
      problems.push(`${name} /healthcheck: ${(err as Error).message}`);
    }
  }
  return problems;
}

async function main(): Promise<void> {
  const requests = Number(process.env.FUZZ_REQUESTS ?? 10_000);
  const seconds = Number(process.env.FUZZ_SECONDS ?? 900);
  const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
  const concurrency = Number(process.env.FUZZ_CONCURRENCY ?? 8);
  const timeoutMs = Number(process.env.FUZZ_TIMEOUT_MS ?? 15_000);
  const logs = process.env.FUZZ_SERVICE_LOGS === '1';
  console.log(
    `fuzz: seed ${seed} (FUZZ_SEED=${seed} repeats this run), up to ${requests} requests or ${seconds} s, ${concurrency} at a time`,
  );

  const dir = join(ROOT, 'var', 'fuzz');
  mkdirSync(dir, { recursive: true });
  ensureStoreInstalled();
  const store = await startStore({ purpose: 'test', stateDir: join(dir, 'ferretdb') });
  const database = `stratum_fuzz_${process.pid}`;
  const ids = { projectA: hex(16), projectB: hex(16), deptDomainId: hex(16) };
  const personas = {
    admin: {
      token: hex(32),
      user_id: 'fuzz-admin',
      project_id: `admin-${hex(4)}`,
      domain_id: 'default',
      roles: ['admin', 'member', 'reader'],
    },
    member: { token: hex(32), user_id: 'fuzz-member', project_id: ids.projectA, domain_id: 'default', roles: ['member', 'reader'] },
    reader: { token: hex(32), user_id: 'fuzz-reader', project_id: ids.projectA, domain_id: 'default', roles: ['reader'] },
    otherMember: { token: hex(32), user_id: 'fuzz-other', project_id: ids.projectB, domain_id: 'default', roles: ['member', 'reader'] },
    deptAdmin: { token: hex(32), user_id: 'fuzz-dept-admin', project_id: null, domain_id: ids.deptDomainId, roles: ['admin'] },
  };
  const file: TokensFile = { tokens: {} };
  for (const p of Object.values(personas))
    file.tokens[p.token] = { user_id: p.user_id, project_id: p.project_id, domain_id: p.domain_id, roles: p.roles };
  const tokensFile = join(dir, 'tokens.json');
  writeFileSync(tokensFile, JSON.stringify(file), { mode: 0o600 });

  const ports = { gateway: await freePort(), eventQuery: await freePort(), lbaasQuota: await freePort(), domainQuota: await freePort() };
  let failed = false;
  try {
    const stack = await startStack({
      mongoUri: store.uri,
      database,
      identitySecret: hex(24),
      tokensFile,
      ports,
      env: { LOG_LEVEL: logs ? 'error' : 'silent' },
      stdio: logs ? 'inherit' : 'ignore',
    });
    try {
      const target = { host: '127.0.0.1', port: ports.gateway };
      const tokens = Object.fromEntries(Object.entries(personas).map(([k, p]) => [k, p.token])) as Fixtures['tokens'];
      const fx = fixturesFor(tokens, ids);
      const seeded = await seedFixtures(target, fx, ids);
      console.log(`fuzz: fixtures: ${seeded.join('; ')}`);
      const doc = await fetchOpenApi(target);
      let lastReseed = 0;
      const tally = await runFuzz({
        target,
        doc,
        fixtures: fx,
        seed,
        requests,
        seconds,
        concurrency,
        timeoutMs,
        ...(process.env.FUZZ_ONLY ? { only: new RegExp(process.env.FUZZ_ONLY) } : {}),
        ...(process.env.FUZZ_VERBOSE === '1'
          ? {
              onAnswer: (req: FuzzRequest, outcome: WireOutcome) => {
                const answer =
                  outcome.kind === 'response'
                    ? `${outcome.response.status} ${outcome.response.body.toString('utf8').slice(0, 200)}`
                    : outcome.kind;
                console.log(
                  `${req.who} ${req.wire.method} ${req.wire.target.slice(0, 200)} ${req.wire.body?.toString('utf8').slice(0, 200) ?? ''} [${req.tags.join(' + ')}] → ${answer}`,
                );
              },
            }
          : {}),
        betweenBatches: async (t) => {
          process.stdout.write(`fuzz: ${t.requests} requests, ${t.failed} failed\n`);
          if (t.requests - lastReseed >= 2000) {
            lastReseed = t.requests;
            await seedFixtures(target, fx, ids); // fuzzed DELETEs and PATCHes wear the fixtures down
          }
        },
      });
      const problems = await aliveAndHealthy(stack.pids, stack.urls);
      const report = tallyMarkdown(tally);
      const cpu = cpus();
      const conditions = [
        "- what: `pnpm fuzz` (deploy/fuzz): fast-check requests for every operation of `/openapi.json`, a quarter valid-ish, the rest with one or two hostile mutations (ids, query strings, bodies, Content-Type and Content-Encoding, methods, forwarded and identity headers), as admin, member, reader, another project's member, department admin, no token or a bad token; sent raw through the gateway. A failure is a 5xx, a 4xx outside its group's error shape, a hang, a connection closed without an answer, an echoed `X-Forwarded-Host`, or an answer below 400 without a valid token",
        `- date: ${new Date().toISOString()}; \`FUZZ_SEED=${seed} FUZZ_REQUESTS=${requests} FUZZ_SECONDS=${seconds} pnpm fuzz\` repeats the generated requests`,
        `- machine: ${cpu.length} cores (${cpu[0]?.model ?? 'unknown CPU'}), ${Math.round(totalmem() / 2 ** 30)} GiB memory; Node ${process.version}`,
        `- stack: the four processes (deploy/src/processes.ts) on FerretDB 2.5 + DocumentDB (the test cluster), no fault injected; ${concurrency} requests in flight, each over a new connection, time limit ${timeoutMs / 1000} s`,
        `- processes after the run: ${problems.length === 0 ? 'all four alive, every /healthcheck 200' : problems.join('; ')}`,
      ].join('\n');
      const body = `${conditions}\n${report}`;
      console.log(`\n## ${FUZZ_SECTION}\n\n${body}\n`);
      if (process.env.FUZZ_WRITE !== '0') {
        const path = join(ROOT, 'deploy', 'BENCHMARKS.md');
        const doc0 = existsSync(path) ? readFileSync(path, 'utf8') : '# Benchmarks\n';
        writeFileSync(path, withSection(doc0, FUZZ_SECTION, body));
        console.log(`fuzz: tally written to deploy/BENCHMARKS.md, section "${FUZZ_SECTION}"`);
      }
      failed = tally.failed > 0 || problems.length > 0;
    } finally {
      await stack.stop();
    }
  } finally {
    const client = await MongoClient.connect(store.uri);
    await client
      .db(database)
      .dropDatabase()
      .catch(() => undefined);
    await client.close();
    await store.stop();
  }
  process.exitCode = failed ? 1 : 0;
}

main().catch((err) => {
  console.error(`fuzz: ${err instanceof Error ? err.stack : err}`);
  process.exit(1);
});
