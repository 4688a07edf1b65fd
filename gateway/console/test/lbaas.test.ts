/**
 * The load balancer quotas page in Chromium against the real stack (docs/api/lbaas-quota.md), with a finite default
 * for load balancers so that a reset can be refused: a project's limits set behind a confirmation; a reset refused
 * with 409 (usage above the default), then forced behind its own confirmation, cancelled (nothing changes) and
 * confirmed (the defaults); the confirmation driven by keyboard only (focus on it when it opens, Escape and Cancel
 * close it and give focus back); the list paged forward and back and searched by project id, page by page as the API
 * pages it; on a narrow screen (390 px) the list as labelled cards that need no sideways scroll. Every expected value
 * is the API's answer; the projects are this file's own (PUT with random ids).
 */
import { randomBytes } from 'node:crypto';
import { LBAAS_DISPLAY_NAME, LBAAS_RESOURCES } from '@stratum/quota-items';
import type { Page } from 'playwright-core';
import { screenshot } from './browser';
import { type ConsoleSession, startSession } from './session';

jest.setTimeout(90_000);

const newProject = () => randomBytes(16).toString('hex');

/** The test id of the focused element, through open shadow roots. */
const focusedId = (page: Page) =>
  page.evaluate(`(() => {
    let el = document.activeElement;
    while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
    return el ? el.getAttribute('data-testid') : null;
  })()`) as Promise<string | null>;

/** As much of a DOM element as focusOn reads (the tests compile without the DOM library). */
interface FocusLike {
  shadowRoot: { activeElement: FocusLike | null } | null;
  getAttribute(name: string): string | null;
}

/** Waits until the focused element (through open shadow roots) is the one with this test id. */
const focusOn = (page: Page, id: string) =>
  page.waitForFunction((want) => {
    let el = (globalThis as unknown as { document: { activeElement: FocusLike | null } }).document.activeElement;
    while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
    return el?.getAttribute('data-testid') === want;
  }, id);

