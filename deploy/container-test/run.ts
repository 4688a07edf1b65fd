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
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { ROOT, type RunningStore, startStore } from '@stratum/store-runtime';
import { MongoClient } from 'mongodb';
import { Connection } from 'rabbitmq-client';
import { ensureTokensFile } from '../src/tokens';
import { type Forwarder, forward } from './forward';
import {
  type Deployment,
  deployments,
  find,
  type K8sObject,
  type PlannedPod,
  PROCESSES,
  type ProcessName,
  parseManifests,
  podmanSecretJson,
  podPlan,
  renderOverlay,
  secretValues,
  toYaml,
} from './manifests';

const NETWORK = 'stratum-kube';
const SUBNET = '10.89.18.0/24';
const NETWORK_GATEWAY = '10.89.18.1';
/** A pod that keeps the network's bridge (and so NETWORK_GATEWAY, where the forwarders bind) up before the stack. */
const ANCHOR = 'stratum-kube-anchor';
const ANCHOR_IP = '10.89.18.2';
const WORK = join(ROOT, 'var', 'container-test');
const READY_TIMEOUT_MS = 120_000;

/** This run's RabbitMQ names (the machine's broker is shared: its own queues and exchanges, deleted at the end). */
function busNames(runId: string) {
  const p = `stratum.ctr-${runId}`;
  return {
    ingestQueue: `${p}.notifications`,
    deadLetterQueue: `${p}.notifications.dead`,
    registryQueue: `${p}.registry`,
    novaExchange: `${p}.nova`,
    forwardExchange: `${p}.events`,
    auditExchange: `${p}.audit`,
  };
}
type BusNames = ReturnType<typeof busNames>;
/** Notifications published to the ingestion queue, to show both event-query replicas consume it. */
const NOTIFICATIONS = 200;

/** A route of each group, with the token's answer expected 200. */
const GROUP_PATHS = {
  event: '/v2/events?limit=1',
  lbaas: '/v2.0/lbaas/quotas/defaults',
  domain: '/v3/domain_usage',
} as const;

class Failed extends Error {}
const execFileAsync = promisify(execFile);
const timings: [string, number][] = [];
const log = (msg: string) => console.log(`containers test: ${msg}`);

/** Runs `step`, records how long it took. */
async function timed<T>(name: string, step: () => Promise<T> | T): Promise<T> {
  const t0 = performance.now();
  try {
    return await step();
  } finally {
    const ms = performance.now() - t0;
    timings.push([name, ms]);
    log(`${name}: ${(ms / 1000).toFixed(1)} s`);
  }
}

/**
 * Runs podman, returns its stdout. Asynchronous: the forwarders and the load run in this process and must not stall
 * while podman stops a container (a synchronous call blocked them for the 10 s of a drain).
 * @throws Failed with podman's stderr when it exits non-zero (unless `tolerate`: then '').
 */
async function podman(args: string[], tolerate = false): Promise<string> {
  try {
    return (await execFileAsync('podman', args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })).stdout;
  } catch (err) {
    if (tolerate) return '';
    const e = err as { stderr?: string; message: string };
    throw new Failed(`podman ${args.join(' ')}: ${(e.stderr || e.message).trim().split('\n').slice(-5).join(' | ')}`);
  }
}

/** Polls `check` every 500 ms until it returns a value, or fails after `timeoutMs` with `what`. */
async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = READY_TIMEOUT_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Failed(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await sleep(500);
  }
}

async function get(url: string, token?: string, timeoutMs = 10_000): Promise<{ status: number; body: string }> {
  const res = await fetch(url, { headers: token ? { 'X-Auth-Token': token } : {}, signal: AbortSignal.timeout(timeoutMs) });
  return { status: res.status, body: await res.text() };
}

interface LoadResult {
  sent: number;
  ok: number;
  /** Answers other than 200, and requests that got no answer ('error'), by status. */
  failures: Record<string, number>;
}

