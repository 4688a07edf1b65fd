/**
 * The registry's data survives restarts and loads, and its sums are always what the tree holds:
 * - the launcher's start-up data step (loadSamples) run again after API edits changes nothing;
 * - the sum check (endpoint and `pnpm registry check`) finds a corrupted sum, and repairs it on request (audited);
 * - `pnpm load --registry` refuses a registry that holds data, and its merge and replace keep every sum exact.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadRegistryFile, loadSamples } from '@stratum/deploy';
import { checkRegistrySums, RegistryNotEmptyError, RegistryRepository } from '@stratum/domain-quota';
import { ROOT } from '@stratum/store-runtime';
import { startTestStack, type TestStack, tokenOf } from '@stratum/testing';
import request from 'supertest';
import { stringify } from 'yaml';

jest.setTimeout(120_000);

const FINANCE = '47eaa0992cb6916d86dc283cf0480ff9';
const REG = '/v3/domain_quota_registry';
const milli = (v: number) => Math.round(v * 1000);

type Tree = Record<string, Record<string, { quotas: Record<string, number>; usage: Record<string, number> }>>;

describe('registry integrity: restarts, the sum check, loading', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(() => stack.close());

  const admin = () => tokenOf(stack, 'admin');
  const get = (path: string) => request(stack.gateway).get(path).set(admin());

  /** Everything the API shows of the registry and the tree. */
  async function snapshot() {
    const regions = (await get(`${REG}/regions`).expect(200)).body.regions;
    const domains = (await get(`${REG}/domains`).expect(200)).body.domains as { id: string }[];
    const projects = (await get(`${REG}/projects`).expect(200)).body.projects as { id: string; domain_id: string }[];
    const tree: Tree = {};
    for (const d of domains) tree[d.id] = (await get(`/v3/domain_quotas/${d.id}`).expect(200)).body.domain;
    const projectQuotas: Record<string, Record<string, Record<string, number>>> = {};
    for (const p of projects)
      projectQuotas[p.id] = (await get(`/v3/domain_quotas/${p.domain_id}/projects/${p.id}`).expect(200)).body.project;
    const cloud = (await get('/v3/domain_usage').expect(200)).body.domain;
    return { regions, domains, projects, tree, projectQuotas, cloud };
  }

  /** Every sum the API shows against what the tree holds: each department's usage and the cloud's allocated. */
  function expectSumsIntact(s: Awaited<ReturnType<typeof snapshot>>) {
    for (const region of Object.keys(s.cloud)) {
      for (const item of Object.keys(s.cloud[region].allocated)) {
        const finite = (v: number | undefined) => (v === undefined || v === -1 ? 0 : milli(v));
        const projectsOf = (domainId: string) =>
          s.projects.filter((p) => p.domain_id === domainId).reduce((n, p) => n + finite(s.projectQuotas[p.id]?.[region]?.[item]), 0);
        for (const d of s.domains) {
          if (d.id === 'default') continue;
          expect([d.id, region, item, milli(s.tree[d.id]?.[region]?.usage[item] ?? 0)]).toEqual([d.id, region, item, projectsOf(d.id)]);
        }
        const departments = s.domains
          .filter((d) => d.id !== 'default')
          .reduce((n, d) => n + finite(s.tree[d.id]?.[region]?.quotas[item]), 0);
        expect(['cloud', region, item, milli(s.cloud[region].allocated[item])]).toEqual([
          'cloud',
          region,
          item,
          departments + projectsOf('default'),
        ]);
      }
    }
  }

  it('a restart (the start-up data step run again) after PATCHes and registry edits changes no value and keeps every sum', async () => {
    const first = await loadSamples(stack.db, join(ROOT, 'deploy/samples'));
    expect(first.registry).not.toBeNull();
    expect(first.check.discrepancies).toEqual([]);
    // API edits: a sample department lowered, a new department and project with quotas, a region given a volume type.
    const patch = (id: string, domain: Record<string, unknown>) =>
      request(stack.gateway).patch(`/v3/domain_quotas/${id}`).set(admin()).send({ domain }).expect(200);
    await patch(FINANCE, { region: 'RegionOne', cores: 600, instances: 150 });
    const NEW = randomBytes(16).toString('hex');
    const NEW_PROJECT = randomBytes(16).toString('hex');
    await request(stack.gateway)
      .put(`${REG}/domains/${NEW}`)
      .set(admin())
      .send({ domain: { name: 'Created by API' } })
      .expect(201);
    await patch(NEW, { region: 'RegionOne', instances: 152, cores: 300 });
    await request(stack.gateway)
      .put(`${REG}/projects/${NEW_PROJECT}`)
      .set(admin())
      .send({ project: { domain_id: NEW, name: 'api-project' } })
      .expect(201);
    await request(stack.gateway)
      .patch(`/v3/domain_quotas/${NEW}/projects/${NEW_PROJECT}`)
      .set(admin())
      .send({ project: { region: 'RegionOne', instances: 12 } })
      .expect(200);
    const regionTwo = (await get(`${REG}/regions/RegionTwo`).expect(200)).body.region;
    await request(stack.gateway)
      .put(`${REG}/regions/RegionTwo`)
      .set(admin())
      .send({ region: { volume_types: [...regionTwo.volume_types, 'nvme'], products: regionTwo.products } })
      .expect(200);
    const before = await snapshot();
    expect(before.tree[FINANCE]?.RegionOne?.quotas.cores).toBe(600);
    expectSumsIntact(before);

    const again = await loadSamples(stack.db, join(ROOT, 'deploy/samples'));
    const after = await snapshot();
    expect(after).toEqual(before);
    expectSumsIntact(after);
    expect(again.registry).toBeNull();
    expect(again.events).toBeNull();
    expect(again.check.discrepancies).toEqual([]);
    // The cloud still counts the department made through the API: headroom is what the tree implies.
    const over = await request(stack.gateway)
      .patch(`/v3/domain_quotas/${NEW}`)
      .set(admin())
      .send({ domain: { region: 'RegionOne', instances: 152 + 2000 } });
    expect(over.status).toBe(409);
  });

  it('the check endpoint finds a corrupted sum (cloud admins only) and POST repairs it, audited; the CLI does the same', async () => {
    const key = 'RegionOne/default';
    const nodes = stack.db.collection<{ _id: string; allocated: Record<string, number> }>('dq_quotas');
    const cloudNode = await nodes.findOne({ _id: key });
    const instances = cloudNode?.allocated.instances as number;
    // A sum broken behind the service's back (as the old launcher's reload did), and a department's too.
    await nodes.updateOne({ _id: key }, { $inc: { 'allocated.instances': 7000 } });
    await nodes.updateOne({ _id: `RegionOne/${FINANCE}` }, { $inc: { 'allocated.cores': -3000 } });

    await request(stack.gateway).get(`${REG}/check`).set(tokenOf(stack, 'memberA')).expect(403);
    const found = await get(`${REG}/check`).expect(200);
    expect(found.body.check.ok).toBe(false);
    expect(found.body.check.discrepancies).toEqual(
      expect.arrayContaining([
        {
          region: 'RegionOne',
          domain_id: 'default',
          item: 'instances',
          field: 'allocated',
          stored: (instances + 7000) / 1000,
          expected: instances / 1000,
          repaired: false,
        },
        expect.objectContaining({ region: 'RegionOne', domain_id: FINANCE, item: 'cores', field: 'allocated', repaired: false }),
      ]),
    );
    expect(found.body.check.discrepancies).toHaveLength(2);
    await request(stack.gateway).post(`${REG}/check`).set(tokenOf(stack, 'deptAdmin')).expect(403);

    const repaired = await request(stack.gateway).post(`${REG}/check`).set(admin()).expect(200);
    expect(repaired.body.check.ok).toBe(true);
    expect(repaired.body.check.discrepancies.map((d: { repaired: boolean }) => d.repaired)).toEqual([true, true]);
    expect((await get(`${REG}/check`).expect(200)).body.check).toMatchObject({ ok: true, discrepancies: [], busy: [] });
    expect((await nodes.findOne({ _id: key }))?.allocated.instances).toBe(instances);
    const audit = (await get('/v3/domain_quotas/default/audit?limit=20').expect(200)).body.audit as { reason?: string; item: string }[];
    expect(audit).toEqual(expect.arrayContaining([expect.objectContaining({ reason: 'repaired_allocated', item: 'instances' })]));

    // The CLI: exit 1 and each discrepancy printed; --repair fixes and exits 0.
    await nodes.updateOne({ _id: key }, { $inc: { 'allocated.cores': 1000 } });
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'services/domain-quota/src/cli.ts'), ...args], {
        cwd: ROOT,
        env: { ...process.env, MONGODB_URI: process.env.STRATUM_TEST_MONGODB_URI, MONGODB_DATABASE: stack.db.databaseName },
        encoding: 'utf8',
      });
    const check = cli('check');
    expect(check.status).toBe(1);
    expect(check.stdout).toMatch(/cloud \(default\) in RegionOne: allocated cores is [\d.]+, its children hold [\d.]+/);
    const repair = cli('check', '--repair');
    expect(repair.stdout).toMatch(/\(repaired\)/);
    expect(repair.status).toBe(0);
    const clean = cli('check');
    expect(clean.stdout).toMatch(/every sum intact/);
    expect(clean.status).toBe(0);
    expect(cli('check', '--bogus').status).toBe(2);
  });

  it('the check beside a burst of department and project PATCHes reports nothing (no edit in flight looks like corruption)', async () => {
    await loadSamples(stack.db, join(ROOT, 'deploy/samples')); // the samples, unless an earlier test loaded them
    const reports: { discrepancies: unknown[]; busy: string[] }[] = [];
    let running = true;
    const checker = (async () => {
      while (running) {
        const res = await request(stack.gateway).post(`${REG}/check`).set(admin());
        expect(res.status).toBe(200);
        reports.push(res.body.check);
      }
    })();
    const departments = (await get(`${REG}/domains`).expect(200)).body.domains
      .map((d: { id: string }) => d.id)
      .filter((d: string) => d !== 'default');
    const projects = (await get(`${REG}/projects`).expect(200)).body.projects as { id: string; domain_id: string }[];
    const edits = Array.from({ length: 120 }, (_, i) => {
      if (i % 3 === 0) {
        const p = projects[i % projects.length] as { id: string; domain_id: string };
        return request(stack.gateway)
          .patch(`/v3/domain_quotas/${p.domain_id}/projects/${p.id}`)
          .set(admin())
          .send({ project: { region: 'RegionTwo', instances: i % 4 } });
      }
      return request(stack.gateway)
        .patch(`/v3/domain_quotas/${departments[i % departments.length]}`)
        .set(admin())
        .send({ domain: { region: 'RegionTwo', instances: 40 + (i % 7), cores: 50 + (i % 5) } });
    });
    const statuses = (await Promise.all(edits)).map((r) => r.status);
    running = false;
    await checker;
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    expect(reports.length).toBeGreaterThan(0);
    expect(reports.flatMap((r) => r.discrepancies)).toEqual([]);
    expect((await get(`${REG}/check`).expect(200)).body.check).toMatchObject({ ok: true, discrepancies: [], busy: [] });
    expectSumsIntact(await snapshot());
  });

  it('load --registry refuses a registry with data; --merge and --replace keep every sum exact', async () => {
    const db = stack.db.client.db(`${stack.db.databaseName}_load`);
    const repo = new RegistryRepository(db);
    const file = (departments: { id: string; cores: number }[], projects: { id: string; domain_id: string; cores: number }[]) =>
      stringify({
        regions: [{ name: 'R1', volume_types: [], products: [] }],
        departments: [
          { id: 'default', name: 'Cloud', quotas: { R1: { cores: 1000 } } },
          ...departments.map((d) => ({ id: d.id, name: d.id, quotas: { R1: { cores: d.cores } } })),
        ],
        projects: projects.map((p) => ({ id: p.id, name: p.id, domain_id: p.domain_id, quotas: { R1: { cores: p.cores } } })),
      });
    const allocated = async (owner: string) => (await repo.tree.readQuotaSet('R1', owner)).state.allocated.cores ?? 0;
    const quota = async (owner: string) => (await repo.tree.readQuotaSet('R1', owner)).state.quotas.cores ?? 0;

    await loadRegistryFile(
      db,
      file(
        [
          { id: 'a', cores: 100 },
          { id: 'b', cores: 200 },
        ],
        [{ id: 'pa', domain_id: 'a', cores: 40 }],
      ),
    );
    expect(await allocated('default')).toBe(300_000);
    // Loaded again: refused, nothing written.
    await expect(loadRegistryFile(db, file([{ id: 'a', cores: 999 }], []))).rejects.toBeInstanceOf(RegistryNotEmptyError);
    expect(await quota('a')).toBe(100_000);
    // The CLI says so and exits non-zero.
    const path = join(mkdtempSync(join(tmpdir(), 'stratum-load-')), 'registry.yaml');
    writeFileSync(path, file([{ id: 'a', cores: 999 }], []));
    const cli = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'deploy/src/load.ts'), '--registry', path], {
      cwd: ROOT,
      env: { ...process.env, MONGODB_URI: process.env.STRATUM_TEST_MONGODB_URI, MONGODB_DATABASE: db.databaseName },
      encoding: 'utf8',
    });
    expect(cli.status).toBe(1);
    expect(cli.stderr).toMatch(/not empty.*--merge or --replace/);
    expect(await quota('a')).toBe(100_000);

    // Merge: `a` changed, `c` added with a project, `b` and `pa` kept; sums over the whole tree.
    await loadRegistryFile(
      db,
      file(
        [
          { id: 'a', cores: 150 },
          { id: 'c', cores: 50 },
        ],
        [{ id: 'pc', domain_id: 'c', cores: 20 }],
      ),
      'merge',
    );
    expect([await quota('a'), await quota('b'), await quota('c')]).toEqual([150_000, 200_000, 50_000]);
    expect(await allocated('default')).toBe(400_000);
    expect([await allocated('a'), await allocated('c')]).toEqual([40_000, 20_000]);
    expect((await checkRegistrySums(db, false)).discrepancies).toEqual([]);

    // Replace: the registry becomes the file; what it does not name is gone or emptied, sums follow.
    await loadRegistryFile(db, file([{ id: 'b', cores: 10 }], [{ id: 'pb', domain_id: 'b', cores: 5 }]), 'replace');
    expect((await repo.listDepartments()).map((d) => d._id)).toEqual(['b', 'default']);
    expect((await repo.listProjects()).map((p) => p._id)).toEqual(['pb']);
    expect([await quota('a'), await quota('b'), await quota('c')]).toEqual([0, 10_000, 0]);
    expect(await allocated('default')).toBe(10_000);
    expect([await allocated('a'), await allocated('b'), await allocated('c')]).toEqual([0, 5_000, 0]);
    expect((await checkRegistrySums(db, false)).discrepancies).toEqual([]);
    await db.dropDatabase();
  });
});
