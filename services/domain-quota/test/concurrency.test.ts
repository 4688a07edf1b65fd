import { loadRegistryFile } from '@stratum/deploy';
import { startTestStack, type TestStack } from '@stratum/testing';
import request from 'supertest';
import { stringify } from 'yaml';

/**
 * docs/upstream/domain-quota.md §6.5 step 8, through the gateway: concurrent edits never leave the departments summing
 * above a finite cloud quota, nor projects above their department, and the denormalised sums stay exact.
 */
describe('group C: concurrent edits (no transactions)', () => {
  let stack: TestStack;
  const A = 'dept-a';
  const B = 'dept-b';
  beforeAll(async () => {
    stack = await startTestStack();
    await loadRegistryFile(
      stack.db,
      stringify({
        regions: [{ name: 'R1', volume_types: [], products: [] }],
        departments: [
          { id: 'default', name: 'Cloud', quotas: { R1: { cores: 100, instances: -1 } } },
          { id: A, name: 'A', quotas: { R1: { cores: 0, instances: 50 } } },
          { id: B, name: 'B', quotas: { R1: { cores: 0 } } },
        ],
        projects: [
          { id: 'p-a1', name: 'a1', domain_id: A, quotas: { R1: { instances: 5 } } },
          { id: 'p-a2', name: 'a2', domain_id: A, quotas: {} },
        ],
      }),
    );
  });
  afterAll(() => stack.close());

  const token = () => stack.personas.admin.token;
  const patch = (domainId: string, domain: Record<string, unknown>) =>
    request(stack.gateway).patch(`/v3/domain_quotas/${domainId}`).set('X-Auth-Token', token()).send({ domain });
  const get = async (domainId: string) =>
    (await request(stack.gateway).get(`/v3/domain_quotas/${domainId}`).set('X-Auth-Token', token()).expect(200)).body.domain.R1;
  const cloud = async () => (await request(stack.gateway).get('/v3/domain_usage').set('X-Auth-Token', token()).expect(200)).body.domain.R1;

  it('50 concurrent PATCHes on two departments under a finite cloud quota never over-allocate it', async () => {
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => patch(i % 2 === 0 ? A : B, { region: 'R1', cores: 10 + ((i * 7) % 51) })),
    );
    for (const r of results) expect([200, 409]).toContain(r.status);
    expect(results.some((r) => r.status === 200)).toBe(true);
    const [a, b, c] = [await get(A), await get(B), await cloud()];
    expect(a.quotas.cores + b.quotas.cores).toBeLessThanOrEqual(100);
    // The cloud's denormalised allocation is exactly the departments' sum (no leaked reservation).
    expect(c.allocated.cores).toBe(a.quotas.cores + b.quotas.cores);
    // Every accepted value was, at its time, within what the cloud had left.
    for (const r of results.filter((x) => x.status === 200)) expect(r.body.domain.R1.quotas.cores).toBeLessThanOrEqual(100);
  });

  it('project allocations racing a department decrease never leave the projects above their department', async () => {
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        i % 2 === 0
          ? patch(A, { region: 'R1', instances: 5 + ((i * 3) % 40) })
          : request(stack.gateway)
              .patch(`/v3/domain_quotas/${A}/projects/p-a2`)
              .set('X-Auth-Token', token())
              .send({ project: { region: 'R1', instances: (i * 5) % 45 } }),
      ),
    );
    for (const r of results) expect([200, 409]).toContain(r.status);
    const a = await get(A);
    const p1 = (await request(stack.gateway).get(`/v3/domain_quotas/${A}/projects/p-a1`).set('X-Auth-Token', token())).body.project.R1;
    const p2 = (await request(stack.gateway).get(`/v3/domain_quotas/${A}/projects/p-a2`).set('X-Auth-Token', token())).body.project.R1;
    expect(p1.instances + p2.instances).toBeLessThanOrEqual(a.quotas.instances);
    expect(a.usage.instances).toBe(p1.instances + p2.instances);
  });

  it('a department cannot become unlimited under a finite cloud; the cloud cannot become finite under an unlimited department', async () => {
    const r1 = await patch(A, { region: 'R1', cores: -1 });
    expect(r1.status).toBe(409);
    expect(r1.body.error.details[0]).toMatchObject({ item: 'cores', reason: 'unlimited_under_finite_parent' });
    // instances: the cloud is unlimited, so a department may be; then the cloud may not become finite.
    await patch(B, { region: 'R1', instances: -1 }).expect(200);
    const r2 = await patch('default', { region: 'R1', instances: 1000 });
    expect(r2.status).toBe(409);
    expect(r2.body.error.details[0]).toMatchObject({ item: 'instances', reason: 'unlimited_children', departments: [B] });
    await patch(B, { region: 'R1', instances: 0 }).expect(200);
    await patch('default', { region: 'R1', instances: 1000 }).expect(200);
  });

  it('the cloud cannot go below what departments hold', async () => {
    const c = await cloud();
    const r = await patch('default', { region: 'R1', cores: c.allocated.cores - 1 });
    expect(r.status).toBe(409);
    expect(r.body.error.details[0]).toMatchObject({ item: 'cores', min: c.allocated.cores, reason: 'below_allocated' });
  });
});