/**
 * Sends GETs of `path` round-robin to `gateways` with `concurrency` in flight until `n` are sent or `stop()` is true.
 */
async function load(gateways: string[], path: string, token: string, opts: { n?: number; stop?: () => boolean; concurrency?: number }) {
  const r: LoadResult = { sent: 0, ok: 0, failures: {} };
  const more = () => (opts.n === undefined ? !opts.stop?.() : r.sent < opts.n);
  const worker = async () => {
    while (more()) {
      const url = `${gateways[r.sent % gateways.length]}${path}`;
      r.sent++;
      const status = await get(url, token).then(
        (x) => String(x.status),
        (err: Error & { cause?: { code?: string } }) => `error ${err.cause?.code ?? err.name}`,
      );
      if (status === '200') r.ok++;
      else r.failures[status] = (r.failures[status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency ?? 4 }, worker));
  return r;
}

const failedCount = (r: LoadResult) => r.sent - r.ok;
const describeLoad = (r: LoadResult) =>
  `${r.ok}/${r.sent} answered 200${failedCount(r) ? ` (failures by status: ${JSON.stringify(r.failures)})` : ''}`;

/** Sums the gateways' stratum_gateway_upstream_requests_total by replica URL. */
async function replicaCounts(metricsUrls: string[]): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const url of metricsUrls) {
    const { body } = await get(url);
    for (const m of body.matchAll(/^stratum_gateway_upstream_requests_total\{([^}]*)\} (\d+(?:\.\d+)?)$/gm)) {
      const replica = /replica="([^"]+)"/.exec(m[1] ?? '')?.[1];
      if (replica) counts[replica] = (counts[replica] ?? 0) + Number(m[2]);
    }
  }
  return counts;
}

/** The machine's RabbitMQ (what the forwarder at 10.89.18.1:5672 leads to). */
const AMQP_URL = 'amqp://guest:guest@127.0.0.1:5672';

/**
 * Publishes NOTIFICATIONS Nova notifications (the captured samples, deploy/samples, cycled with fresh message_ids) to
 * this run's nova exchange, as oslo.messaging does (topic `notifications.info`), with publisher confirms.
 * @returns their message_ids (the stored events' _id).
 */
async function publishNotifications(bus: BusNames): Promise<string[]> {
  const manifest = readFileSync(join(ROOT, 'deploy/samples/notifications.manifest.jsonl'), 'utf8').trim().split('\n');
  const bodies = readFileSync(join(ROOT, 'deploy/samples/notifications.jsonl'), 'utf8').trim().split('\n');
  const nova = manifest
    .map((l, i) => ({ m: JSON.parse(l) as { exchange: string; routing_key: string; message_id: string }, body: bodies[i] ?? '' }))
    .filter((x) => x.m.exchange === 'nova' && x.m.routing_key === 'notifications.info');
  if (nova.length === 0) throw new Failed('no nova notifications in deploy/samples');
  const amqp = new Connection(AMQP_URL);
  const publisher = amqp.createPublisher({ confirm: true });
  const ids: string[] = [];
  try {
    // Non-durable, as the consumer declares it (INGEST_EXCHANGES_DURABLE=false, oslo.messaging's default).
    await amqp.exchangeDeclare({ exchange: bus.novaExchange, type: 'topic', durable: false });
    for (let i = 0; i < NOTIFICATIONS; i++) {
      const sample = nova[i % nova.length];
      if (!sample) continue;
      const id = randomUUID();
      ids.push(id);
      await publisher.send(
        {
          exchange: bus.novaExchange,
          routingKey: 'notifications.info',
          contentType: 'application/json',
          contentEncoding: 'utf-8',
          durable: true,
        },
        Buffer.from(sample.body.split(sample.m.message_id).join(id)),
      );
    }
  } finally {
    await publisher.close();
    await amqp.close();
  }
  return ids;
}

