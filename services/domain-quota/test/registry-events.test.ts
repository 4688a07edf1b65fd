/**
 * The registry follows the cloud, end to end: a real Keystone (SQLite, fernet) publishes its CADF notifications to
 * the local RabbitMQ; the event service stores them and forwards identity and volume type events; the
 * domain-quota service's subscriber reads the forwarded events (asking Keystone for a project's domain) and updates
 * the registry. Its audit log comes back the other way, as `domain_quota.update` events served by group A.
 * Every exchange and queue is this file's own, so other tests' messages never reach it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadRegistryFile } from '@stratum/deploy';
import { ROOT } from '@stratum/store-runtime';
import {
  ALL_TENANTS,
  AMQP_URL,
  Bus,
  ingestEnv,
  type RunningKeystone,
  startKeystone,
  startTestStack,
  suffix,
  type TestStack,
  tokenOf,
  waitFor,
} from '@stratum/testing';
import request from 'supertest';
import { stringify } from 'yaml';

jest.setTimeout(180_000);

const s = suffix();
const names = {
  keystone: `keystone_t${s}`,
  openstack: `openstack_t${s}`,
  audit: `stratum_t${s}`,
  forward: `stratum.events.t${s}`,
  ingestQueue: `stratum.test.${s}`,
  registryQueue: `stratum.test.${s}.registry`,
};
const R = '/v3/domain_quota_registry';

let keystone: RunningKeystone;
let stack: TestStack;
let bus: Bus;

beforeAll(async () => {
  bus = new Bus();
  keystone = await startKeystone({
    notifications: { transportUrl: AMQP_URL.replace(/^amqp:/, 'rabbit:'), exchange: names.keystone },
  });
  stack = await startTestStack({
    eventEnv: ingestEnv(names.ingestQueue, {
      INGEST_EXCHANGES: [names.keystone, names.openstack, names.audit].join(','),
      EVENT_FORWARD_EXCHANGE: names.forward,
    }),
    domainEnv: {
      AMQP_URL,
      REGISTRY_EVENTS_EXCHANGE: names.forward,
      REGISTRY_QUEUE: names.registryQueue,
      AUDIT_NOTIFICATION_EXCHANGE: names.audit,
      AUDIT_PUBLISH_INTERVAL_MS: '200',
      ...keystone.serviceEnv(),
    },
  });
  await loadRegistryFile(
    stack.db,
    stringify({
      regions: [{ name: 'R1', volume_types: ['ssd'], products: [] }],
      departments: [{ id: 'default', name: 'Cloud', quotas: { R1: { cores: 1000 } } }],
    }),
  );
});

afterAll(async () => {
  await stack?.close();
  await keystone?.stop();
  await bus?.deleteQueues(names.ingestQueue, `${names.ingestQueue}.dead`, names.registryQueue);
  await bus?.close();
});

const admin = () => tokenOf(stack, 'admin');
const registry = (path: string) => request(stack.gateway).get(`${R}${path}`).set(admin());

/** A call to Keystone's API as its bootstrapped admin. */
async function keystoneApi(method: string, path: string, body?: unknown): Promise<Record<string, { id: string }>> {
  const res = await fetch(`${keystone.url}${path}`, {
    method,
    headers: { 'X-Auth-Token': await keystone.adminToken(), 'Content-Type': 'application/json' },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (res.status >= 300) throw new Error(`keystone ${method} ${path}: ${res.status} ${await res.text()}`);
  return res.status === 204 ? {} : ((await res.json()) as Record<string, { id: string }>);
}

const bodies = readFileSync(join(ROOT, 'deploy/samples/notifications.jsonl'), 'utf8').trim().split('\n');

/** Publishes captured notification number `n` (deploy/samples, in capture order) as Cinder did, to this file's exchange. */
async function publishSample(n: number): Promise<void> {
  await bus.publish(names.openstack, 'notifications.info', bodies[n - 1] as string);
}

describe('the registry follows Keystone and Cinder through forwarded events', () => {
  let domainId: string;
  let projectId: string;

  it('a domain created in Keystone becomes a department, with its name; a rename follows', async () => {
    domainId = (await keystoneApi('POST', '/domains', { domain: { name: `finance-${s}` } })).domain?.id as string;
    await waitFor('the department', async () => (await registry(`/domains/${domainId}`)).status === 200);
    expect((await registry(`/domains/${domainId}`)).body.domain).toEqual({ id: domainId, name: `finance-${s}` });
    await keystoneApi('PATCH', `/domains/${domainId}`, { domain: { name: `treasury-${s}` } });
    await waitFor('the new name', async () => (await registry(`/domains/${domainId}`)).body.domain.name === `treasury-${s}`);
  });

  it('a project created in Keystone is registered under its domain (read from Keystone) and can get allocations', async () => {
    projectId = (await keystoneApi('POST', '/projects', { project: { name: `ledger-${s}`, domain_id: domainId } })).project?.id as string;
    await waitFor('the project', async () => (await registry(`/projects/${projectId}`)).status === 200);
    expect((await registry(`/projects/${projectId}`)).body.project).toEqual({ id: projectId, domain_id: domainId, name: `ledger-${s}` });
    await request(stack.gateway)
      .patch(`/v3/domain_quotas/${domainId}`)
      .set(admin())
      .send({ domain: { region: 'R1', cores: 10 } })
      .expect(200);
    await request(stack.gateway)
      .patch(`/v3/domain_quotas/${domainId}/projects/${projectId}`)
      .set(admin())
      .send({ project: { region: 'R1', cores: 4 } })
      .expect(200);
    expect((await request(stack.gateway).get(`/v3/domain_quotas/${domainId}`).set(admin())).body.domain.R1.usage.cores).toBe(4);
  });

  it('every audit entry is also an event (domain_quota.update) that group A serves to cloud admins', async () => {
    await request(stack.gateway)
      .patch(`/v3/domain_quotas/${domainId}`)
      .set(admin())
      .send({ domain: { region: 'R1', cores: 5000 } })
      .expect(409);
    const query = `/v2/events?q.field=event_type&q.op=eq&q.value=domain_quota.update&${ALL_TENANTS}`;
    type Ev = { traits: { name: string; value: string }[] };
    const traits = (e: Ev) => Object.fromEntries(e.traits.map((t) => [t.name, t.value]));
    let events: Ev[] = [];
    await waitFor('the audit events', async () => {
      events = (await request(stack.gateway).get(query).set(admin())).body;
      return Array.isArray(events) && events.length >= 3;
    });
    const all = events.map(traits);
    expect(all).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ domain_id: domainId, region: 'R1', item: 'cores', old: '0.0', new: '10.0', outcome: 'success' }),
        expect.objectContaining({ domain_id: domainId, quota_project_id: projectId, item: 'cores', new: '4.0', outcome: 'success' }),
        expect.objectContaining({
          domain_id: domainId,
          item: 'cores',
          new: '5000.0',
          outcome: 'failure',
          reason: 'exceeds_limit',
          status: '409',
        }),
      ]),
    );
    // Not served to a project's members: the audit trail is the cloud admins'.
    expect(
      (
        await request(stack.gateway)
          .get(query.replace(`&${ALL_TENANTS}`, ''))
          .set(tokenOf(stack, 'memberA'))
      ).body,
    ).toEqual([]);
  });

  it('a project deleted in Keystone releases its allocation and leaves the registry, with its usage reports', async () => {
    const used = () => registry(`/usage?domain_id=${domainId}`);
    await request(stack.gateway)
      .put(`/v3/domain_quota_registry/projects/${projectId}/usage/R1`)
      .set(admin())
      .send({ usage: { values: { cores: 3 } } })
      .expect(201);
    expect((await used()).body.usage.R1).toMatchObject({ projects_reported: 1, values: expect.objectContaining({ cores: 3 }) });
    await keystoneApi('DELETE', `/projects/${projectId}`);
    await waitFor('the project to go', async () => (await registry(`/projects/${projectId}`)).status === 404);
    expect((await request(stack.gateway).get(`/v3/domain_quotas/${domainId}`).set(admin())).body.domain.R1.usage.cores).toBe(0);
    expect((await used()).body).toEqual({ usage: {} });
  });

  it('a domain deleted in Keystone releases its quota to the cloud and leaves the registry', async () => {
    await keystoneApi('PATCH', `/domains/${domainId}`, { domain: { enabled: false } });
    await keystoneApi('DELETE', `/domains/${domainId}`);
    await waitFor('the department to go', async () => (await registry(`/domains/${domainId}`)).status === 404);
    expect((await request(stack.gateway).get('/v3/domain_usage').set(admin())).body.domain.R1.allocated.cores).toBe(0);
  });

  it('Cinder volume types (the captured notifications) appear, are renamed and go as the region’s items', async () => {
    const types = async () => (await registry('/regions/R1')).body.region.volume_types as string[];
    await publishSample(138);
    await waitFor('the new type', async () => (await types()).includes('cap-vtype-2'));
    const c1 = (await request(stack.gateway).get('/v3/domain_usage').set(admin())).body.domain.R1;
    expect(c1.quotas).toHaveProperty('volumes_cap-vtype-2');
    await publishSample(140);
    await waitFor('the rename', async () => {
      const t = await types();
      return t.includes('cap-vtype-2-renamed') && !t.includes('cap-vtype-2');
    });
    await publishSample(159);
    await waitFor('the delete', async () => !(await types()).includes('cap-vtype-2-renamed'));
    expect(await types()).toContain('ssd');
    expect(stack.domainDeps.subscriber?.stats.retried).toBe(0);
  });
});
