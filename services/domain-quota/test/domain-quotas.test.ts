import { loadRegistryFile } from '@stratum/deploy';
import { startTestStack, type TestStack, tokenOf } from '@stratum/testing';
import request from 'supertest';
import { stringify } from 'yaml';

const FINANCE = '47eaa0992cb6916d86dc283cf0480ff9';
const RESEARCH = '50b298e65ee118ce09bfdcfe2d36a8f8';

type PerRegion = Record<string, Record<string, number>>;

/** A department (or the cloud, id `default`) with its quotas per region, in the items' units. */
const buildDepartment = (id: string, name: string, quotas: PerRegion) => ({ id, name, quotas });

/** A project of `domainId` with its allocations per region. */
const buildProject = (id: string, domainId: string, quotas: PerRegion) => ({ id, name: id, domain_id: domainId, quotas });

/**
 * The registry of these tests: RegionOne offers the ceph_hdd volume type and the secure container product,
 * RegionTwo neither (and leaves load balancers unlimited); Finance has handed part of its quota to two projects, the
 * cloud to one project of its own; `deptDomainId` is the department of the department admin persona.
 */
function buildRegistry(deptDomainId: string) {
  return {
    regions: [
      { name: 'RegionOne', volume_types: ['ssd', 'ceph_hdd'], products: ['secure_container'] },
      { name: 'RegionTwo', volume_types: ['ssd'], products: [] },
    ],
    departments: [
      buildDepartment('default', 'Cloud', {
        RegionOne: {
          instances: 2000,
          cores: 4096,
          ram: 4194304,
          network: 1000,
          security_group_rule: 20000,
          gigabytes_ssd: 200000,
          cpu: 512,
        },
        RegionTwo: { instances: 2000, cores: 4096, loadbalancer: -1 },
      }),
      buildDepartment(FINANCE, 'Finance', { RegionOne: { instances: 200, cores: 614, ram: 209715.2 }, RegionTwo: { cores: 100 } }),
      buildDepartment(RESEARCH, 'Research', {
        RegionOne: { instances: 100, cores: 500, network: 50, security_group_rule: 1000, gigabytes_ssd: 5000 },
      }),
      buildDepartment(deptDomainId, 'Test department', { RegionOne: { cores: 10 } }),
    ],
    projects: [
      buildProject('finance-web', FINANCE, { RegionOne: { instances: 50, cores: 100 } }),
      buildProject('finance-db', FINANCE, { RegionOne: { instances: 30, cores: 60 } }),
      buildProject('cloud-ops', 'default', { RegionOne: { instances: 5, cores: 16 } }),
    ],
    usage: { RegionOne: { collected_at: '2026-01-01T00:00:00Z', values: { instances: 321, cores: 1000 } } },
  };
}

