import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestStack } from '@stratum/testing';
import type { Page } from 'playwright-core';
import { exactly, ROOT, screenshot } from './browser';
import { type ConsoleSession, startSession } from './session';

jest.setTimeout(60_000);

const FINANCE = '47eaa0992cb6916d86dc283cf0480ff9';

/** A number as the console shows it ("1,024", "12 cores", "51.2 GiB") read back; NaN for "unlimited". */
const shown = (text: string | null) => (text?.includes('unlimited') ? Number.NaN : Number((text ?? '').replace(/[^0-9.-]/g, '')));

describe('the operator console in Chromium', () => {
  let s: ConsoleSession;
  let stack: TestStack;
  let gateway: ConsoleSession['gateway'];
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    s = await startSession();
    ({ stack, gateway } = s);
  });
  afterAll(() => s?.close());
  beforeEach(async () => {
    ({ page, errors } = await s.open());
  });
  afterEach(async () => {
    await page.context().close();
  });

  const admin = () => s.as('admin');
  const api = () => s.api();

  /** Opens the console at `hash` and signs in with the admin's static token, as a new user would. */
  const signIn = (hash = '') => s.signIn(page, hash);

  it('is served by the gateway without a token, and shows the sign-in form', async () => {
    const res = await fetch(`${gateway.url}/console/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    await page.goto(`${gateway.url}/console/`);
    await page.getByTestId('token-input').waitFor();
    await expect(page.getByTestId('sign-in').isVisible()).resolves.toBe(true);
    await screenshot(page, 'sign-in');
    expect(errors).toEqual([]);
  });

  it('signs in with the static token, which never appears in the URL, and signs out', async () => {
    await signIn();
    expect(page.url()).not.toContain(stack.personas.admin.token);
    await page.getByTestId('sign-out').click();
    await page.getByTestId('token-input').waitFor();
    expect(errors).toEqual([]);
  });

  it("shows RegionOne's departments with the free cores the API gives", async () => {
    await signIn('#/departments?region=RegionOne');
    const domains = (await api().get('/v3/domain_quota_registry/domains').set(admin()).expect(200)).body.domains as { id: string }[];
    const departments = domains.filter((d) => d.id !== 'default');
    expect(departments.length).toBeGreaterThan(1);
    await page.getByTestId('cloud-summary').waitFor();
    for (const d of departments) {
      const r1 = (await api().get(`/v3/domain_quotas/${d.id}`).set(admin()).expect(200)).body.domain.RegionOne;
      const free = r1.quotas.cores === -1 ? Number.NaN : r1.quotas.cores - r1.usage.cores;
      const cell = page.locator(`[data-testid="department-row"][data-domain-id="${d.id}"] [data-testid="free-cores"]`);
      await cell.waitFor();
      expect([d.id, shown(await cell.textContent())]).toEqual([d.id, free]);
    }
    await expect(page.getByTestId('department-row').count()).resolves.toBe(departments.length);
    expect(errors).toEqual([]);
  });

  it("takes a new user from the bare URL to a department's free cores in RegionTwo and RegionOne in a few steps, keyboard sign-in included", async () => {
    const coresFree = async (region: string) => {
      const r = (await api().get(`/v3/domain_quotas/${FINANCE}`).set(admin()).expect(200)).body.domain[region];
      return r.quotas.cores - r.usage.cores;
    };
    await page.goto(`${gateway.url}/console/`);
    await page.getByTestId('token-input').fill(stack.personas.admin.token);
    await page.getByTestId('token-input').press('Enter');
    await page.getByTestId('nav-departments').click();
    const free = page.locator(`[data-testid="department-row"][data-domain-id="${FINANCE}"] [data-testid="free-cores"]`);
    await page.getByTestId('region-select').selectOption('RegionTwo');
    await free.filter({ hasText: exactly(await coresFree('RegionTwo')) }).waitFor();
    expect(page.url()).toContain('region=RegionTwo');
    await page.getByTestId('region-select').selectOption('RegionOne');
    await free.filter({ hasText: exactly(await coresFree('RegionOne')) }).waitFor();
    expect(errors).toEqual([]);
  });

  it('shows a project member what the API refuses it, not the departments: the console can do no more than the token', async () => {
    await api().get('/v3/domain_usage').set(s.as('memberA')).expect(403);
    await page.goto(`${gateway.url}/console/#/departments?region=RegionOne`);
    await page.getByTestId('token-input').fill(stack.personas.memberA.token);
    await page.getByTestId('sign-in').click();
    await page.getByRole('alert').filter({ hasText: 'may not read' }).first().waitFor();
    await expect(page.getByTestId('department-row').count()).resolves.toBe(0);
    expect(errors).toEqual([]);
  });

  /** Finance's RegionOne view as the API gives it (quotas, usage = allocated to projects, limits). */
  const financeR1 = async () =>
    (await api().get(`/v3/domain_quotas/${FINANCE}`).set(admin()).expect(200)).body.domain.RegionOne as Record<
      'quotas' | 'usage' | 'limits',
      { cores: number }
    >;

  it("edits a department's cores: the dry run writes nothing, Apply saves, and the row shows the new free cores", async () => {
    const before = await financeR1();
    const cores = before.quotas.cores + 10;
    expect(cores).toBeLessThanOrEqual(before.limits.cores);
    await signIn('#/departments?region=RegionOne');
    const row = page.locator(`[data-testid="department-row"][data-domain-id="${FINANCE}"]`);
    await row.getByTestId('edit-department').click();
    await row.getByTestId('edit-item-cores').fill(String(cores));
    await expect(row.getByTestId('apply').isDisabled()).resolves.toBe(true); // a dry run comes first
    await row.getByTestId('dry-run').click();
    await row.getByRole('status').filter({ hasText: 'Dry run accepted' }).waitFor();
    expect((await financeR1()).quotas.cores).toBe(before.quotas.cores);
    await screenshot(row, 'department-edit');
    await row.getByTestId('apply').click();
    await row
      .getByTestId('free-cores')
      .filter({ hasText: exactly(cores - before.usage.cores) })
      .waitFor();
    expect((await financeR1()).quotas.cores).toBe(cores);
    expect(errors).toEqual([]);
  });

  it('shows the refusal per item as the API gives it when a department asks for more than the cloud has free', async () => {
    const { limits } = await financeR1();
    const body = { domain: { region: 'RegionOne', cores: limits.cores + 1 } };
    const answer = await api().patch(`/v3/domain_quotas/${FINANCE}?dry_run=true`).set(admin()).send(body).expect(409);
    const detail = answer.body.error.details[0] as { item: string; reason: string; max: number };
    expect(detail).toMatchObject({ item: 'cores', reason: 'exceeds_limit', max: limits.cores });
    await signIn('#/departments?region=RegionOne');
    const row = page.locator(`[data-testid="department-row"][data-domain-id="${FINANCE}"]`);
    await row.getByTestId('edit-department').click();
    await row.getByTestId('edit-item-cores').fill(String(limits.cores + 1));
    await row.getByTestId('dry-run').click();
    const refusal = row.getByTestId('refusal');
    await refusal.waitFor();
    await expect(refusal.count()).resolves.toBe(1);
    await expect(refusal.getAttribute('data-item')).resolves.toBe(detail.item);
    await expect(refusal.getAttribute('data-reason')).resolves.toBe(detail.reason);
    // The reason in words with the API's maximum ("at most 2,330 cores").
    expect(shown((await refusal.textContent())?.match(/at most ([\d,.]+)/)?.[1] ?? '')).toBe(detail.max);
    await expect(row.getByTestId('apply').isDisabled()).resolves.toBe(true);
    await screenshot(row, 'department-refusal');
    expect((await financeR1()).limits.cores).toBe(limits.cores);
  });

  it('refuses an Apply with 412 when another admin changed the department after the page read it: nothing overwritten', async () => {
    const before = (await api().get(`/v3/domain_quotas/${FINANCE}`).set(admin()).expect(200)).body.domain.RegionOne.quotas as {
      instances: number;
    };
    await signIn('#/departments?region=RegionOne');
    const row = page.locator(`[data-testid="department-row"][data-domain-id="${FINANCE}"]`);
    await row.getByTestId('edit-department').click();
    await row.getByTestId('edit-item-instances').fill(String(before.instances + 5));
    await row.getByTestId('dry-run').click();
    await row.getByRole('status').filter({ hasText: 'Dry run accepted' }).waitFor();
    // The other admin, meanwhile.
    await api()
      .patch(`/v3/domain_quotas/${FINANCE}`)
      .set(admin())
      .send({ domain: { region: 'RegionOne', instances: before.instances + 1 } })
      .expect(200);
    await row.getByTestId('apply').click();
    await row.getByRole('alert').filter({ hasText: '412' }).waitFor();
    await row.getByTestId('reload-after-conflict').waitFor();
    const after = (await api().get(`/v3/domain_quotas/${FINANCE}`).set(admin()).expect(200)).body.domain.RegionOne.quotas;
    expect(after.instances).toBe(before.instances + 1);
  });

  it("opens a department's audit trail in one click, with the API's entries", async () => {
    await api()
      .patch(`/v3/domain_quotas/${FINANCE}`)
      .set(admin())
      .send({ domain: { region: 'RegionOne', backups: 101 } })
      .expect(200);
    const audit = (await api().get(`/v3/domain_quotas/${FINANCE}/audit?limit=1`).set(admin()).expect(200)).body.audit as {
      item: string;
      region: string;
    }[];
    expect(audit[0]).toMatchObject({ item: 'backups', region: 'RegionOne' });
    await signIn('#/departments?region=RegionOne');
    await page.locator(`[data-testid="department-row"][data-domain-id="${FINANCE}"]`).getByTestId('audit-link').click();
    const newest = page.getByTestId('audit-row').first();
    await newest.waitFor();
    expect(page.url()).toContain(`#/audit?domain_id=${FINANCE}`);
    await expect(newest.textContent()).resolves.toContain('backups');
    expect(errors).toEqual([]);
  });

  it("finds a department's free cores on a narrow screen without scrolling sideways", async () => {
    await page.context().close();
    ({ page, errors } = await s.open({ width: 390, height: 844 }));
    await signIn('#/departments?region=RegionOne');
    const free = page.locator(`[data-testid="department-row"][data-domain-id="${FINANCE}"] [data-testid="free-cores"]`);
    await free.waitFor();
    await expect(free.isVisible()).resolves.toBe(true);
    await expect(page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).resolves.toBe(true);
    expect(errors).toEqual([]);
  });

  const rowIds = async () => page.getByTestId('lbaas-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-project-id')));

  it('pages the load balancer quotas as the API does, finds a project by id, sets a limit and resets it after confirmation', async () => {
    const projects = Array.from({ length: 5 }, () => randomBytes(16).toString('hex'));
    for (const [i, p] of projects.entries()) {
      await api()
        .put(`/v2.0/lbaas/quotas/${p}`)
        .set(admin())
        .send({ quota: { load_balancer: 10 + i } })
        .expect(202);
    }
    // One project's usage as a load balancer service reports it (the list shows in use / limit).
    await api()
      .put(`/v2.0/lbaas/quotas/${projects[0]}/usage`)
      .set(admin())
      .send({ in_use: { load_balancer: 3 } })
      .expect(200);
    const first = await s.lbaasPage('limit=2');
    expect(first.ids).toHaveLength(2);
    expect(first.next).toBeDefined();
    const second = await s.lbaasPage(`limit=2&marker=${first.next}`);

    await signIn('#/lbaas?limit=2');
    await page.getByTestId('lbaas-defaults').waitFor();
    await page.locator(`[data-testid="lbaas-row"][data-project-id="${first.ids[1]}"]`).waitFor();
    expect(await rowIds()).toEqual(first.ids);
    await page.getByTestId('lbaas-search').fill(projects[0] as string);
    await page.getByTestId('lbaas-search-submit').click();
    await page
      .locator(`[data-testid="lbaas-row"][data-project-id="${projects[0]}"] [data-resource="load_balancer"]`)
      .filter({ hasText: /^\s*3 \/ 10\s*$/ })
      .waitFor();
    await page.goto(`${gateway.url}/console/#/lbaas?limit=2`); // back to the first page, by its link
    await page.locator(`[data-testid="lbaas-row"][data-project-id="${first.ids[1]}"]`).waitFor();
    await page.getByTestId('lbaas-next').click();
    await page.locator(`[data-testid="lbaas-row"][data-project-id="${second.ids[0]}"]`).waitFor();
    expect(await rowIds()).toEqual(second.ids);
    expect(page.url()).toContain(`marker=${first.next}`); // the page is in the URL, to share
    await page.getByTestId('lbaas-prev').click();
    await page.locator(`[data-testid="lbaas-row"][data-project-id="${first.ids[0]}"]`).waitFor();
    expect(await rowIds()).toEqual(first.ids);

    // Search, set, reset.
    const target = projects[3] as string;
    await page.getByTestId('lbaas-search').fill(target);
    await page.getByTestId('lbaas-search-submit').click();
    const detail = page.locator(`[data-testid="lbaas-detail"][data-project-id="${target}"]`);
    await detail.waitFor();
    await page.locator(`[data-testid="lbaas-row"][data-project-id="${target}"]`).getByTestId('lbaas-edit').click();
    await page.getByTestId('lbaas-limit-load_balancer').fill('42');
    await page.getByTestId('lbaas-save').click();
    await page.getByTestId('lbaas-confirm').waitFor();
    const stored = async () => (await api().get(`/v2.0/lbaas/quotas/${target}`).set(admin()).expect(200)).body.quota.load_balancer;
    expect(await stored()).toBe(13); // nothing sent before the confirmation
    await screenshot(detail, 'lbaas-confirm');
    await page.getByTestId('confirm').click();
    await page.getByTestId('lbaas-message').filter({ hasText: 'Saved' }).waitFor();
    expect(await stored()).toBe(42);
    await page.getByTestId('lbaas-reset').click();
    await page.getByTestId('confirm').click();
    await page.getByTestId('lbaas-message').filter({ hasText: 'Reset' }).waitFor();
    const defaults = (await api().get('/v2.0/lbaas/quotas/defaults').set(admin()).expect(200)).body.quota.load_balancer;
    expect(await stored()).toBe(defaults);
    expect(errors).toEqual([]);
  });

  it("finds an instance's events from create to delete, as the API lists them, with each event's traits expandable", async () => {
    // An instance of the sample notifications: the one created (and later deleted) in the capture.
    const created = readFileSync(join(ROOT, 'deploy/samples/notifications.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(JSON.parse(l)['oslo.message']))
      .find((m) => m.event_type === 'compute.instance.create.end');
    const instance = created.payload.instance_id as string;
    const q = `q.field=resource_id&q.op=eq&q.value=${instance}&q.field=all_tenants&q.op=eq&q.value=true&sort=generated:asc&limit=1000`;
    const expected = (
      (await api().get(`/v2/events?${q}`).set(admin()).expect(200)).body as { message_id: string; event_type: string }[]
    ).map((e) => [e.message_id, e.event_type]);
    expect(expected.map(([, t]) => t)).toEqual(expect.arrayContaining(['compute.instance.create.end', 'compute.instance.delete.end']));

    await signIn('#/events');
    await page.getByTestId('events-resource').fill(instance);
    await page.getByTestId('events-search').click();
    const timeline = page.getByTestId('event-timeline');
    await timeline.getByTestId('event-row').first().waitFor();
    const rows = await timeline
      .getByTestId('event-row')
      .evaluateAll((els) => els.map((e) => [e.getAttribute('data-message-id'), e.getAttribute('data-event-type')]));
    expect(rows).toEqual(expected);
    expect(page.url()).toContain(`resource_id=${instance}`); // a link that can be shared
    expect(page.url()).not.toContain(stack.personas.admin.token);

    const first = timeline.getByTestId('event-row').first();
    await first.getByTestId('event-traits').click();
    await first.getByTestId('event-traits-table').filter({ hasText: instance }).waitFor();

    // The shared link opens the same timeline in a fresh page (signed in there).
    const shared = page.url().slice(page.url().indexOf('#'));
    await page.context().close();
    ({ page, errors } = await s.open());
    await signIn(shared);
    await page
      .getByTestId('event-timeline')
      .getByTestId('event-row')
      .nth(expected.length - 1)
      .waitFor();
    await expect(page.getByTestId('event-row').count()).resolves.toBe(expected.length);
    expect(errors).toEqual([]);
  });
});
