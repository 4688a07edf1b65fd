/**
 * The console's accessibility measured in Chromium: axe-core's WCAG 2.0/2.1 A and AA rules on every page (sign-in,
 * departments, audit, load balancer quotas with a project's form and confirmation open, events with an event's
 * traits expanded), each page usable on a narrow screen (390×844: no sideways scroll of the document, the nav
 * reachable), and the keyboard: Tab reaches the nav and then the page's controls in order, each with a visible focus
 * indicator.
 *
 * axe is injected with `page.evaluate(axe.source)`: the console's CSP (script-src 'self') blocks playwright's
 * addScriptTag with inline content, while an evaluation through the DevTools protocol is not subject to the page's
 * CSP, so the test runs under the very CSP the gateway serves (no bypassCSP context).
 */
import { randomBytes } from 'node:crypto';
import axe from 'axe-core';
import type { Page } from 'playwright-core';
import { screenshot } from './browser';
import { type ConsoleSession, startSession } from './session';

jest.setTimeout(90_000);

const WCAG = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/** axe's WCAG 2 A/AA violations of the page as it is now (open shadow roots included), each with its nodes. */
async function violations(page: Page): Promise<Violation[]> {
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(axe.source);
  return page.evaluate(
    `axe.run(document, { runOnly: { type: 'tag', values: ${JSON.stringify(WCAG)} }, resultTypes: ['violations'] })
      .then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
        nodes: v.nodes.map((n) => n.target.join(' >>> ') + ': ' + n.failureSummary) })))`,
  );
}

/** The focused element through open shadow roots: its test id (else tag and text) and whether its outline shows. */
const focused = (page: Page) =>
  page.evaluate(`(() => {
    let el = document.activeElement;
    while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
    if (!el || el === document.body) return null;
    const style = getComputedStyle(el);
    return {
      id: el.getAttribute('data-testid') ?? el.tagName.toLowerCase() + ':' + (el.textContent ?? '').trim().slice(0, 30),
      outline: style.outlineStyle !== 'none' && Number.parseFloat(style.outlineWidth) >= 2,
    };
  })()`) as Promise<{ id: string; outline: boolean } | null>;

/** Whether the document is no wider than the viewport (nothing to scroll sideways). */
const fitsWidth = (page: Page) => page.evaluate('document.documentElement.scrollWidth <= document.documentElement.clientWidth');

describe('the console is accessible', () => {
  let s: ConsoleSession;
  /** A department and a load balancer project of this file's own. */
  const department = randomBytes(16).toString('hex');
  const lbProject = randomBytes(16).toString('hex');

  beforeAll(async () => {
    s = await startSession();
    await s.registerDepartment(department, 'A11y');
    await s
      .api()
      .patch(`/v3/domain_quotas/${department}`)
      .set(s.as('admin'))
      .send({ domain: { region: 'RegionOne', cores: 8, instances: 4 } })
      .expect(200);
    await s
      .api()
      .put(`/v2.0/lbaas/quotas/${lbProject}`)
      .set(s.as('admin'))
      .send({ quota: { load_balancer: 7 } })
      .expect(202);
  });
  afterAll(() => s?.close());

  /**
   * Each page in the state that shows the most: its route, what to wait for, and what to open before measuring. The
   * same list drives the WCAG run and the narrow-screen pass.
   */
  const pages: { name: string; hash: string; ready(page: Page): Promise<void> }[] = [
    {
      name: 'departments',
      hash: '#/departments?region=RegionOne',
      ready: (page) => page.locator(`[data-testid="department-row"][data-domain-id="${department}"]`).waitFor(),
    },
    {
      name: 'audit',
      hash: `#/audit?domain_id=${department}`,
      ready: (page) => page.getByTestId('audit-row').first().waitFor(),
    },
    {
      name: 'lbaas',
      hash: `#/lbaas?project_id=${lbProject}`,
      ready: async (page) => {
        await page.locator(`[data-testid="lbaas-row"][data-project-id="${lbProject}"]`).getByTestId('lbaas-edit').click();
        await page.getByTestId('lbaas-limit-load_balancer').fill('9');
        await page.getByTestId('lbaas-save').click();
        await page.getByTestId('lbaas-confirm').waitFor();
      },
    },
    {
      name: 'events',
      hash: '#/events',
      ready: async (page) => {
        const first = page.getByTestId('event-row').first();
        await first.getByTestId('event-traits').click();
        await first.getByTestId('event-traits-table').waitFor();
      },
    },
  ];

  it('has no WCAG 2 A/AA violation on the sign-in page, nor with a refused token', async () => {
    const { page, errors } = await s.open();
    await page.goto(`${s.gateway.url}/console/`);
    await page.getByTestId('token-input').waitFor();
    expect(await violations(page)).toEqual([]);
    await page.getByTestId('token-input').fill('not-a-token');
    await page.getByTestId('sign-in').click();
    await page.getByRole('alert').waitFor();
    expect(await violations(page)).toEqual([]);
    expect(errors).toEqual([]);
  });

  it.each(pages.map((p) => [p.name, p] as const))('has no WCAG 2 A/AA violation on the %s page', async (_name, p) => {
    const { page, errors } = await s.open();
    await s.signIn(page, p.hash);
    await p.ready(page);
    expect(await violations(page)).toEqual([]);
    expect(errors).toEqual([]);
  });

  it.each(pages.map((p) => [p.name, p] as const))(
    'is usable on a narrow screen (390×844) on the %s page: no sideways scroll, the nav reachable',
    async (name, p) => {
      const { page, errors } = await s.open({ width: 390, height: 844 });
      await s.signIn(page, p.hash);
      await p.ready(page);
      await expect(fitsWidth(page)).resolves.toBe(true);
      for (const nav of ['nav-departments', 'nav-lbaas', 'nav-events']) {
        const link = page.getByTestId(nav);
        await expect(link.isVisible()).resolves.toBe(true);
        const box = await link.boundingBox();
        expect(box && box.x >= 0 && box.x + box.width <= 390).toBe(true);
      }
      expect(await violations(page)).toEqual([]);
      await screenshot(page, `narrow-${name}`, false);
      expect(errors).toEqual([]);
    },
  );

  it('reaches the nav and then the page controls in order with the Tab key, the focus always visible', async () => {
    const { page, errors } = await s.open();
    await s.signIn(page, '#/lbaas');
    await page.getByTestId('lbaas-defaults').waitFor();
    const order: string[] = [];
    for (let i = 0; i < 9; i++) {
      await page.keyboard.press('Tab');
      const f = await focused(page);
      expect(f).not.toBeNull();
      expect([f?.id, f?.outline]).toEqual([f?.id, true]);
      order.push(f?.id ?? '');
    }
    expect(order).toEqual([
      'a:Stratum console',
      'nav-departments',
      'nav-lbaas',
      'nav-events',
      'sign-out',
      'lbaas-search',
      'lbaas-search-submit',
      'lbaas-page-size',
      expect.any(String), // the first row's Edit or the page links, whichever the data gives
    ]);
    // Enter on a nav link navigates, as a click does.
    await page.getByTestId('nav-events').focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('events-resource').waitFor();
    expect(page.url()).toContain('#/events');
    expect(errors).toEqual([]);
  });
});