/** The podman network stratum-kube with the overlay's subnet, and the bridge up with its gateway address. */
async function ensureNetwork(): Promise<void> {
  const existing = (await podman(['network', 'inspect', NETWORK, '--format', '{{range .Subnets}}{{.Subnet}} {{end}}'], true)).trim();
  if (existing && !existing.split(' ').includes(SUBNET)) {
    throw new Failed(`podman network ${NETWORK} exists with subnet ${existing}, not ${SUBNET} (podman network rm ${NETWORK})`);
  }
  if (!existing) await podman(['network', 'create', '--subnet', SUBNET, '--gateway', NETWORK_GATEWAY, NETWORK]);
  await podman(['pod', 'rm', '-f', ANCHOR], true);
  // A fixed address outside the plan: host-local IPAM hands out addresses round-robin, so an automatic one could be
  // one the plan gives a pod.
  await podman(['pod', 'create', '--name', ANCHOR, '--network', NETWORK, '--ip', ANCHOR_IP]);
  await podman(['pod', 'start', ANCHOR]);
  await until(`${NETWORK_GATEWAY} on a bridge`, async () =>
    Object.values(networkInterfaces()).some((addrs) => addrs?.some((a) => a.address === NETWORK_GATEWAY)) ? true : undefined,
  );
}

/** The played stack: per process, its Deployment's YAML file and its pods. */
interface Stack {
  files: Record<ProcessName, string>;
  pods: Record<ProcessName, PlannedPod[]>;
  secrets: string[];
}

/**
 * Renders the podman overlay and writes what podman 4.3 can play: the podman secrets (created here, as JSON of base64
 * values; the identity secret generated), and per Deployment a file with the ConfigMaps and that Deployment (so one
 * service can be taken down and played again alone).
 */
async function prepare(database: string, identitySecret: string, tokensJson: string, bus: BusNames): Promise<Stack> {
  const objects = parseManifests(renderOverlay(ROOT, 'podman'));
  const configMaps = objects.filter((o) => o.kind === 'ConfigMap');
  find(objects, 'ConfigMap', 'stratum-services').data = {
    ...find(objects, 'ConfigMap', 'stratum-services').data,
    MONGODB_DATABASE: database,
  };
  // This run's own queues and exchanges on the shared broker.
  const set = (name: string, data: Record<string, string>) => {
    const cm = find(objects, 'ConfigMap', name);
    cm.data = { ...cm.data, ...data };
  };
  set('event-query-config', {
    INGEST_QUEUE: bus.ingestQueue,
    INGEST_DEAD_LETTER_QUEUE: bus.deadLetterQueue,
    INGEST_EXCHANGES: bus.novaExchange,
    INGEST_CEILOMETER_EXCHANGE: '',
    EVENT_FORWARD_EXCHANGE: bus.forwardExchange,
  });
  set('domain-quota-config', {
    REGISTRY_QUEUE: bus.registryQueue,
    REGISTRY_EVENTS_EXCHANGE: bus.forwardExchange,
    AUDIT_NOTIFICATION_EXCHANGE: bus.auditExchange,
  });
  find(objects, 'ConfigMap', 'stratum-tokens').data = { 'tokens.json': tokensJson };
  const secrets: string[] = [];
  for (const s of objects.filter((o) => o.kind === 'Secret')) {
    const values = secretValues(s);
    if (s.metadata.name === 'stratum-identity') values.STRATUM_IDENTITY_SECRET = identitySecret;
    const file = join(WORK, `secret-${s.metadata.name}.json`);
    writeFileSync(file, podmanSecretJson(values), { mode: 0o600 });
    await podman(['secret', 'rm', s.metadata.name], true);
    await podman(['secret', 'create', s.metadata.name, file]);
    rmSync(file);
    secrets.push(s.metadata.name);
  }
  const files = {} as Record<ProcessName, string>;
  const pods = {} as Record<ProcessName, PlannedPod[]>;
  for (const d of deployments(objects)) {
    const name = d.metadata.name as ProcessName;
    if (!(name in PROCESSES)) throw new Failed(`unexpected Deployment ${name} in the podman overlay`);
    files[name] = join(WORK, `${name}.yaml`);
    writeFileSync(files[name], toYaml([...configMaps, d] as K8sObject[]));
    pods[name] = podPlan(d as Deployment);
  }
  return { files, pods, secrets };
}

