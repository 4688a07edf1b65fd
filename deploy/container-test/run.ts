/**
 * `pnpm test:containers` (deploy/scripts/test-containers.sh builds the images first): the Kubernetes manifests' podman
 * overlay played with `podman kube play` on this machine, two replicas of each process, against the machine's Redis
 * (127.0.0.1:6379), RabbitMQ (127.0.0.1:5672) and the project's FerretDB, then checked:
 *   1. every pod runs and answers /ready; the gateway answers /ready with every upstream replica ok;
 *   2. requests with a token through both gateways reach both replicas of each service (the gateways' per-replica
 *      counters, stratum_gateway_upstream_requests_total);
 *   3. one lbaas-quota replica killed (SIGKILL) under load: reads keep being served by the other (failures counted);
 *   4. event-query restarted alone (kube down + play of its Deployment) while the other groups are loaded: they keep
 *      serving; then domain-quota restarted replica by replica under its own load;
 * then everything is taken down. Prints timings. With `--up` (deploy/scripts/kube-up.sh) it stops after step 1 and
 * keeps the stack up until SIGINT/SIGTERM. Exits 1 on a failed check, 0 with "SKIPPED: <reason>" only when not
 * root (rootful podman: the images and networks are root's).
 *
 * Why forwarders: the machine's services listen on 127.0.0.1 only, which pods cannot reach; forwarders of ours listen
 * on the podman network's gateway address (10.89.18.1, "stratum-store" etc. in the overlay's hostAliases) and pipe to
 * them. hostNetwork pods would reach 127.0.0.1 directly, but both replicas of a service would then bind the same port
 * in one network namespace.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type RunningStore, startStore } from '@stratum/store-runtime';
import { MongoClient } from 'mongodb';
import { Connection } from 'rabbitmq-client';
import { ensureTokensFile } from '../src/tokens';
import { check, Failed, log, timed, timings, until } from './checks';
import { type Forwarder, forward } from './forward';
import { PROCESSES, type ProcessName } from './manifests';
import { ANCHOR, ensureNetwork, NETWORK_GATEWAY, play, podman, podReady, podStates, podUrl, prepare, type Stack, WORK } from './podman';
import {
  AMQP_URL,
  busNames,
  describeLoad,
  failedCount,
  GROUP_PATHS,
  get,
  load,
  NOTIFICATIONS,
  publishNotifications,
  replicaCounts,
} from './traffic';

async function main(): Promise<void> {
  if (process.getuid?.() !== 0) {
    log('SKIPPED: not root (the images are built and played with rootful podman; run as root)');
    return;
  }
  mkdirSync(WORK, { recursive: true });
  const t0 = performance.now();
  const forwarders: Forwarder[] = [];
  let store: RunningStore | undefined;
  let stack: Stack | undefined;
  const runId = randomBytes(4).toString('hex');
  const database = `stratum_ctr_${runId}`;
  const bus = busNames(runId);
  try {
    store = await timed('store (FerretDB on the test cluster)', () => startStore({ purpose: 'test' }));
    const storePort = Number(new URL(store.uri).port);
    await timed('network and forwarders', async () => {
      await ensureNetwork();
      for (const [port, target] of [
        [27017, storePort],
        [6379, 6379],
        [5672, 5672],
      ] as const) {
        forwarders.push(await forward({ host: NETWORK_GATEWAY, port }, { host: '127.0.0.1', port: target }));
      }
    });
    log(`forwarding ${forwarders.map((f) => `${f.listen.host}:${f.listen.port} -> ${f.target.host}:${f.target.port}`).join(', ')}`);

    rmSync(join(WORK, 'tokens.json'), { force: true });
    const { file: tokensFile, admin } = ensureTokensFile(join(WORK, 'tokens.json'));
    const s = await prepare(database, randomBytes(32).toString('hex'), JSON.stringify(tokensFile), bus);
    stack = s;
    const all = Object.values(s.pods).flat();
    // Leftovers of an interrupted run would hold the names and addresses.
    for (const p of all) await podman(['pod', 'rm', '-f', p.pod], true);
    await podman(['volume', 'rm', '-f', 'stratum-tokens'], true);

    const order: ProcessName[] = ['event-query', 'lbaas-quota', 'domain-quota', 'gateway'];
    await timed('podman kube play (4 Deployments, 8 pods)', async () => {
      for (const name of order) await play(s, name);
    });
    await timed('all 8 pods ready', () => Promise.all(all.map((p) => podReady(p))));

    const states = await podStates();
    check(
      all.every((p) => states[p.pod] === 'Running'),
      `8 pods running: ${all.map((p) => `${p.pod}@${p.ip}=${states[p.pod]}`).join(', ')}`,
    );
    const gateways = s.pods.gateway.map(podUrl);
    const metrics = s.pods.gateway.map((p) => `http://${p.ip}:8790/metrics`);
    for (const g of gateways) {
      const ready = await until(`${g}/ready with every upstream replica ok`, async () => {
        const r = await get(`${g}/ready`, undefined, 5000);
        const body = JSON.parse(r.body) as { status: string; checks: Record<string, { checks?: Record<string, { status: string }> }> };
        const replicas = Object.values(body.checks).flatMap((c) => Object.values(c.checks ?? {}));
        return r.status === 200 && replicas.length === 6 && replicas.every((x) => x.status === 'ok') ? body : undefined;
      });
      check(
        true,
        `${g}/ready: ${JSON.stringify(Object.fromEntries(Object.entries(ready.checks).map(([k, v]) => [k, Object.keys(v.checks ?? {})])))}`,
      );
    }
    if (process.argv.includes('--up')) {
      // deploy/scripts/kube-up.sh: the stack stays up (this process holds the forwarders and the store) until a signal.
      log(`UP: gateways ${gateways.join(' and ')} (metrics on port 8790), admin token ${admin}. Ctrl-C takes it all down.`);
      await new Promise<void>((ok) => {
        process.once('SIGINT', ok);
        process.once('SIGTERM', ok);
      });
      // A second Ctrl-C would kill this process halfway through the teardown.
      process.on('SIGINT', () => log('taking the stack down, a few seconds'));
      return;
    }

    // 2. Both replicas of each service serve.
    await timed('requests per group through both gateways', async () => {
      for (const [group, path] of Object.entries(GROUP_PATHS)) {
        const r = await load(gateways, path, admin, { n: 40 });
        check(r.ok === r.sent, `${group} ${path}: ${describeLoad(r)}`);
      }
    });
    const counts = await replicaCounts(metrics);
    for (const name of ['event-query', 'lbaas-quota', 'domain-quota'] as const) {
      const per = s.pods[name].map((p) => counts[`http://${p.pod}:${PROCESSES[name]}`] ?? 0);
      check(
        per.every((n) => n > 0),
        `${name}: both replicas served (${per.map((n, i) => `${s.pods[name][i]?.pod} ${n}`).join(', ')})`,
      );
    }

    // Ingestion: both event-query replicas consume the one queue (their split is read at step 4, when they stop).
    const ids = await timed(`${NOTIFICATIONS} notifications published and stored`, async () => {
      const published = await publishNotifications(bus);
      const client = await MongoClient.connect(store?.uri ?? '');
      try {
        const events = client.db(database).collection<{ _id: string }>('events');
        await until(`${NOTIFICATIONS} events stored`, async () =>
          (await events.countDocuments({ _id: { $in: published } })) === published.length ? true : undefined,
        );
      } finally {
        await client.close();
      }
      return published;
    });
    check(ids.length === NOTIFICATIONS, `${NOTIFICATIONS} notifications on ${bus.ingestQueue} stored as ${NOTIFICATIONS} events`);

    // 3. A replica killed under load.
    const victim = s.pods['lbaas-quota'][1];
    if (!victim) throw new Failed('no second lbaas-quota replica');
    await timed(`${victim.pod} killed under load`, async () => {
      const running = load(gateways, GROUP_PATHS.lbaas, admin, { n: 400, concurrency: 4 });
      await sleep(200);
      await podman(['pod', 'kill', '--signal', 'KILL', victim.pod]);
      const r = await running;
      const after = await load(gateways, GROUP_PATHS.lbaas, admin, { n: 100 });
      check(failedCount(after) === 0, `lbaas reads after the kill: ${describeLoad(after)}`);
      check(failedCount(r) === 0, `lbaas reads across the kill (GETs retried on the live replica): ${describeLoad(r)}`);
    });
    const retries = (await Promise.all(metrics.map((m) => get(m)))).map(
      (x) => Number(/^stratum_gateway_upstream_retries_total\{group="lbaas"\} (\d+)/m.exec(x.body)?.[1] ?? 0) || 0,
    );
    log(`gateway retries on another lbaas replica: ${retries.join(' + ')}`);
    await timed(`${victim.pod} back`, async () => {
      if ((await podStates())[victim.pod] !== 'Running') await podman(['pod', 'start', victim.pod]);
      await podReady(victim);
      const victimUrl = `http://${victim.pod}:${PROCESSES['lbaas-quota']}`;
      const before = (await replicaCounts(metrics))[victimUrl] ?? 0;
      // The gateway tries it again once its cool-down (UPSTREAM_COOLDOWN_MS, 2 s) is over.
      await until(`the gateways sending to ${victim.pod} again`, async () => {
        await load(gateways, GROUP_PATHS.lbaas, admin, { n: 8 });
        return ((await replicaCounts(metrics))[victimUrl] ?? 0) > before ? true : undefined;
      });
    });

    // 4. One service restarted alone while the others serve.
    await timed('event-query restarted alone (kube down + play) while lbaas and domain are loaded', async () => {
      let restarting = true;
      const others = Promise.all([
        load(gateways, GROUP_PATHS.lbaas, admin, { stop: () => !restarting, concurrency: 2 }),
        load(gateways, GROUP_PATHS.domain, admin, { stop: () => !restarting, concurrency: 2 }),
      ]);
      try {
        // Stopped first (SIGTERM: each consumer logs what it ingested), then taken down and played again.
        await Promise.all(s.pods['event-query'].map((p) => podman(['stop', '--time', '30', `${p.pod}-${p.deployment}`])));
        const split = await Promise.all(
          s.pods['event-query'].map(async (p) => {
            const line = (await podman(['logs', `${p.pod}-${p.deployment}`])).split('\n').find((l) => l.includes('ingest consumer closed'));
            const stats = (line ? JSON.parse(line) : {}) as { stats?: { stored: number; duplicates: number } };
            return { pod: p.pod, stored: stats.stats?.stored ?? 0, duplicates: stats.stats?.duplicates ?? 0 };
          }),
        );
        const stored = split.reduce((n, x) => n + x.stored, 0);
        check(
          split.every((x) => x.stored > 0) && stored === NOTIFICATIONS,
          `both event-query replicas consumed the one queue: ${split.map((x) => `${x.pod} stored ${x.stored} (duplicates ${x.duplicates})`).join(', ')}; ${stored} in all`,
        );
        await podman(['kube', 'down', s.files['event-query']]);
        const during = await get(`${gateways[0]}${GROUP_PATHS.event}`, admin);
        log(`event group while event-query is down: ${during.status} ${during.body.slice(0, 160)}`);
        await play(s, 'event-query');
        await Promise.all(s.pods['event-query'].map((p) => podReady(p)));
      } finally {
        restarting = false;
      }
      const [lbaas, domain] = await others;
      check(
        failedCount(lbaas) === 0 && failedCount(domain) === 0,
        `during the restart: lbaas ${describeLoad(lbaas)}; domain ${describeLoad(domain)}`,
      );
      const back = await until('the event group served again', async () => {
        const r = await load(gateways, GROUP_PATHS.event, admin, { n: 10 });
        return r.ok === r.sent ? r : undefined;
      });
      check(true, `event group after the restart: ${describeLoad(back)}`);
    });
    await timed('domain-quota restarted replica by replica under its own load', async () => {
      let rolling = true;
      const running = load(gateways, GROUP_PATHS.domain, admin, { stop: () => !rolling, concurrency: 2 });
      try {
        for (const p of s.pods['domain-quota']) {
          // The process's container, not the pod: `podman pod restart` stops the pod's infra container (its network)
          // while the process still drains (observed: ENETUNREACH to the store during shutdown, then exit 1, and the
          // pod not started again). SIGTERM, up to 30 s to drain, as a Kubernetes rolling update gives it.
          const t = performance.now();
          await podman(['stop', '--time', '30', `${p.pod}-${p.deployment}`]);
          log(`${p.pod} stopped in ${((performance.now() - t) / 1000).toFixed(1)} s`);
          await podman(['start', `${p.pod}-${p.deployment}`]);
          await podReady(p, 60_000);
          await sleep(2500); // past the gateway's cool-down, so the restarted replica takes traffic again
        }
      } finally {
        rolling = false;
      }
      const r = await running;
      check(failedCount(r) === 0, `domain reads during the rolling restart: ${describeLoad(r)}`);
    });
    log(`PASSED in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  } catch (err) {
    // What the pods said at warn level and above, before they are taken down.
    for (const p of stack ? Object.values(stack.pods).flat() : []) {
      const lines = (await podman(['logs', `${p.pod}-${p.deployment}`], true))
        .split('\n')
        .filter((l) => /"level":(4|5|6)0/.test(l))
        .slice(-8);
      if (lines.length > 0)
        console.log(`--- ${p.pod} (warn and above, last ${lines.length})\n${lines.map((l) => l.slice(0, 400)).join('\n')}`);
    }
    throw err;
  } finally {
    await timed('teardown', async () => {
      if (stack) {
        await Promise.all(Object.values(stack.files).map((f) => podman(['kube', 'down', f], true)));
        for (const name of stack.secrets) await podman(['secret', 'rm', name], true);
      }
      await podman(['volume', 'rm', '-f', 'stratum-tokens'], true);
      await podman(['pod', 'rm', '-f', ANCHOR], true);
      for (const f of forwarders) await f.close();
      const amqp = new Connection(AMQP_URL);
      for (const queue of [bus.ingestQueue, bus.deadLetterQueue, bus.registryQueue])
        await amqp.queueDelete({ queue }).catch(() => undefined);
      for (const exchange of [bus.novaExchange, bus.forwardExchange, bus.auditExchange]) {
        await amqp.exchangeDelete({ exchange }).catch(() => undefined);
      }
      await amqp.close();
      if (store) {
        const client = await MongoClient.connect(store.uri).catch(() => undefined);
        await client
          ?.db(database)
          .dropDatabase()
          .catch(() => undefined);
        await client?.close();
        await store.stop();
      }
    });
    console.log(timings.map(([name, ms]) => `  ${(ms / 1000).toFixed(1).padStart(6)} s  ${name}`).join('\n'));
  }
}

main().catch((err) => {
  log(`FAILED: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
});
