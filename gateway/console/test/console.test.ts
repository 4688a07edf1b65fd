/**
 * The operator console in a real browser (Debian's Chromium driven by playwright-core) against the real stack with the
 * sample registry and events loaded: sign in with the static token, the departments of RegionOne with the numbers
 * the API gives, a department edit dry-run then applied, a refusal, the load balancer quotas paged, an instance's
 * events. Every expected number is the API's own answer, fetched here. Screenshots of each page: browser.ts.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadSamples } from '@stratum/deploy';
import { listenGateway, startTestStack, type TestStack, tokenOf } from '@stratum/testing';
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { launchBrowser, newPage, pageErrors, ROOT, screenshot } from './browser';

jest.setTimeout(60_000);

const FINANCE = '47eaa0992cb6916d86dc283cf0480ff9';

/** A number as the console shows it ("1,024", "12 cores", "51.2 GiB") read back; NaN for "unlimited". */
const shown = (text: string | null) => (text?.includes('unlimited') ? Number.NaN : Number((text ?? '').replace(/[^0-9.-]/g, '')));
/** Exactly `n` as a number cell shows it (en-US separators), for a locator to wait on. */
const exactly = (n: number) => new RegExp(`^\\s*${new Intl.NumberFormat('en-US', { maximumFractionDigits: 3 }).format(n)}\\s*$`);

describe('the operator console in Chromium', () => {
  let stack: TestStack;
  let gateway: { url: string; close(): Promise<void> };
  let browser: Browser;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    if (!existsSync(join(ROOT, 'gateway/console/dist/index.html'))) {
      throw new Error('gateway/console/dist is missing: build it first (sh gateway/console/build.sh; npm test does)');
    }
    [stack, browser] = await Promise.all([startTestStack(), launchBrowser()]);
    await loadSamples(stack.db, join(ROOT, 'deploy/samples'));
    gateway = await listenGateway(stack);
  });
  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
    await stack?.close();
  });
  beforeEach(async () => {
    ({ page } = await newPage(browser));
    errors = pageErrors(page);
  });
  afterEach(async () => {
    await page.context().close();
  });

  const admin = () => tokenOf(stack, 'admin');
  const api = () => request(stack.gateway);

  /** Opens the console at `hash` and signs in with the admin's static token, as a new user would. */
  async function signIn(hash = '') {
    await page.goto(`${gateway.url}/console/${hash}`);
    await page.getByTestId('token-input').fill(stack.personas.admin.token);
    await page.getByTestId('sign-in').click();
    await page.getByTestId('signed-in-as').waitFor();
  }

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
    await screenshot(page, 'departments');
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
    await screenshot(page, 'department-edit');
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
    await screenshot(page, 'department-refusal');
    expect((await financeR1()).limits.cores).toBe(limits.cores);
  });
});