describe('group C: department and cloud quotas through the gateway', () => {
  let stack: TestStack;
  let registry: ReturnType<typeof buildRegistry>;
  /** A department's quotas per region as the registry gave them. */
  const quotasOf = (id: string) => registry.departments.find((d) => d.id === id)?.quotas as PerRegion;

  beforeAll(async () => {
    stack = await startTestStack();
    registry = buildRegistry(stack.deptDomainId);
    await loadRegistryFile(stack.db, stringify(registry));
  });
  afterAll(() => stack.close());

  const as = (who: keyof TestStack['personas']) => tokenOf(stack, who);
  /** A PATCH by the cloud admin that must succeed. */
  const patchOk = (domainId: string, domain: Record<string, unknown>) =>
    request(stack.gateway).patch(`/v3/domain_quotas/${domainId}`).set(as('admin')).send({ domain }).expect(200);
  const sumProjects = (domainId: string, region: string, item: string) =>
    registry.projects.filter((p) => p.domain_id === domainId).reduce((s, p) => s + (p.quotas[region]?.[item] ?? 0), 0);

  it('C1 returns usage (allocated to projects), quotas and limits per region; container items only where installed', async () => {
    const res = await request(stack.gateway).get(`/v3/domain_quotas/${FINANCE}`).set(as('admin'));
    expect(res.status).toBe(200);
    const one = res.body.domain.RegionOne;
    const two = res.body.domain.RegionTwo;
    expect(one.quotas.cores).toBe(quotasOf(FINANCE).RegionOne?.cores);
    expect(one.quotas.ram).toBe(quotasOf(FINANCE).RegionOne?.ram);
    expect(one.usage.instances).toBe(sumProjects(FINANCE, 'RegionOne', 'instances'));
    expect(one.quotas).toHaveProperty('volumes_ceph_hdd');
    expect(one.quotas).toHaveProperty('cpu');
    expect(two.quotas).not.toHaveProperty('cpu');
    expect(two.quotas).not.toHaveProperty('volumes_ceph_hdd');
    // limits = cloud quota − Σ department quotas + own quota
    const deptSum = registry.departments.filter((d) => d.id !== 'default').reduce((s, d) => s + (d.quotas.RegionOne?.cores ?? 0), 0);
    const cloudCores = quotasOf('default').RegionOne?.cores as number;
    // The cloud's allocation also holds the `default` domain's own projects.
    expect(one.limits.cores).toBe(cloudCores - deptSum - sumProjects('default', 'RegionOne', 'cores') + one.quotas.cores);
    expect(two.limits.loadbalancer).toBe(-1);
  });

  it('C2 changes the named items (both spellings accepted) and answers the C1 shape after the edit', async () => {
    const res = await request(stack.gateway)
      .patch(`/v3/domain_quotas/${RESEARCH}`)
      .set(as('admin'))
      .send({ domain: { region: 'RegionOne', networks: 90, security_group_rule: 2100, gigabytes_ssd: 10000.5 } });
    expect(res.status).toBe(200);
    expect(res.body.domain.RegionOne.quotas).toMatchObject({ network: 90, security_group_rule: 2100, gigabytes_ssd: 10000.5 });
    const after = await request(stack.gateway).get(`/v3/domain_quotas/${RESEARCH}`).set(as('admin'));
    expect(after.body.domain.RegionOne.quotas.network).toBe(90);
  });

  it('C2 above limits is a 409 with max, and nothing is written', async () => {
    const before = await request(stack.gateway).get(`/v3/domain_quotas/${RESEARCH}`).set(as('admin'));
    const max = before.body.domain.RegionOne.limits.cores;
    const res = await request(stack.gateway)
      .patch(`/v3/domain_quotas/${RESEARCH}`)
      .set(as('admin'))
      .send({ domain: { region: 'RegionOne', cores: max + 1, instances: 1 } });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 409, title: 'Conflict' });
    expect(res.body.error.details).toEqual(
      expect.arrayContaining([expect.objectContaining({ item: 'cores', max, reason: 'exceeds_limit' })]),
    );
    const after = await request(stack.gateway).get(`/v3/domain_quotas/${RESEARCH}`).set(as('admin'));
    expect(after.body.domain.RegionOne.quotas).toEqual(before.body.domain.RegionOne.quotas);
  });

  it('C2 at exactly limits succeeds, then the cloud has nothing left for another department', async () => {
    const before = await request(stack.gateway).get(`/v3/domain_quotas/${stack.deptDomainId}`).set(as('admin'));
    const max = before.body.domain.RegionOne.limits.cores;
    const ok = await request(stack.gateway)
      .patch(`/v3/domain_quotas/${stack.deptDomainId}`)
      .set(as('admin'))
      .send({ domain: { region: 'RegionOne', cores: max } });
    expect(ok.status).toBe(200);
    const finance = await request(stack.gateway).get(`/v3/domain_quotas/${FINANCE}`).set(as('admin'));
    expect(finance.body.domain.RegionOne.limits.cores).toBe(finance.body.domain.RegionOne.quotas.cores);
    await patchOk(stack.deptDomainId, { region: 'RegionOne', cores: 10 });
  });

  it('C2 below what projects hold is a 409 with min', async () => {
    const held = sumProjects(FINANCE, 'RegionOne', 'instances');
    const res = await request(stack.gateway)
      .patch(`/v3/domain_quotas/${FINANCE}`)
      .set(as('admin'))
      .send({ domain: { region: 'RegionOne', instances: held - 1 } });
    expect(res.status).toBe(409);
    expect(res.body.error.details[0]).toMatchObject({ item: 'instances', min: held, reason: 'below_allocated' });
  });

  it.each([
    [{ domain: { region: 'Nowhere', cores: 1 } }, 'unknown_region'],
    [{ domain: { region: 'RegionTwo', cpu: 1 } }, 'item_unavailable'],
    [{ domain: { region: 'RegionOne', volumes_nope: 1 } }, 'unknown_volume_type'],
    [{ domain: { region: 'RegionOne', colour: 1 } }, 'unknown_item'],
    [{ domain: { region: 'RegionOne', cores: 1.5 } }, 'too_many_decimals'],
    [{ domain: { region: 'RegionOne', cores: '10' } }, 'not_a_number'],
    [{ domain: { region: 'RegionOne', cores: -2 } }, 'out_of_range'],
  ])('C2 %j is a 400 naming the problem (%s)', async (body, reason) => {
    const res = await request(stack.gateway).patch(`/v3/domain_quotas/${RESEARCH}`).set(as('admin')).send(body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(400);
    expect(res.body.error.details[0].reason).toBe(reason);
  });

  it('C2 with a malformed body shape is a 400', async () => {
    for (const body of [{}, { domain: { cores: 1 } }, { domain: { region: 'RegionOne' } }, { domain: 1 }, { other: {} }]) {
      const res = await request(stack.gateway).patch(`/v3/domain_quotas/${RESEARCH}`).set(as('admin')).send(body);
      expect(res.status).toBe(400);
    }
  });

  it('C1/C2 of an unknown department is a 404', async () => {
    const res = await request(stack.gateway).get('/v3/domain_quotas/nope').set(as('admin'));
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { code: 404, title: 'Not Found', message: 'Could not find domain: nope.' } });
    expect(
      (
        await request(stack.gateway)
          .patch('/v3/domain_quotas/nope')
          .set(as('admin'))
          .send({ domain: { region: 'RegionOne', cores: 1 } })
      ).status,
    ).toBe(404);
  });

  it('policy: a department admin reads its own department only and edits nothing; members get 403', async () => {
    expect((await request(stack.gateway).get(`/v3/domain_quotas/${stack.deptDomainId}`).set(as('deptAdmin'))).status).toBe(200);
    expect((await request(stack.gateway).get(`/v3/domain_quotas/${FINANCE}`).set(as('deptAdmin'))).status).toBe(403);
    const patch = await request(stack.gateway)
      .patch(`/v3/domain_quotas/${stack.deptDomainId}`)
      .set(as('deptAdmin'))
      .send({ domain: { region: 'RegionOne', cores: 1 } });
    expect(patch.status).toBe(403);
    expect((await request(stack.gateway).get('/v3/domain_usage').set(as('memberA'))).status).toBe(403);
  });

  it('C3 returns quotas, allocated, limits, usage and quota_fake (= quotas) with a Deprecation header', async () => {
    const res = await request(stack.gateway).get('/v3/domain_usage').set(as('admin'));
    expect(res.status).toBe(200);
    expect(res.headers.deprecation).toBeDefined();
    const one = res.body.domain.RegionOne;
    expect(one.quotas.cores).toBe(quotasOf('default').RegionOne?.cores);
    expect(one.quota_fake).toEqual(one.quotas);
    expect(one.usage.instances).toBe(registry.usage.RegionOne.values.instances);
    expect(one.limits.cores).toBe(-1);
    const finance = await request(stack.gateway).get(`/v3/domain_quotas/${FINANCE}`).set(as('admin'));
    expect(one.allocated.cores).toBe(
      one.quotas.cores - finance.body.domain.RegionOne.limits.cores + finance.body.domain.RegionOne.quotas.cores,
    );
  });

  it('sums fractional values exactly (0.1 + 0.2 = 0.3)', async () => {
    const dept = stack.deptDomainId;
    await patchOk(dept, { region: 'RegionOne', cpu: 0.1 });
    const before = (await request(stack.gateway).get('/v3/domain_usage').set(as('admin'))).body.domain.RegionOne.allocated.cpu;
    await patchOk(dept, { region: 'RegionOne', cpu: 0.3 });
    const after = (await request(stack.gateway).get('/v3/domain_usage').set(as('admin'))).body.domain.RegionOne.allocated.cpu;
    expect(Math.round((after - before) * 1000)).toBe(200);
    expect(String(after)).not.toMatch(/0000|9999/);
  });
});
