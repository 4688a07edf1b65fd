/**
 * The departments page's "used" in Chromium: each department's actual use is its projects' reported
 * use summed by the registry (`GET /v3/domain_quota_registry/usage?domain_id=`), shown beside quota, allocated and free,
 * on the bar and in numbers. Every expected number is the API's own answer, fetched here; a department none of whose
 * projects reported shows "not reported"; a new report shows after a reload; a department admin sees their own
 * without naming it (the department their token is scoped to, `GET /console/auth/tokens`), and the header says who.
 */
import type { Locator } from 'playwright-core';
import { exactly, screenshot } from './browser';
import { type ConsoleSession, startSession } from './session';

jest.setTimeout(90_000);

const FINANCE = '47eaa0992cb6916d86dc283cf0480ff9';
const FINANCE_1 = '6f2c7a8c627bf3225fac9cb6e34acb11';
const R = '/v3/domain_quota_registry';
const KEY_ITEMS = ['cores', 'ram', 'instances'];

/** Waits until `loc`'s text matches (the page renders after its reads). */
async function waitForText(loc: Locator, re: RegExp): Promise<void> {
  await loc.filter({ hasText: re }).waitFor();
  expect(await loc.textContent()).toMatch(re);
}

describe('the departments page: used per department', () => {
  let s: ConsoleSession;
  beforeAll(async () => {
    s = await startSession();
  });
  afterAll(() => s?.close());

  /** A department's summed use in RegionOne, as the API answers it. */
  const usedR1 = async (domainId: string) =>
    (await s.api().get(`${R}/usage`).query({ domain_id: domainId }).set(s.as('admin')).expect(200)).body.usage.RegionOne as
      | { collected_at: string; values: Record<string, number>; projects_reported: number; projects: number }
      | undefined;

  it("shows Finance's used as the API sums it, on the bar and in numbers, for every item; with how many projects reported", async () => {
    const used = await usedR1(FINANCE);
    if (!used) throw new Error('the samples have no RegionOne reports for Finance');
    const c1 = (await s.api().get(`/v3/domain_quotas/${FINANCE}`).set(s.as('admin')).expect(200)).body.domain.RegionOne;
    const { page, errors } = await s.open();
    await s.signIn(page, '#/departments?region=RegionOne');
    const row = page.locator(`[data-testid="department-row"][data-domain-id="${FINANCE}"]`);
    for (const item of KEY_ITEMS) {
      await waitForText(row.getByTestId(`used-${item}`), exactly(used.values[item] as number));
      expect(await row.getByTestId(`allocated-${item}`).textContent()).toMatch(exactly(c1.usage[item]));
    }
    // Every item of the region, in the full table.
    for (const [item, value] of Object.entries(used.values)) {
      expect([item, await row.getByTestId(`used-all-${item}`).textContent()]).toEqual([item, expect.stringMatching(exactly(value))]);
    }
    // The bar says it in text (its accessible name), not in colour alone.
    const coresBar = row.locator('.key').filter({ hasText: 'cores' }).first().getByRole('img');
    const label = await coresBar.getAttribute('aria-label');
    expect(label).toContain(`used ${new Intl.NumberFormat('en-US').format(used.values.cores as number)}`);
    expect(label).toContain(`allocated ${new Intl.NumberFormat('en-US').format(c1.usage.cores)}`);
    await expect(row.getByTestId('projects-reported').textContent()).resolves.toBe(`${used.projects_reported} of ${used.projects}`);
    await expect(row.locator('[data-testid="used-status"] time').getAttribute('datetime')).resolves.toBe(used.collected_at);
    await screenshot(page, 'departments');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('shows "not reported" for a department none of whose projects reported', async () => {
    const id = `quiet${Date.now().toString(16)}`;
    await s.registerDepartment(id, 'Quiet');
    await s
      .api()
      .put(`${R}/projects/${id}-p`)
      .set(s.as('admin'))
      .send({ project: { domain_id: id, name: 'quiet-1' } })
      .expect(201);
    await s
      .api()
      .patch(`/v3/domain_quotas/${id}`)
      .set(s.as('admin'))
      .send({ domain: { region: 'RegionOne', cores: 10, ram: 1024, instances: 5 } })
      .expect(200);
    expect(await usedR1(id)).toBeUndefined();
    const { page, errors } = await s.open();
    await s.signIn(page, '#/departments?region=RegionOne');
    const row = page.locator(`[data-testid="department-row"][data-domain-id="${id}"]`);
    for (const item of KEY_ITEMS) await waitForText(row.getByTestId(`used-${item}`), /^\s*not reported\s*$/);
    await expect(row.getByTestId('used-status').textContent()).resolves.toContain('not reported');
    await expect(row.getByTestId('free-cores').textContent()).resolves.toMatch(exactly(10));
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it("a new project report changes Finance's used after a reload", async () => {
    const { page, errors } = await s.open();
    await s.signIn(page, '#/departments?region=RegionOne');
    const row = page.locator(`[data-testid="department-row"][data-domain-id="${FINANCE}"]`);
    const before = await usedR1(FINANCE);
    await waitForText(row.getByTestId('used-cores'), exactly(before?.values.cores as number));

    const mine = (await s.api().get(`${R}/projects/${FINANCE_1}/usage`).set(s.as('admin')).expect(200)).body.usage.RegionOne;
    const cores = (mine.values.cores as number) + 7;
    await s
      .api()
      .put(`${R}/projects/${FINANCE_1}/usage/RegionOne`)
      .set(s.as('service'))
      .send({ usage: { values: { ...mine.values, cores } } })
      .expect(200);
    const after = await usedR1(FINANCE);
    expect(after?.values.cores).toBe((before?.values.cores as number) + 7);
    await page.getByRole('button', { name: 'Reload' }).click();
    await waitForText(row.getByTestId('used-cores'), exactly(after?.values.cores as number));
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('a department admin sees their own department without naming it, its used the same way (no editor), and who they are', async () => {
    const id = s.stack.deptDomainId;
    await s.registerDepartment(id, 'Own');
    await s
      .api()
      .put(`${R}/projects/${id}-p`)
      .set(s.as('admin'))
      .send({ project: { domain_id: id, name: 'own-1' } })
      .expect(201);
    await s
      .api()
      .patch(`/v3/domain_quotas/${id}`)
      .set(s.as('admin'))
      .send({ domain: { region: 'RegionOne', cores: 20 } })
      .expect(200);
    await s
      .api()
      .put(`${R}/projects/${id}-p/usage/RegionOne`)
      .set(s.as('service'))
      .send({ usage: { values: { cores: 3 } } })
      .expect(201);
    const used = (await s.api().get(`${R}/usage`).query({ domain_id: id }).set(s.as('deptAdmin')).expect(200)).body.usage.RegionOne;

    const { page, errors } = await s.open();
    // The cloud's views are refused to this token; the department it is scoped to opens, nothing typed.
    await s.signIn(page, '#/departments?region=RegionOne', 'deptAdmin');
    const dept = s.stack.personas.deptAdmin;
    await expect(page.getByTestId('signed-in-as').textContent()).resolves.toBe(`Signed in as ${dept.userId}`);
    await expect(page.getByTestId('signed-in-scope').textContent()).resolves.toBe(`domain ${id} · admin`);
    const row = page.locator(`[data-testid="department-row"][data-domain-id="${id}"]`);
    await waitForText(row.getByTestId('used-cores'), exactly(used.values.cores));
    await expect(row.getByTestId('projects-reported').textContent()).resolves.toBe('1 of 1');
    await expect(page.getByTestId('department-row').count()).resolves.toBe(1);
    await expect(row.getByTestId('edit-department').count()).resolves.toBe(0);
    await expect(page.getByTestId('department-id-form').count()).resolves.toBe(0);
    expect(page.url()).toContain(`domain_id=${id}`);
    // A link naming another department still opens the token's own (the only one it may read).
    await page.goto(`${s.gateway.url}/console/#/departments?region=RegionOne&domain_id=${FINANCE}`);
    await page.reload();
    await waitForText(row.getByTestId('used-cores'), exactly(used.values.cores));
    await expect(page.getByTestId('department-row').count()).resolves.toBe(1);
    expect(page.url()).toContain(`domain_id=${id}`);
    await screenshot(page, 'departments-department-admin');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it("a project member's token names no department: the page asks for one, and another's is the API's refusal", async () => {
    const { page, errors } = await s.open();
    await s.signIn(page, '#/departments?region=RegionOne', 'memberA');
    const member = s.stack.personas.memberA;
    await expect(page.getByTestId('signed-in-as').textContent()).resolves.toBe(`Signed in as ${member.userId}`);
    await expect(page.getByTestId('signed-in-scope').textContent()).resolves.toBe(`project ${s.stack.projectA} · member, reader`);
    await page.getByTestId('department-id-input').fill(FINANCE);
    await page.getByTestId('department-id-input').press('Enter');
    await page.getByRole('alert').filter({ hasText: 'may not read' }).first().waitFor();
    await expect(page.getByTestId('department-row').count()).resolves.toBe(0);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it("the header names a cloud admin's user, project and roles", async () => {
    const { page, errors } = await s.open();
    await s.signIn(page, '#/departments?region=RegionOne');
    const admin = s.stack.personas.admin;
    await expect(page.getByTestId('signed-in-as').textContent()).resolves.toBe(`Signed in as ${admin.userId} (cloud admin)`);
    await expect(page.getByTestId('signed-in-scope').textContent()).resolves.toBe(`project ${admin.projectId} · admin, member, reader`);
    await page.getByTestId('cloud-summary').waitFor();
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
