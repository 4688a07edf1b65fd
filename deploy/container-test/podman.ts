/**
 * The container test's podman side: the podman CLI, the stratum-kube network (with an anchor pod keeping its bridge
 * up), the podman overlay rendered into what podman 4.3 plays (secrets, one file per Deployment), playing a
 * Deployment and waiting for its pods.
 */
import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '@stratum/store-runtime';
import { Failed, READY_TIMEOUT_MS, until } from './checks';
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
import { type BusNames, get } from './traffic';

export const NETWORK = 'stratum-kube';
export const SUBNET = '10.89.18.0/24';
export const NETWORK_GATEWAY = '10.89.18.1';
/** A pod that keeps the network's bridge (and so NETWORK_GATEWAY, where the forwarders bind) up before the stack. */
export const ANCHOR = 'stratum-kube-anchor';
export const ANCHOR_IP = '10.89.18.2';
export const WORK = join(ROOT, 'var', 'container-test');

const execFileAsync = promisify(execFile);

/**
 * Runs podman, returns its stdout. Asynchronous: the forwarders and the load run in this process and must not stall
 * while podman stops a container (a synchronous call blocked them for the 10 s of a drain).
 * @throws Failed with podman's stderr when it exits non-zero (unless `tolerate`: then '').
 */
export async function podman(args: string[], tolerate = false): Promise<string> {
  try {
    return (await execFileAsync('podman', args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })).stdout;
  } catch (err) {
    if (tolerate) return '';
    const e = err as { stderr?: string; message: string };
    throw new Failed(`podman ${args.join(' ')}: ${(e.stderr || e.message).trim().split('\n').slice(-5).join(' | ')}`);
  }
}

/** The podman network stratum-kube with the overlay's subnet, and the bridge up with its gateway address. */
export async function ensureNetwork(): Promise<void> {
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
export interface Stack {
  files: Record<ProcessName, string>;
  pods: Record<ProcessName, PlannedPod[]>;
  secrets: string[];
}

/**
 * Renders the podman overlay and writes what podman 4.3 can play: the podman secrets (created here, as JSON of base64
 * values; the identity secret generated), and per Deployment a file with the ConfigMaps and that Deployment (so one
 * service can be taken down and played again alone).
 */
export async function prepare(database: string, identitySecret: string, tokensJson: string, bus: BusNames): Promise<Stack> {
  const objects = parseManifests(renderOverlay(ROOT, 'podman'));
  const configMaps = objects.filter((o) => o.kind === 'ConfigMap');
  const set = (name: string, data: Record<string, string>) => {
    const cm = find(objects, 'ConfigMap', name);
    cm.data = { ...cm.data, ...data };
  };
  set('stratum-services', { MONGODB_DATABASE: database });
  // This run's own queues and exchanges on the shared broker.
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
export async function play(stack: Stack, name: ProcessName): Promise<void> {
  const ips = stack.pods[name].flatMap((p) => ['--ip', p.ip]);
  await podman(['kube', 'play', '--network', NETWORK, ...ips, stack.files[name]]);
}

export const podUrl = (p: PlannedPod) => `http://${p.ip}:${PROCESSES[p.deployment as ProcessName]}`;

/**
 * Waits until the pod answers /ready with 200.
 * @throws Failed after `timeoutMs`, with the pod's state and its container's last log lines.
 */
export async function podReady(p: PlannedPod, timeoutMs = READY_TIMEOUT_MS): Promise<void> {
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
export async function podStates(): Promise<Record<string, string>> {
  const rows = JSON.parse(await podman(['pod', 'ps', '--format', 'json'])) as { Name: string; Status: string }[];
  return Object.fromEntries(rows.map((r) => [r.Name, r.Status]));
}
