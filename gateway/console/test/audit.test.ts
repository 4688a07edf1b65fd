/**
 * The audit trail page in Chromium against the real stack (docs/api/domain-quota.md "Audit log"): a department of
 * this file's own (registry API) gets more edits than a page holds, and the console pages through its trail forward
 * (Older) and back (Newer) showing, page by page, exactly the API's pages for the same limit and marker; a page's
 * link (its marker, and the markers of the pages before it, in the URL) opens that page in a new browser, and Newer
 * steps back from it page by page.
 */
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { screenshot } from './browser';
import { type ConsoleSession, startSession } from './session';

jest.setTimeout(90_000);

/** Entries per page in the console and the API's queries: small, so a few edits fill several pages. */
const LIMIT = 4;
/** A whole number of pages: the last page is full, and Older must still know that nothing is older. */
const EDITS = 3 * LIMIT;

interface Entry {
  _id: string;
  item: string | null;
  old: number | null;
  new: number | null;
}

describe('the audit trail page', () => {
  let s: ConsoleSession;
  const department = randomBytes(16).toString('hex');

  beforeAll(async () => {
    s = await startSession();
    await s.registerDepartment(department, 'Audit');
    for (let i = 1; i <= EDITS; i++) {
      await s
        .api()
        .patch(`/v3/domain_quotas/${department}`)
        .set(s.as('admin'))
        .send({ domain: { region: 'RegionOne', cores: 10 * i } })
        .expect(200);
    }
  });
  afterAll(() => s?.close());

  /** The API's audit pages of LIMIT entries, newest first, following each page's last id as the next marker. */
  async function apiPages(): Promise<Entry[][]> {
    const pages: Entry[][] = [];
    let marker: string | undefined;
    for (;;) {
      const q = `limit=${LIMIT}${marker ? `&marker=${marker}` : ''}`;
      const page = (await s.api().get(`/v3/domain_quotas/${department}/audit?${q}`).set(s.as('admin')).expect(200)).body.audit as Entry[];
      if (page.length === 0) break;
      pages.push(page);
      if (page.length < LIMIT) break;
      marker = page.at(-1)?._id;
    }
    return pages;
  }

  /** Waits until the page lists exactly these entries (by id, in order), and checks each row's change. */
  async function shows(page: Page, entries: Entry[]) {
    await page.locator(`[data-testid="audit-row"][data-entry-id="${entries.at(-1)?._id}"]`).waitFor();
    await page.locator(`[data-testid="audit-row"][data-entry-id="${entries[0]?._id}"]`).waitFor();
    const rows = await page
      .getByTestId('audit-row')
      .evaluateAll((els) => els.map((e) => [e.getAttribute('data-entry-id'), e.textContent ?? '']));
    expect(rows.map(([id]) => id)).toEqual(entries.map((e) => e._id));
    for (const [i, e] of entries.entries()) {
      // The change as "old → new cores" (the API's numbers; en-US separators).
      const fmt = (n: number | null) => (n === null ? '–' : new Intl.NumberFormat('en-US').format(n));
      expect(rows[i]?.[1]).toContain(`${fmt(e.old)} → ${fmt(e.new)} cores`);
    }
  }

  it('pages through more entries than a page holds, forward and back, as the API pages them', async () => {
    const pages = await apiPages();
    const all = pages.flat();
    // Every edit is one entry of the item changed (an item per edit here), the newest first.
    expect(all.map((e) => e.item)).toEqual(Array(EDITS).fill('cores'));
    expect(EDITS % LIMIT).toBe(0); // the last page is full
    expect(pages.length).toBeGreaterThanOrEqual(3);

    const { page, errors } = await s.open();
    await s.signIn(page, `#/audit?domain_id=${department}&limit=${LIMIT}`);
    const [older, newer] = [page.getByTestId('audit-older'), page.getByTestId('audit-newer')];
    await shows(page, pages[0] as Entry[]);
    await expect(newer.isDisabled()).resolves.toBe(true);
    await screenshot(page, 'audit');
    for (const [i, entries] of pages.entries()) {
      if (i === 0) continue;
      await older.click();
      await shows(page, entries);
      // The page is in the URL: the marker is the previous page's last entry, as the API takes it.
      expect(page.url()).toContain(`marker=${pages[i - 1]?.at(-1)?._id}`);
    }
    // Nothing older, though the last page is full (the console asked for one more than a page).
    await expect(older.isDisabled()).resolves.toBe(true);
    const lastLink = page.url();
    for (const entries of pages.slice(0, -1).reverse()) {
      await newer.click();
      await shows(page, entries);
    }
    await expect(newer.isDisabled()).resolves.toBe(true);
    expect(page.url()).not.toContain('marker=');
    expect(page.url()).toContain(`limit=${LIMIT}`);
    await page.context().close();

    // The last page's link, in a new browser (signed in there): the same entries.
    const other = await s.open();
    await s.signIn(other.page, new URL(lastLink).hash);
    await shows(other.page, pages.at(-1) as Entry[]);
    expect(lastLink).not.toContain(s.stack.personas.admin.token);
    // Newer steps back a page at a time from there too (the link carries the pages before it).
    for (const entries of pages.slice(0, -1).reverse()) {
      await other.page.getByTestId('audit-newer').click();
      await shows(other.page, entries);
    }
    await expect(other.page.getByTestId('audit-newer').isDisabled()).resolves.toBe(true);
    expect([...errors, ...other.errors]).toEqual([]);
    await other.page.context().close();
  });
});
