/**
 * The Kubernetes manifests (deploy/kubernetes) as `kubectl kustomize` renders each overlay: every process's
 * Deployment has its probes, resources and security settings; the environment each container would get is one its
 * process's loadConfig accepts, with no key the process does not read; every overlay's specifics hold. Skipped, with
 * the reason in the test's name, where kubectl is not installed.
 */
import { join } from 'node:path';
import { loadConfig as domainQuotaConfig } from '@stratum/domain-quota';
import { loadConfig as eventQueryConfig } from '@stratum/event-query';
import { loadConfig as gatewayConfig } from '@stratum/gateway';
import { loadConfig as lbaasQuotaConfig } from '@stratum/lbaas-quota';
import {
  containerEnv,
  type Deployment,
  deployments,
  find,
  first,
  haveKubectl,
  type K8sObject,
  OVERLAYS,
  type Overlay,
  PROCESSES,
  type Probe,
  type ProcessName,
  parseManifests,
  podPlan,
  renderOverlay,
} from '../container-test/manifests';

const ROOT = join(__dirname, '..', '..');
const LOADERS: Record<ProcessName, (env: NodeJS.ProcessEnv) => object> = {
  gateway: gatewayConfig,
  'event-query': eventQueryConfig,
  'lbaas-quota': lbaasQuotaConfig,
  'domain-quota': domainQuotaConfig,
};
/** Read by Node itself, not by our config. */
const NODE_KEYS = new Set(['NODE_OPTIONS']);
/** Values the overlays leave as placeholders on purpose (replaced out of band): stand-ins so the rest is checked. */
const STAND_INS = {
  'stratum-identity': { STRATUM_IDENTITY_SECRET: 'a-test-identity-secret-of-32-chars' },
  'stratum-keystone': { KEYSTONE_URL: 'https://keystone.example.com/v3', KEYSTONE_USERNAME: 'stratum', KEYSTONE_PASSWORD: 'x' },
};

const probePath = (p: Probe | undefined): string | undefined =>
  p?.httpGet?.path ?? /fetch\('http:\/\/127\.0\.0\.1:'\+process\.env\.PORT\+'(\/\w+)'\)/.exec(p?.exec?.command.join(' ') ?? '')?.[1];

const kubectl = haveKubectl();
const describeIf = kubectl ? describe : describe.skip;
if (!kubectl) test.skip('kubernetes manifests: SKIPPED, kubectl not found on PATH', () => {});