describe('the load balancer quotas page', () => {
  let s: ConsoleSession;

  beforeAll(async () => {
    s = await startSession({ lbaasEnv: { DEFAULT_LOAD_BALANCER_QUOTA: '4' } });
  });
  afterAll(() => s?.close());

  /** A project's effective limits (B3) and its list record (B1 by project_id: stored limits and in_use). */
  const quota = async (p: string) =>
    (await s.api().get(`/v2.0/lbaas/quotas/${p}`).set(s.as('admin')).expect(200)).body.quota as Record<string, number>;
  const defaults = async () =>
    (await s.api().get('/v2.0/lbaas/quotas/defaults').set(s.as('admin')).expect(200)).body.quota as Record<string, number>;
  const put = (p: string, q: Record<string, number>) =>
    s.api().put(`/v2.0/lbaas/quotas/${p}`).set(s.as('admin')).send({ quota: q }).expect(202);

  /** The effective limit the detail shows for a resource, once it reads `text`. */
  const detailLimit = (page: Page, r: string) =>
    page.locator(`[data-testid="lbaas-detail"] tr[data-resource="${r}"] [data-testid="lbaas-limit"]`);

  it("sets a project's limits only after confirmation; a refused reset is forced behind its own confirmation, cancel changing nothing", async () => {
    const p = newProject();
    await put(p, { load_balancer: 10 });
    const dflt = await defaults();
    expect(dflt.load_balancer).toBe(4);
    const { page, errors } = await s.open();
    await s.signIn(page, `#/lbaas?project_id=${p}`);
    await page.locator(`[data-testid="lbaas-row"][data-project-id="${p}"]`).getByTestId('lbaas-edit').click();
    await page.getByTestId('lbaas-limit-load_balancer').fill('12');
    await page.getByTestId('lbaas-limit-listener').fill('30');
    await page.getByTestId('lbaas-save').click();
    const confirm = page.getByTestId('lbaas-confirm');
    await confirm.filter({ hasText: 'Listener: 30' }).waitFor();
    expect(await quota(p)).toMatchObject({ load_balancer: 10, listener: -1 }); // nothing sent before the confirmation
    await page.getByTestId('confirm').click();
    await page.getByTestId('lbaas-message').filter({ hasText: 'Saved' }).waitFor();
    await focusOn(page, 'lbaas-start-edit'); // the form has gone: focus on what replaced it
    const saved = await quota(p);
    expect(saved).toMatchObject({ load_balancer: 12, listener: 30 });
    await detailLimit(page, 'load_balancer')
      .filter({ hasText: /^\s*12\s*$/ })
      .waitFor();

    // Usage above the default (4): a plain reset is refused (409), and the page offers to force it.
    await s
      .api()
      .put(`/v2.0/lbaas/quotas/${p}/usage`)
      .set(s.as('admin'))
      .send({ in_use: { load_balancer: 6 } })
      .expect(200);
    const refusal = await s.api().delete(`/v2.0/lbaas/quotas/${p}`).set(s.as('admin')).expect(409);
    await page.getByTestId('lbaas-reset').click();
    await page.getByTestId('confirm').click();
    const message = refusal.body.faultstring as string;
    expect(message).toMatch(/cannot be reset/);
    await page.getByTestId('lbaas-error').filter({ hasText: message }).waitFor();
    // The detail shows the usage that made the API refuse (reported behind the page's back), as the API lists it.
    const record = (await s.api().get(`/v2.0/lbaas/quotas?project_id=${p}`).set(s.as('admin')).expect(200)).body.quotas[0];
    expect(record.in_use_load_balancer).toBe(6);
    await page
      .locator(`[data-testid="lbaas-detail"] tr[data-resource="load_balancer"] [data-testid="lbaas-in-use"]`)
      .filter({ hasText: new RegExp(`^\\s*${record.in_use_load_balancer}\\s*$`) })
      .waitFor();
    await page.getByTestId('lbaas-force-reset').click();
    await confirm.filter({ hasText: 'even though usage is above a default' }).waitFor();
    await screenshot(page.getByTestId('lbaas-detail'), 'lbaas-force-reset');

    // Cancel: the dialog goes, nothing changes.
    await page.getByTestId('confirm-cancel').click();
    await confirm.waitFor({ state: 'detached' });
    expect(await quota(p)).toEqual(saved);

    // Confirm: the defaults, as the API gives them.
    await page.getByTestId('lbaas-force-reset').click();
    await page.getByTestId('confirm').click();
    await page.getByTestId('lbaas-message').filter({ hasText: 'Reset' }).waitFor();
    expect(await quota(p)).toEqual(dflt);
    await detailLimit(page, 'load_balancer')
      .filter({ hasText: /^\s*4\s*$/ })
      .waitFor();
    await detailLimit(page, 'listener')
      .filter({ hasText: /^\s*unlimited\s*$/ })
      .waitFor();
    await expect(page.getByTestId('lbaas-force-reset').count()).resolves.toBe(0);
    expect(errors).toEqual([]);
  });

  it('runs the confirmation from the keyboard alone: focus moves to it, Escape and Cancel close it and give focus back', async () => {
    const p = newProject();
    await put(p, { load_balancer: 3, pool: 9 });
    const before = await quota(p);
    const { page, errors } = await s.open();
    await s.signIn(page, `#/lbaas?project_id=${p}`);
    const reset = page.getByTestId('lbaas-reset');
    await reset.focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('lbaas-confirm').waitFor();
    await expect(focusedId(page)).resolves.toBe('confirm');
    await page.keyboard.press('Escape');
    await page.getByTestId('lbaas-confirm').waitFor({ state: 'detached' });
    await expect(focusedId(page)).resolves.toBe('lbaas-reset');
    expect(await quota(p)).toEqual(before);

    await page.keyboard.press('Space');
    await page.getByTestId('lbaas-confirm').waitFor();
    await page.keyboard.press('Tab');
    await expect(focusedId(page)).resolves.toBe('confirm-cancel');
    await page.keyboard.press('Enter');
    await page.getByTestId('lbaas-confirm').waitFor({ state: 'detached' });
    await expect(focusedId(page)).resolves.toBe('lbaas-reset');
    expect(await quota(p)).toEqual(before);

    await page.keyboard.press('Enter');
    await page.getByTestId('lbaas-confirm').waitFor();
    await page.keyboard.press('Enter'); // on "Yes, reset"
    await page.getByTestId('lbaas-message').filter({ hasText: 'Reset' }).waitFor();
    await focusOn(page, 'lbaas-reset'); // not lost to the page's body
    expect(await quota(p)).toEqual(await defaults());
    expect(errors).toEqual([]);
  });

  const rowIds = (page: Page) =>
    page.getByTestId('lbaas-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-project-id') ?? ''));
  /** Waits until the list shows exactly `ids` (no more rows than they, the first and the last of them there). */
  async function showsRows(page: Page, ids: string[]) {
    await page.getByTestId('lbaas-row').nth(ids.length).waitFor({ state: 'detached' });
    await page.locator(`[data-testid="lbaas-row"][data-project-id="${ids.at(-1)}"]`).waitFor();
    await page.locator(`[data-testid="lbaas-row"][data-project-id="${ids[0]}"]`).waitFor();
    expect(await rowIds(page)).toEqual(ids);
  }

  it('pages forward and back through the list as the API pages it, and finds a project by id', async () => {
    const mine = Array.from({ length: 7 }, newProject);
    for (const [i, p] of mine.entries()) await put(p, { load_balancer: 20 + i });
    // The API's pages of 3, following its next links to the end.
    const pages: string[][] = [];
    let marker: string | undefined;
    do {
      const pg = await s.lbaasPage(`limit=3${marker ? `&marker=${marker}` : ''}`);
      pages.push(pg.ids);
      marker = pg.next;
    } while (marker);
    expect(pages.length).toBeGreaterThanOrEqual(3);
    expect(pages.flat()).toEqual(expect.arrayContaining(mine));

    const { page, errors } = await s.open();
    await s.signIn(page, '#/lbaas?limit=3');
    await showsRows(page, pages[0] as string[]);
    await expect(page.getByTestId('lbaas-prev').isDisabled()).resolves.toBe(true);
    for (const ids of pages.slice(1)) {
      await page.getByTestId('lbaas-next').click();
      await showsRows(page, ids);
    }
    await expect(page.getByTestId('lbaas-next').isDisabled()).resolves.toBe(true);
    for (const ids of pages.slice(0, -1).reverse()) {
      await page.getByTestId('lbaas-prev').click();
      await showsRows(page, ids);
    }
    await screenshot(page, 'lbaas');

    // A search by project id: that one row (in use / limit as the API stores it) and its detail.
    const target = mine[4] as string;
    const stored = await quota(target);
    await page.getByTestId('lbaas-search').fill(target);
    await page.getByTestId('lbaas-search').press('Enter');
    await showsRows(page, [target]);
    await page
      .locator(`[data-testid="lbaas-row"][data-project-id="${target}"] [data-resource="load_balancer"]`)
      .filter({ hasText: new RegExp(`^\\s*0 / ${stored.load_balancer}\\s*$`) })
      .waitFor();
    await page.locator(`[data-testid="lbaas-detail"][data-project-id="${target}"]`).waitFor();
    await detailLimit(page, 'load_balancer')
      .filter({ hasText: new RegExp(`^\\s*${stored.load_balancer}\\s*$`) })
      .waitFor();
    expect(page.url()).toContain(`project_id=${target}`);
    // Show all: back to the first page.
    await page.getByTestId('lbaas-show-all').click();
    await showsRows(page, pages[0] as string[]);
    expect(errors).toEqual([]);
  });
  /** How a list cell is laid out: its `::before` text (the card's label), and whether its list scrolls sideways. */
  const cellLayout = (page: Page, projectId: string, cell: string) =>
    page.locator(`[data-testid="lbaas-row"][data-project-id="${projectId}"] ${cell}`).evaluate((el) => {
      const view = globalThis as unknown as { getComputedStyle(e: unknown, pseudo?: string): { content: string; display: string } };
      let scroller = el.parentElement;
      while (scroller && !scroller.classList.contains('scroll')) scroller = scroller.parentElement;
      return {
        label: view.getComputedStyle(el, '::before').content,
        display: view.getComputedStyle(el).display,
        scrollsSideways: scroller === null || scroller.scrollWidth > scroller.clientWidth,
      };
    });

  it('shows the list as labelled cards on a narrow screen (390 px), with no sideways scroll, and as a table on a wide one', async () => {
    const target = newProject();
    await put(target, { load_balancer: 7, listener: -1 });
    const stored = await quota(target);
    const narrow = await s.open({ width: 390, height: 844 });
    await s.signIn(narrow.page, `#/lbaas?project_id=${target}`);
    const row = narrow.page.locator(`[data-testid="lbaas-row"][data-project-id="${target}"]`);
    await row
      .locator('[data-resource="load_balancer"]')
      .filter({ hasText: new RegExp(`^\\s*0 / ${stored.load_balancer}\\s*$`) })
      .waitFor();
    await expect(cellLayout(narrow.page, target, 'th')).resolves.toEqual({
      label: '"Project: "',
      display: 'block',
      scrollsSideways: false,
    });
    for (const r of LBAAS_RESOURCES) {
      await expect(cellLayout(narrow.page, target, `[data-resource="${r}"]`)).resolves.toEqual({
        label: `"${LBAAS_DISPLAY_NAME[r]}: "`,
        display: 'block',
        scrollsSideways: false,
      });
    }
    await expect(row.locator('[data-resource="listener"]').textContent()).resolves.toMatch(/^\s*0 \/ unlimited\s*$/);
    // The Edit button is within the screen.
    const box = await row.getByTestId('lbaas-edit').boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= 390).toBe(true);
    await row.scrollIntoViewIfNeeded();
    await screenshot(narrow.page, 'narrow-lbaas-list', false);

    const wide = await s.open({ width: 1280, height: 800 });
    await s.signIn(wide.page, `#/lbaas?project_id=${target}`);
    await wide.page.locator(`[data-testid="lbaas-row"][data-project-id="${target}"]`).waitFor();
    await expect(cellLayout(wide.page, target, '[data-resource="load_balancer"]')).resolves.toEqual({
      label: 'none',
      display: 'table-cell',
      scrollsSideways: false,
    });
    expect([...narrow.errors, ...wide.errors]).toEqual([]);
    await narrow.page.context().close();
    await wide.page.context().close();
  });
});