/** `podman kube play` of one process's Deployment, each pod at its planned address. */
async function play(stack: Stack, name: ProcessName): Promise<void> {
  const ips = stack.pods[name].flatMap((p) => ['--ip', p.ip]);
  await podman(['kube', 'play', '--network', NETWORK, ...ips, stack.files[name]]);
}

const podUrl = (p: PlannedPod) => `http://${p.ip}:${PROCESSES[p.deployment as ProcessName]}`;

/**
 * Waits until the pod answers /ready with 200.
 * @throws Failed after `timeoutMs`, with the pod's state and its container's last log lines.
 */
async function podReady(p: PlannedPod, timeoutMs = READY_TIMEOUT_MS): Promise<void> {
  try {
    await until(
      `${p.pod} /ready`,
      async () => ((await get(`${podUrl(p)}/ready`, undefined, 2000)).status === 200 ? true : undefined),
      timeoutMs,
    );
  } catch (err) {
    const containers = (await podman(['ps', '-a', '--filter', `pod=${p.pod}`, '--format', '{{.Names}} {{.Status}}'], true)).trim();
    const logs = (await podman(['logs', '--tail', '15', `${p.pod}-${p.deployment}`], true)).trim();
    throw new Failed(`${(err as Error).message}; containers: ${containers.replace(/\n/g, ', ')}; last log lines:\n${logs}`);
  }
}

/** The pods' states, from `podman pod ps`. */
async function podStates(): Promise<Record<string, string>> {
  const rows = JSON.parse(await podman(['pod', 'ps', '--format', 'json'])) as { Name: string; Status: string }[];
  return Object.fromEntries(rows.map((r) => [r.Name, r.Status]));
}

function check(ok: boolean, what: string): void {
  if (!ok) throw new Failed(what);
  log(`ok: ${what}`);
}

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
      let killed = false;
      const running = load(gateways, GROUP_PATHS.lbaas, admin, { n: 400, concurrency: 4 });
      await sleep(200);
      await podman(['pod', 'kill', '--signal', 'KILL', victim.pod]);
      killed = true;
      const r = await running;
      const after = await load(gateways, GROUP_PATHS.lbaas, admin, { n: 100 });
      check(killed && failedCount(after) === 0, `lbaas reads after the kill: ${describeLoad(after)}`);
      check(failedCount(r) === 0, `lbaas reads across the kill (GETs retried on the live replica): ${describeLoad(r)}`);
    });
    const retries = (await Promise.all(metrics.map((m) => get(m)))).map(
      (x) => Number(/^stratum_gateway_upstream_retries_total\{group="lbaas"\} (\d+)/m.exec(x.body)?.[1] ?? 0) || 0,
    );
    log(`gateway retries on another lbaas replica: ${retries.join(' + ')}`);
    await timed(`${victim.pod} back`, async () => {
      if ((await podStates())[victim.pod] !== 'Running') await podman(['pod', 'start', victim.pod]);
      await podReady(victim);
      const before = (await replicaCounts(metrics))[`http://${victim.pod}:8782`] ?? 0;
      // The gateway tries it again once its cool-down (UPSTREAM_COOLDOWN_MS, 2 s) is over.
      await until(`the gateways sending to ${victim.pod} again`, async () => {
        await load(gateways, GROUP_PATHS.lbaas, admin, { n: 8 });
        return ((await replicaCounts(metrics))[`http://${victim.pod}:8782`] ?? 0) > before ? true : undefined;
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