describeIf.each(OVERLAYS)('overlay %s', (overlay: Overlay) => {
  let objects: K8sObject[];
  beforeAll(() => {
    objects = parseManifests(renderOverlay(ROOT, overlay));
  });
  const deployment = (name: string) => find<Deployment>(objects, 'Deployment', name);
  const replicas = overlay === 'production' ? 3 : 2;

  test.each(Object.keys(PROCESSES) as ProcessName[])('%s: replicas, probes, resources, non-root, read-only root', (name) => {
    const d = deployment(name);
    const c = first(d);
    expect(d.spec.replicas).toBe(replicas);
    // The gateway is ready when it answers: its /ready requires every group, and one group down must not stop all.
    expect(probePath(c.readinessProbe)).toBe(name === 'gateway' ? '/healthcheck' : '/ready');
    expect(probePath(c.livenessProbe)).toBe('/healthcheck');
    for (const kind of ['requests', 'limits'] as const) {
      expect(c.resources?.[kind]?.cpu).toBeTruthy();
      expect(c.resources?.[kind]?.memory).toMatch(/^\d+Mi$/);
    }
    // V8's heap fits under the memory limit.
    const heap = Number(/--max-old-space-size=(\d+)/.exec(c.env?.find((e) => e.name === 'NODE_OPTIONS')?.value ?? '')?.[1]);
    expect(heap).toBeLessThan(Number.parseInt(c.resources?.limits?.memory ?? '0', 10));
    expect(d.spec.template.spec.securityContext?.runAsNonRoot).toBe(true);
    expect(d.spec.template.spec.securityContext?.runAsUser).toBeGreaterThan(0);
    expect(c.securityContext?.readOnlyRootFilesystem).toBe(true);
    expect(c.image).toMatch(overlay === 'production' ? new RegExp(`/stratum-${name}:`) : new RegExp(`^localhost/stratum-${name}:dev$`));
  });

  test.each(Object.keys(PROCESSES) as ProcessName[])('%s: its environment is one its config accepts, every key read', (name) => {
    const env = containerEnv(objects, deployment(name), STAND_INS);
    const config = LOADERS[name](env);
    const unread = Object.keys(env).filter((k) => !(k in config) && !NODE_KEYS.has(k));
    expect(unread).toEqual([]);
    expect(env.PORT).toBe(String(PROCESSES[name]));
    expect(env.HOST).toBe('0.0.0.0');
  });

  test('a Service, PodDisruptionBudget and HorizontalPodAutoscaler per process, and the network policy', () => {
    for (const name of Object.keys(PROCESSES)) {
      find(objects, 'Service', name);
      find(objects, 'PodDisruptionBudget', name);
      const hpa = find(objects, 'HorizontalPodAutoscaler', name).spec as { minReplicas: number; maxReplicas: number };
      expect(hpa.minReplicas).toBe(replicas);
      expect(hpa.maxReplicas).toBeGreaterThan(hpa.minReplicas);
    }
    const services = find(objects, 'NetworkPolicy', 'stratum-services').spec as { ingress: { from: unknown[] }[] };
    expect(services.ingress).toEqual([
      expect.objectContaining({ from: [{ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'gateway' } } }] }),
    ]);
  });

  if (overlay === 'dev') {
    test('dev: its own store, which the services use', () => {
      const store = find(objects, 'StatefulSet', 'store').spec as { template: { spec: { containers: { image: string }[] } } };
      expect(store.template.spec.containers[0]?.image).toBe('docker.io/library/mongo:7');
      expect(containerEnv(objects, deployment('lbaas-quota')).MONGODB_URI).toBe('mongodb://store-0.store:27017/');
    });
  }

  if (overlay === 'production') {
    test('production: no store in the cluster, Keystone instead of a tokens file, queue-driven ingestion scaling', () => {
      expect(objects.filter((o) => o.kind === 'StatefulSet')).toEqual([]);
      expect(objects.some((o) => o.kind === 'Secret' && o.metadata.name === 'stratum-tokens')).toBe(false);
      const env = containerEnv(objects, deployment('gateway'), STAND_INS);
      expect(env.TOKENS_FILE).toBe('');
      expect(env.KEYSTONE_URL).toBe(STAND_INS['stratum-keystone'].KEYSTONE_URL);
      const hpa = find(objects, 'HorizontalPodAutoscaler', 'event-query').spec as { metrics: { type: string }[] };
      expect(hpa.metrics.map((m) => m.type)).toEqual(['Resource', 'External']);
    });
  }

  if (overlay === 'podman') {
    test('podman: every pod has its own address, and the gateway lists the replicas by pod name', () => {
      const plan = deployments(objects).flatMap(podPlan);
      expect(plan).toHaveLength(8);
      expect(new Set(plan.map((p) => p.ip)).size).toBe(8);
      for (const p of plan) expect(p.ip).toMatch(/^10\.89\.18\.\d+$/);
      const env = containerEnv(objects, deployment('gateway'), STAND_INS);
      for (const [key, name] of [
        ['EVENT_QUERY_URL', 'event-query'],
        ['LBAAS_QUOTA_URL', 'lbaas-quota'],
        ['DOMAIN_QUOTA_URL', 'domain-quota'],
      ] as const) {
        const port = PROCESSES[name];
        expect(env[key]).toBe(`http://${name}-pod-0:${port},http://${name}-pod-1:${port}`);
      }
      // The tokens file from a ConfigMap: podman 4.3 crashes on secret volumes.
      const volumes = deployment('gateway').spec.template.spec.volumes ?? [];
      expect(volumes.find((v) => v.name === 'tokens')?.configMap?.name).toBe('stratum-tokens');
    });
  }
});
