/**
 * Per-project actual usage in the registry and a department's summed use (docs/api/domain-quota.md "Registry"),
 * through the gateway: reports are checked like the region reports, a department's use is its projects' reports
 * summed when read (oldest time, how many reported), its admin reads their own, and a deleted project's reports go.
 */
import { loadRegistryFile } from '@stratum/deploy';
import { startTestStack, type TestStack, tokenOf } from '@stratum/testing';
import request from 'supertest';
import { stringify } from 'yaml';

const P = '/v3/domain_quota_registry';

describe('group C: per-project actual usage and department sums', () => {
  let stack: TestStack;
  let dept: string;
  beforeAll(async () => {
    stack = await startTestStack();
    dept = stack.deptDomainId;
    await loadRegistryFile(
      stack.db,
      stringify({
        regions: [
          { name: 'R1', volume_types: ['ssd'], products: ['secure_container'] },
          { name: 'R2', volume_types: [], products: [] },
        ],
        departments: [
          { id: 'default', name: 'Cloud', quotas: { R1: { cores: 100, ram: 100000 } } },
          { id: dept, name: 'Dept', quotas: { R1: { cores: 20, ram: 10000 } } },
          { id: 'dept-other', name: 'Other', quotas: { R1: { cores: 5 } } },
          { id: 'dept-quiet', name: 'Quiet', quotas: {} },
        ],
        projects: [
          { id: 'p-1', name: 'one', domain_id: dept, quotas: { R1: { cores: 8, ram: 4096 } } },
          { id: 'p-2', name: 'two', domain_id: dept, quotas: { R1: { cores: 8, ram: 4096 } } },
          { id: 'p-3', name: 'three', domain_id: dept },
          { id: 'p-other', name: 'other', domain_id: 'dept-other' },
          { id: 'p-quiet', name: 'quiet', domain_id: 'dept-quiet' },
        ],
        project_usage: { 'p-other': { R1: { collected_at: '2026-11-20T08:00:00Z', values: { cores: 2 } } } },
      }),
    );
  });
  afterAll(() => stack.close());

  const admin = () => tokenOf(stack, 'admin');
  const api = () => request(stack.gateway);
  const report = (project: string, region: string, values: Record<string, unknown>, collectedAt?: string) =>
    api()
      .put(`${P}/projects/${project}/usage/${region}`)
      .set(admin())
      .send({ usage: { ...(collectedAt ? { collected_at: collectedAt } : {}), values } });
  const deptUsage = async (domainId: string, who = admin()) => api().get(`${P}/usage`).query({ domain_id: domainId }).set(who);

  it('PUT creates (201) then replaces (200); GET shows every item of the region, in its units', async () => {
    const made = await report('p-1', 'R1', { cores: 3, ram: 1024.5, networks: 2 }, '2026-11-20T08:00:00+01:00');
    expect(made.status).toBe(201);
    expect(made.body.usage).toEqual({ collected_at: '2026-11-20T07:00:00.000Z', values: { cores: 3, ram: 1024.5, network: 2 } });
    const again = await report('p-1', 'R1', { cores: 4, ram: 1024.5 }, '2026-11-20T07:30:00Z');
    expect(again.status).toBe(200);
    const got = await api().get(`${P}/projects/p-1/usage`).set(admin()).expect(200);
    expect(Object.keys(got.body.usage)).toEqual(['R1']);
    expect(got.body.usage.R1.collected_at).toBe('2026-11-20T07:30:00.000Z');
    expect(got.body.usage.R1.values).toMatchObject({ cores: 4, ram: 1024.5, network: 0, volumes_ssd: 0, cpu: 0 });
  });

  it("a department's use is its projects' reports summed exactly, with the oldest time and how many reported", async () => {
    await report('p-1', 'R1', { cores: 4, ram: 0.1 }, '2026-11-20T07:30:00Z').expect(200);
    await report('p-2', 'R1', { cores: 5, ram: 0.2, gigabytes_ssd: 1.5 }, '2026-11-20T09:00:00Z').expect(201);
    await report('p-2', 'R2', { instances: 1 }, '2026-11-20T10:00:00Z').expect(201);
    const res = await deptUsage(dept);
    expect(res.status).toBe(200);
    expect(res.body.usage.R1).toMatchObject({ collected_at: '2026-11-20T07:30:00.000Z', projects_reported: 2, projects: 3 });
    expect(res.body.usage.R1.values).toMatchObject({ cores: 9, ram: 0.3, gigabytes_ssd: 1.5, instances: 0 });
    expect(res.body.usage.R2).toEqual({
      collected_at: '2026-11-20T10:00:00.000Z',
      values: expect.objectContaining({ instances: 1, cores: 0 }),
      projects_reported: 1,
      projects: 3,
    });
    // Another department's reports are not in the sum; without domain_id it is still the cloud's region reports.
    const other = (await deptUsage('dept-other')).body.usage;
    expect(other.R1).toMatchObject({ projects_reported: 1, projects: 1, values: expect.objectContaining({ cores: 2 }) });
    const cloud = await api().get(`${P}/usage`).set(admin()).expect(200);
    expect(cloud.body.usage.R1).not.toHaveProperty('projects_reported');
  });

  it('a department where no project reported has no region in its use', async () => {
    const res = await deptUsage('dept-quiet');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ usage: {} });
  });

  it('404 for an unknown project, region or department (Keystone shape)', async () => {
    const p = await report('p-nope', 'R1', { cores: 1 });
    expect(p.status).toBe(404);
    expect(p.body.error).toMatchObject({ code: 404, title: 'Not Found', message: 'Could not find project: p-nope.' });
    const r = await report('p-1', 'R9', { cores: 1 });
    expect(r.status).toBe(404);
    expect(r.body.error.message).toBe('Could not find region: R9.');
    expect((await api().get(`${P}/projects/p-nope/usage`).set(admin())).status).toBe(404);
    const d = await deptUsage('dept-nope');
    expect(d.status).toBe(404);
    expect(d.body.error).toMatchObject({ code: 404, message: 'Could not find domain: dept-nope.' });
  });

  it('400 for unknown items (prototype names too), bad values and malformed bodies, nothing stored', async () => {
    const raw = (json: string) => api().put(`${P}/projects/p-3/usage/R1`).set(admin()).set('Content-Type', 'application/json').send(json);
    for (const name of ['__proto__', 'constructor', 'toString', 'volumes_sata']) {
      const res = await raw(`{"usage": {"values": {"cores": 1, "${name}": 1}}}`);
      expect([name, res.status]).toEqual([name, 400]);
      expect(res.body.error.details).toEqual([{ region: 'R1', item: name, reason: 'unknown_item' }]);
    }
    const values = await report('p-3', 'R1', { cores: 1.5, ram: -1, gigabytes_ssd: 0.0001 });
    expect(values.status).toBe(400);
    expect(values.body.error.details.map((d: { item: string; reason: string }) => [d.item, d.reason])).toEqual([
      ['cores', 'too_many_decimals'],
      ['ram', 'out_of_range'],
      ['gigabytes_ssd', 'too_many_decimals'],
    ]);
    for (const body of ['{"usage": ', '{"usage": {"values": {"cores": "1"}}}', '{"usage": {"values": {}, "x": 1}}', '[]']) {
      const res = await raw(body);
      expect([body, res.status, res.body.error?.code]).toEqual([body, 400, 400]);
    }
    const time = await report('p-3', 'R1', { cores: 1 }, 'yesterday');
    expect(time.status).toBe(400);
    expect((await api().get(`${P}/usage`).query('domain_id=a&domain_id=b').set(admin())).status).toBe(400);
    expect((await api().get(`${P}/projects/p-3/usage`).set(admin()).expect(200)).body).toEqual({ usage: {} });
  });

  it('policy: a service user reports; a project member may not; a department admin reads their own use only', async () => {
    const asService = await api()
      .put(`${P}/projects/p-3/usage/R1`)
      .set(tokenOf(stack, 'service'))
      .send({ usage: { values: { cores: 1 } } });
    expect(asService.status).toBe(201);
    const asMember = await api()
      .put(`${P}/projects/p-3/usage/R1`)
      .set(tokenOf(stack, 'memberA'))
      .send({ usage: { values: { cores: 1 } } });
    expect(asMember.status).toBe(403);
    expect(asMember.body.error).toMatchObject({ code: 403, title: 'Forbidden' });
    expect((await api().get(`${P}/projects/p-3/usage`).set(tokenOf(stack, 'memberA'))).status).toBe(403);
    expect((await deptUsage(dept, tokenOf(stack, 'memberA'))).status).toBe(403);

    const own = await deptUsage(dept, tokenOf(stack, 'deptAdmin'));
    expect(own.status).toBe(200);
    expect(own.body.usage.R1).toMatchObject({ projects_reported: 3, projects: 3 });
    expect((await deptUsage('dept-other', tokenOf(stack, 'deptAdmin'))).status).toBe(403);
    // Refused before the department is looked up: another department's existence is not disclosed.
    expect((await deptUsage('dept-nope', tokenOf(stack, 'deptAdmin'))).status).toBe(403);
    // The cloud's region reports and a project's reports stay the cloud admin's.
    expect((await api().get(`${P}/usage`).set(tokenOf(stack, 'deptAdmin'))).status).toBe(403);
    expect((await api().get(`${P}/projects/p-1/usage`).set(tokenOf(stack, 'deptAdmin'))).status).toBe(403);
  });

  it("deleting a project deletes its reports: gone from the department's sum, and not back when it is registered again", async () => {
    await api()
      .put(`${P}/projects/p-gone`)
      .set(admin())
      .send({ project: { domain_id: 'dept-quiet', name: 'gone' } })
      .expect(201);
    await report('p-gone', 'R1', { cores: 7 }).expect(201);
    expect((await deptUsage('dept-quiet')).body.usage.R1).toMatchObject({ projects_reported: 1, projects: 2 });
    await api().delete(`${P}/projects/p-gone`).set(admin()).expect(204);
    expect((await deptUsage('dept-quiet')).body).toEqual({ usage: {} });
    await api()
      .put(`${P}/projects/p-gone`)
      .set(admin())
      .send({ project: { domain_id: 'dept-quiet', name: 'gone' } })
      .expect(201);
    expect((await api().get(`${P}/projects/p-gone/usage`).set(admin()).expect(200)).body).toEqual({ usage: {} });
  });

  it('a project that moves department takes its reports to the new one', async () => {
    await api()
      .put(`${P}/projects/p-move`)
      .set(admin())
      .send({ project: { domain_id: 'dept-other', name: 'move' } })
      .expect(201);
    await report('p-move', 'R2', { instances: 2 }).expect(201);
    expect((await deptUsage('dept-other')).body.usage.R2.values.instances).toBe(2);
    await api()
      .put(`${P}/projects/p-move`)
      .set(admin())
      .send({ project: { domain_id: 'dept-quiet', name: 'move' } })
      .expect(200);
    expect((await deptUsage('dept-other')).body.usage).not.toHaveProperty('R2');
    expect((await deptUsage('dept-quiet')).body.usage.R2).toMatchObject({
      projects_reported: 1,
      values: expect.objectContaining({ instances: 2 }),
    });
  });

  it('the bootstrap file: project_usage is merged (times without an offset are UTC), refused for an unknown project or -1', async () => {
    const base = {
      regions: [{ name: 'R1', volume_types: ['ssd'], products: ['secure_container'] }],
      departments: [{ id: 'default', name: 'Cloud' }],
      projects: [],
    };
    await loadRegistryFile(
      stack.db,
      stringify({ ...base, project_usage: { 'p-2': { R1: { collected_at: '2026-11-20T06:00:00.000000', values: { cores: 1 } } } } }),
      'merge',
    );
    const p2 = (await api().get(`${P}/projects/p-2/usage`).set(admin()).expect(200)).body.usage.R1;
    expect(p2).toMatchObject({ collected_at: '2026-11-20T06:00:00.000Z', values: expect.objectContaining({ cores: 1, ram: 0 }) });
    await expect(
      loadRegistryFile(
        stack.db,
        stringify({ ...base, project_usage: { 'p-nope': { R1: { collected_at: '2026-11-20T06:00:00Z', values: {} } } } }),
        'merge',
      ),
    ).rejects.toThrow('project_usage: unknown project p-nope');
    await expect(
      loadRegistryFile(
        stack.db,
        stringify({ ...base, project_usage: { 'p-2': { R1: { collected_at: '2026-11-20T06:00:00Z', values: { ram: -1 } } } } }),
        'merge',
      ),
    ).rejects.toThrow('-1 is not a usage');
  });

  it('other methods are 405', async () => {
    expect((await api().post(`${P}/projects/p-1/usage`).set(admin())).status).toBe(405);
    expect((await api().get(`${P}/projects/p-1/usage/R1`).set(admin())).status).toBe(405);
  });
});
