import { loadRegistryFile } from '@stratum/deploy';
import { startTestStack, type TestStack, tokenOf } from '@stratum/testing';
import request from 'supertest';
import { stringify } from 'yaml';

describe('group C: ETag and If-Match, dry runs, the audit log, project allocations', () => {
  let stack: TestStack;
  const D = 'dept-e';
  beforeAll(async () => {
    stack = await startTestStack();
    await loadRegistryFile(
      stack.db,
      stringify({
        regions: [{ name: 'R1', volume_types: ['ssd'], products: [] }],
        departments: [
          { id: 'default', name: 'Cloud', quotas: { R1: { cores: 100 } } },
          { id: D, name: 'E', quotas: { R1: { cores: 20 } } },
          { id: stack.deptDomainId, name: 'Own', quotas: {} },
        ],
        projects: [{ id: 'p-e1', name: 'e1', domain_id: D, quotas: { R1: { cores: 4 } } }],
      }),
    );
  });
  afterAll(() => stack.close());

  const admin = () => tokenOf(stack, 'admin');
  const patch = (domain: Record<string, unknown>, query = '') =>
    request(stack.gateway).patch(`/v3/domain_quotas/${D}${query}`).set(admin()).send({ domain });

  it('GET gives an ETag; PATCH with a stale If-Match is a 412 and writes nothing; with the current one it applies', async () => {
    const first = await request(stack.gateway).get(`/v3/domain_quotas/${D}`).set(admin()).expect(200);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    const ok = await patch({ region: 'R1', cores: 21 }).set('If-Match', etag);
    expect(ok.status).toBe(200);
    expect(ok.headers.etag).not.toBe(etag);
    const stale = await patch({ region: 'R1', cores: 22 }).set('If-Match', etag);
    expect(stale.status).toBe(412);
    expect(stale.body.error).toMatchObject({ code: 412, title: 'Precondition Failed' });
    expect((await request(stack.gateway).get(`/v3/domain_quotas/${D}`).set(admin())).body.domain.R1.quotas.cores).toBe(21);
    await patch({ region: 'R1', cores: 22 })
      .set('If-Match', ok.headers.etag as string)
      .expect(200);
  });

  it('dry_run=true validates (same 409s) and answers the would-be view without writing', async () => {
    const dry = await patch({ region: 'R1', cores: 30 }, '?dry_run=true');
    expect(dry.status).toBe(200);
    expect(dry.body.domain.R1.quotas.cores).toBe(30);
    expect((await request(stack.gateway).get(`/v3/domain_quotas/${D}`).set(admin())).body.domain.R1.quotas.cores).toBe(22);
    expect((await patch({ region: 'R1', cores: 1000 }, '?dry_run=true')).status).toBe(409);
    expect((await patch({ region: 'R1', cores: 1 }, '?dry_run=true')).status).toBe(409); // below the project's 4
    expect((await patch({ region: 'R1', cores: 1 }, '?dry_run=maybe')).status).toBe(400);
    expect((await patch({ region: 'R1', cores: 1 }, '?dry_run=true&dry_run=false')).status).toBe(400);
    // oslo.utils' bool_from_string spellings are a dry run too.
    for (const v of ['1', 'True', 'yes']) expect((await patch({ region: 'R1', cores: 31 }, `?dry_run=${v}`)).status).toBe(200);
    expect((await request(stack.gateway).get(`/v3/domain_quotas/${D}`).set(admin())).body.domain.R1.quotas.cores).toBe(22);
  });

  it('the audit log records accepted and refused changes (who, request id, region, item, old, new, outcome), for cloud admins only', async () => {
    const requestId = `req-${crypto.randomUUID()}`;
    await patch({ region: 'R1', cores: 23, gigabytes_ssd: 10.5 }).set('X-Openstack-Request-Id', requestId).expect(200);
    await patch({ region: 'R1', cores: 5000 }).expect(409);
    const res = await request(stack.gateway).get(`/v3/domain_quotas/${D}/audit?limit=10`).set(admin());
    expect(res.status).toBe(200);
    const entries = res.body.audit as Record<string, unknown>[];
    expect(entries[0]).toMatchObject({
      outcome: 'refused',
      item: 'cores',
      new: 5000,
      old: 23,
      reason: 'exceeds_limit',
      status: 409,
      region: 'R1',
    });
    const accepted = entries.filter((e) => e.request_id === requestId);
    expect(accepted.map((e) => [e.item, e.old, e.new, e.outcome]).sort()).toEqual([
      ['cores', 22, 23, 'accepted'],
      ['gigabytes_ssd', 0, 10.5, 'accepted'],
    ]);
    expect(accepted[0]?.user_id).toBe(stack.personas.admin.userId);
    expect(
      (await request(stack.gateway).get(`/v3/domain_quotas/${D}/audit`).set('X-Auth-Token', stack.personas.deptAdmin.token)).status,
    ).toBe(403);
    const page2 = await request(stack.gateway).get(`/v3/domain_quotas/${D}/audit?limit=1&marker=${entries[0]?._id}`).set(admin());
    expect(page2.body.audit[0]._id).toBe(entries[1]?._id);
  });

  it('project allocations: read and set under the department; unknown or foreign projects are 404', async () => {
    const res = await request(stack.gateway)
      .patch(`/v3/domain_quotas/${D}/projects/p-e1`)
      .set(admin())
      .send({ project: { region: 'R1', cores: 6 } });
    expect(res.status).toBe(200);
    expect(res.body.project.R1.cores).toBe(6);
    expect((await request(stack.gateway).get(`/v3/domain_quotas/${D}`).set(admin())).body.domain.R1.usage.cores).toBe(6);
    const over = await request(stack.gateway)
      .patch(`/v3/domain_quotas/${D}/projects/p-e1`)
      .set(admin())
      .send({ project: { region: 'R1', cores: 24 } });
    expect(over.status).toBe(409);
    expect(over.body.error.details[0]).toMatchObject({ item: 'cores', max: 23, reason: 'exceeds_limit' });
    expect((await request(stack.gateway).get(`/v3/domain_quotas/${stack.deptDomainId}/projects/p-e1`).set(admin())).status).toBe(404);
    expect((await request(stack.gateway).get(`/v3/domain_quotas/${D}/projects/nope`).set(admin())).status).toBe(404);
  });
});
