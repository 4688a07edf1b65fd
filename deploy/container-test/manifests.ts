/**
 * Reading the rendered Kubernetes manifests (deploy/kubernetes): `kubectl kustomize` output parsed into objects, the
 * values of Secrets and ConfigMaps, the environment a container gets, and the podman overlay's pod address plan.
 * Used by the container test (run.ts) and the manifests' render test (deploy/src/kubernetes.test.ts).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';

/** The overlays under deploy/kubernetes/overlays. */
export const OVERLAYS = ['dev', 'production', 'podman'] as const;
export type Overlay = (typeof OVERLAYS)[number];

/** The four processes, each a Deployment of that name, with its API port. */
export const PROCESSES = { gateway: 8780, 'event-query': 8781, 'lbaas-quota': 8782, 'domain-quota': 8783 } as const;
export type ProcessName = keyof typeof PROCESSES;

/** A Kubernetes object as rendered: only the fields read here are typed. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  spec?: Record<string, unknown>;
}

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string }; configMapKeyRef?: { name: string; key: string } };
}

export interface EnvFrom {
  configMapRef?: { name: string };
  secretRef?: { name: string };
}

export interface Probe {
  httpGet?: { path: string; port: number | string };
  exec?: { command: string[] };
}

export interface Container {
  name: string;
  image: string;
  env?: EnvVar[];
  envFrom?: EnvFrom[];
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: { readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean };
  volumeMounts?: { name: string; mountPath: string }[];
}

export interface PodSpec {
  containers: Container[];
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
  hostAliases?: { ip: string; hostnames: string[] }[];
  volumes?: { name: string; configMap?: { name: string }; secret?: { secretName: string }; emptyDir?: unknown }[];
}

export interface Deployment extends K8sObject {
  spec: { replicas?: number; template: { spec: PodSpec } };
}

/** Whether kubectl is on PATH (the render test skips without it). */
export function haveKubectl(): boolean {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * `kubectl kustomize deploy/kubernetes/overlays/<overlay>`: the overlay's YAML.
 * @throws Error with kubectl's message when it fails (an overlay that does not build).
 */
export function renderOverlay(root: string, overlay: Overlay): string {
  return execFileSync('kubectl', ['kustomize', join(root, 'deploy', 'kubernetes', 'overlays', overlay)], {
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
}

/**
 * The objects of a multi-document YAML stream, in order (empty documents dropped).
 * @throws Error on a YAML syntax error.
 */
export function parseManifests(text: string): K8sObject[] {
  const out: K8sObject[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length > 0) throw new Error(`invalid YAML: ${doc.errors[0]?.message}`);
    const value = doc.toJS() as K8sObject | null;
    if (value) out.push(value);
  }
  return out;
}

/** The objects back as one YAML stream (what `podman kube play` reads). */
export function toYaml(objects: readonly K8sObject[]): string {
  return objects.map((o) => stringify(o)).join('---\n');
}

/** The object of `kind` named `name`. @throws Error when there is none. */
export function find<T extends K8sObject = K8sObject>(objects: readonly K8sObject[], kind: string, name: string): T {
  const o = objects.find((x) => x.kind === kind && x.metadata.name === name);
  if (!o) throw new Error(`no ${kind} ${name} in the manifests`);
  return o as T;
}

/** The Deployments, in the order rendered. */
export const deployments = (objects: readonly K8sObject[]): Deployment[] => objects.filter((o) => o.kind === 'Deployment') as Deployment[];

/** A Secret's values, decoded: `data` (base64) and `stringData` (plain, which wins as in Kubernetes). */
export function secretValues(secret: K8sObject): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(secret.data ?? {})) out[k] = Buffer.from(v, 'base64').toString('utf8');
  for (const [k, v] of Object.entries(secret.stringData ?? {})) out[k] = v;
  return out;
}

/**
 * A Secret's values in the form podman 4.3's `secretKeyRef` reads from a podman secret: a JSON object of base64
 * values (a Secret document played by `podman kube play` is stored as YAML, which that lookup refuses as "not valid
 * JSON"; observed with podman 4.3.1).
 */
export function podmanSecretJson(values: Record<string, string>): string {
  return JSON.stringify(Object.fromEntries(Object.entries(values).map(([k, v]) => [k, Buffer.from(v, 'utf8').toString('base64')])));
}

/**
 * The environment the first container of `deployment` starts with: its envFrom ConfigMaps and Secrets in order, then
 * its env (literal values and key references), as Kubernetes builds it. `secretOverrides` replaces a Secret's values
 * (by Secret name), e.g. generated ones for placeholders.
 * @throws Error when a referenced ConfigMap, Secret or key is missing (the pod would not start).
 */
export function containerEnv(
  objects: readonly K8sObject[],
  deployment: Deployment,
  secretOverrides: Record<string, Record<string, string>> = {},
): Record<string, string> {
  const secret = (name: string) => ({ ...secretValues(find(objects, 'Secret', name)), ...secretOverrides[name] });
  const configMap = (name: string) => find(objects, 'ConfigMap', name).data ?? {};
  const c = first(deployment);
  const env: Record<string, string> = {};
  for (const from of c.envFrom ?? []) {
    if (from.configMapRef) Object.assign(env, configMap(from.configMapRef.name));
    if (from.secretRef) Object.assign(env, secret(from.secretRef.name));
  }
  for (const e of c.env ?? []) {
    const ref = e.valueFrom?.secretKeyRef ?? e.valueFrom?.configMapKeyRef;
    if (!ref) {
      env[e.name] = e.value ?? '';
      continue;
    }
    const source = e.valueFrom?.secretKeyRef ? secret(ref.name) : configMap(ref.name);
    const value = source[ref.key];
    if (value === undefined)
      throw new Error(`${deployment.metadata.name}: ${e.name} refers to ${ref.name}/${ref.key}, which does not exist`);
    env[e.name] = value;
  }
  return env;
}

/** The Deployment's one container. @throws Error when it has none. */
export function first(deployment: Deployment): Container {
  const c = deployment.spec.template.spec.containers[0];
  if (!c) throw new Error(`${deployment.metadata.name} has no container`);
  return c;
}

/** One pod `podman kube play` creates for a Deployment, and its address in the podman overlay's plan. */
export interface PlannedPod {
  deployment: string;
  /** `<deployment>-pod-<i>`: podman 4.3's name (and hostname) for replica i. */
  pod: string;
  ip: string;
}

/**
 * The pods of each Deployment (its replica count, podman's naming) with the address the overlay's hostAliases give
 * that pod name, in the order podman creates them (the order of `--ip` flags).
 * @throws Error when a pod has no address in the Deployment's hostAliases.
 */
export function podPlan(deployment: Deployment): PlannedPod[] {
  const name = deployment.metadata.name;
  const aliases = deployment.spec.template.spec.hostAliases ?? [];
  const pods: PlannedPod[] = [];
  for (let i = 0; i < (deployment.spec.replicas ?? 1); i++) {
    const pod = `${name}-pod-${i}`;
    const ip = aliases.find((a) => a.hostnames.includes(pod))?.ip;
    if (!ip) throw new Error(`${name}: no hostAliases entry for ${pod}`);
    pods.push({ deployment: name, pod, ip });
  }
  return pods;
}
