/**
 * The registry's admin endpoints through the gateway: regions and their catalogue, departments, projects and usage,
 * with the rules that keep the quota tree whole (nothing held is dropped; deletions release through the tree).
 */
import { loadRegistryFile } from '@stratum/deploy';
import { startTestStack, type TestStack, tokenOf } from '@stratum/testing';
import request from 'supertest';
import { stringify } from 'yaml';

const P = '/v3/domain_quota_registry';

describe('group C: the registry admin endpoints', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
    await loadRegistryFile(
      stack.db,
      stringify({
        regions: [{ name: 'R1', volume_types: ['ssd', 'sata'], products: ['secure_container'] }],
        departments: [
          { id: 'default', name: 'Cloud', quotas: { R1: { cores: 100, volumes_ssd: 50 } } },
          { id: 'dept-r', name: 'R', quotas: { R1: { cores: 20, volumes_ssd: 10 } } },
          { id: 'dept-empty', name: 'Empty', quotas: { R1: { cores: 5 } } },
        ],
        projects: [{ id: 'p-r1', name: 'r1', domain_id: 'dept-r', quotas: { R1: { cores: 4, volumes_ssd: 2 } } }],
      }),
    );
  });
  afterAll(() => stack.close());

  const admin = () => tokenOf(stack, 'admin');
  const api = () => request(stack.gateway);
  const c1 = async (d: string) => (await api().get(`/v3/domain_quotas/${d}`).set(admin()).expect(200)).body.domain.R1;

  it('regions: PUT creates (201) and replaces (200); new volume types and products appear as items', async () => {
    const made = await api()
      .put(`${P}/regions/R2`)
      .set(admin())
      .send({ region: { volume_types: ['nvme'] } });
    expect(made.status).toBe(201);
    expect(made.body.region).toEqual({ name: 'R2', volume_types: ['nvme'], products: [] });
    const again = await api()
      .put(`${P}/regions/R2`)
      .set(admin())
      .send({ region: { volume_types: ['nvme', 'ssd'], products: ['secure_container'] } });
    expect(again.status).toBe(200);
    const list = await api().get(`${P}/regions`).set(admin()).expect(200);
    expect(list.body.regions.map((r: { name: string }) => r.name)).toEqual(['R1', 'R2']);
    const cloud = await api().get('/v3/domain_usage').set(admin()).expect(200);
    expect(cloud.body.domain.R2.quotas).toHaveProperty('volumes_nvme');
    expect(cloud.body.domain.R2.quotas).toHaveProperty('cpu');
    await api().delete(`${P}/regions/R2`).set(admin()).expect(204);
    await api().get(`${P}/regions/R2`).set(admin()).expect(404);
  });

  it('regions: dropping a volume type whose items are held is a 409 naming them; an unused one goes', async () => {
    const held = await api()
      .put(`${P}/regions/R1`)
      .set(admin())
      .send({ region: { volume_types: ['sata'], products: ['secure_container'] } });
    expect(held.status).toBe(409);
    expect(held.body.error.details).toEqual([{ region: 'R1', item: 'volumes_ssd', reason: 'in_use' }]);
    await api()
      .put(`${P}/regions/R1`)
      .set(admin())
      .send({ region: { volume_types: ['ssd'], products: ['secure_container'] } })
      .expect(200);
    const view = await c1('dept-r');
    expect(view.quotas).toHaveProperty('volumes_ssd', 10);
    expect(view.quotas).not.toHaveProperty('volumes_sata');
    const del = await api().delete(`${P}/regions/R1`).set(admin());
    expect(del.status).toBe(409);
  });

  it('bodies and ids are validated, every problem at once, in the Keystone envelope', async () => {
    const bad = await api()
      .put(`${P}/regions/R9`)
      .set(admin())
      .send({ region: { volume_types: ['a.b', 7], colour: 'red' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe(400);
    expect(bad.body.error.details.length).toBeGreaterThanOrEqual(3);
    expect((await api().put(`${P}/regions/R%2F9`).set(admin()).send({ region: {} })).status).toBe(400);
    expect(
      (
        await api()
          .put(`${P}/domains/${'x'.repeat(65)}`)
          .set(admin())
          .send({ domain: { name: 'x' } })
      ).status,
    ).toBe(400);
    expect(
      (
        await api()
          .put(`${P}/projects/p-x`)
          .set(admin())
          .send({ project: { domain_id: 'nope', name: 'x' } })
      ).status,
    ).toBe(400);
    expect((await api().put(`${P}/projects/p-x`).set(admin()).send('not json').type('text/plain')).status).toBe(415);
    const m = await api().post(`${P}/domains/dept-r`).set(admin());
    expect(m.status).toBe(405);
    expect(m.headers.allow).toBe('GET, PUT, DELETE');
  });

  it('departments: PUT creates and renames; the new department shows in C1', async () => {
    expect(
      (
        await api()
          .put(`${P}/domains/dept-new`)
          .set(admin())
          .send({ domain: { name: 'New' } })
      ).status,
    ).toBe(201);
    const renamed = await api()
      .put(`${P}/domains/dept-new`)
      .set(admin())
      .send({ domain: { name: 'Newer' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.domain).toEqual({ id: 'dept-new', name: 'Newer' });
    expect((await c1('dept-new')).quotas.cores).toBe(0);
  });

  it('departments: delete refuses while projects remain; otherwise releases its quotas to the cloud and audits it', async () => {
    expect((await api().delete(`${P}/domains/dept-r`).set(admin())).status).toBe(409);
    expect((await api().delete(`${P}/domains/default`).set(admin())).status).toBe(400);
    const before = (await api().get('/v3/domain_usage').set(admin())).body.domain.R1.allocated.cores;
    await api().delete(`${P}/domains/dept-empty`).set(admin()).expect(204);
    const after = (await api().get('/v3/domain_usage').set(admin())).body.domain.R1.allocated.cores;
    expect(before - after).toBe(5);
    await api().get('/v3/domain_quotas/dept-empty').set(admin()).expect(404);
    const audit = await api().get('/v3/domain_quotas/dept-empty/audit').set(admin()).expect(200);
    expect(audit.body.audit[0]).toMatchObject({ item: 'cores', old: 5, new: 0, outcome: 'accepted' });
  });

  it('projects: register, list by department, refuse a move while allocated, delete releases the allocation', async () => {
    const made = await api()
      .put(`${P}/projects/p-r2`)
      .set(admin())
      .send({ project: { domain_id: 'dept-r', name: 'r2' } });
    expect(made.status).toBe(201);
    const list = await api().get(`${P}/projects?domain_id=dept-r`).set(admin()).expect(200);
    expect(list.body.projects.map((p: { id: string }) => p.id)).toEqual(['p-r1', 'p-r2']);
    const move = await api()
      .put(`${P}/projects/p-r1`)
      .set(admin())
      .send({ project: { domain_id: 'dept-new', name: 'r1' } });
    expect(move.status).toBe(409);
    expect(move.body.error.details).toEqual(expect.arrayContaining([{ region: 'R1', item: 'cores', reason: 'allocated' }]));
    expect((await c1('dept-r')).usage.cores).toBe(4);
    await api().delete(`${P}/projects/p-r1`).set(admin()).expect(204);
    expect((await c1('dept-r')).usage).toMatchObject({ cores: 0, volumes_ssd: 0 });
    await api().get(`${P}/projects/p-r1`).set(admin()).expect(404);
    // An empty project moves freely.
    await api()
      .put(`${P}/projects/p-r2`)
      .set(admin())
      .send({ project: { domain_id: 'dept-new', name: 'r2' } })
      .expect(200);
  });

  it('usage: PUT replaces a region’s actual use (a service user may report it); C3 shows it', async () => {
    const put = await api()
      .put(`${P}/usage/R1`)
      .set(tokenOf(stack, 'service'))
      .send({ usage: { collected_at: '2026-11-21T10:00:00Z', values: { cores: 12, ram: 0.5, networks: 3 } } });
    expect(put.status).toBe(200);
    expect(put.body.usage).toEqual({ collected_at: '2026-11-21T10:00:00.000Z', values: { cores: 12, ram: 0.5, network: 3 } });
    const cloud = (await api().get('/v3/domain_usage').set(admin())).body.domain.R1;
    expect(cloud.usage).toMatchObject({ cores: 12, ram: 0.5, network: 3 });
    expect(cloud.usage_collected_at).toBe('2026-11-21T10:00:00.000Z');
    const bad = await api()
      .put(`${P}/usage/R1`)
      .set(admin())
      .send({ usage: { values: { cores: -1, nope: 1, ram: 0.0001 } } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: { item: string }) => d.item).sort()).toEqual(['cores', 'nope', 'ram']);
    expect(
      (
        await api()
          .put(`${P}/usage/R7`)
          .set(admin())
          .send({ usage: { values: {} } })
      ).status,
    ).toBe(404);
    expect((await api().get(`${P}/usage`).set(admin())).body.usage.R1.values.cores).toBe(12);
  });

  it('only cloud admins read and change the registry (a service user may report usage only)', async () => {
    for (const who of ['memberA', 'deptAdmin', 'service'] as const) {
      expect((await api().get(`${P}/regions`).set(tokenOf(stack, who))).status).toBe(403);
      expect(
        (
          await api()
            .put(`${P}/domains/dept-x`)
            .set(tokenOf(stack, who))
            .send({ domain: { name: 'x' } })
        ).status,
      ).toBe(403);
    }
    expect(
      (
        await api()
          .put(`${P}/usage/R1`)
          .set(tokenOf(stack, 'memberA'))
          .send({ usage: { values: {} } })
      ).status,
    ).toBe(403);
    expect((await api().get(`${P}/regions`)).status).toBe(401);
  });
});
