/**
 * The console's browser tests drive Debian's Chromium (/usr/bin/chromium, installed by deploy/scripts/install-chromium.sh)
 * with playwright-core: one browser per test file, a fresh page (own context: no shared storage) per test, and
 * screenshots to var/screenshots/ (and to docs/console/ when CONSOLE_SCREENSHOTS=1, the pictures the README shows).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
import { formatNumber } from '../src/format';

export const CHROMIUM = '/usr/bin/chromium';
/** The repository's root. */
export const ROOT = resolve(__dirname, '..', '..', '..');

/**
 * Flags for a headless Chromium on a machine with no display or network: without the background-networking ones it
 * opens connections of its own (updates, sync, field trials) that are refused many at a time.
 */
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Builds the console as its sources are now (gateway/console/build.sh does nothing when dist is newer than them, as
 * after npm test's build), so a browser test run alone never tests a stale build.
 * @throws Error with the build's output when it fails.
 */
export function buildConsole(): void {
  const build = spawnSync('sh', [join(ROOT, 'gateway/console/build.sh')], { encoding: 'utf8' });
  if (build.status !== 0 || !existsSync(join(ROOT, 'gateway/console/dist/index.html'))) {
    throw new Error(`gateway/console/build.sh failed: ${build.stderr || build.stdout}`);
  }
}

/** Launches the system Chromium (playwright-core gives it a fresh temporary --user-data-dir). */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS, timeout: 30_000 });
}

/** A page in its own context (a laptop-sized viewport unless told), with a default wait for locators long enough for a loaded 2-core machine. */
export async function newPage(browser: Browser, viewport = { width: 1280, height: 800 }): Promise<{ page: Page; context: BrowserContext }> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  return { page, context };
}

/**
 * Writes a screenshot of a page (the whole page, or the viewport when `fullPage` is false: a long list) or of one
 * element as `<name>.png` to var/screenshots/, and to docs/console/ when
 * CONSOLE_SCREENSHOTS=1 (so a normal test run does not rewrite the committed pictures).
 */
export async function screenshot(target: Page | Locator, name: string, fullPage = true): Promise<void> {
  const dirs = [join(ROOT, 'var/screenshots')];
  if (process.env.CONSOLE_SCREENSHOTS === '1') dirs.push(join(ROOT, 'docs/console'));
  for (const dir of dirs) {
    mkdirSync(dir, { recursive: true });
    const path = join(dir, `${name}.png`);
    await ('goto' in target ? target.screenshot({ path, fullPage }) : target.screenshot({ path }));
  }
}

/**
 * Collects the page's console errors and uncaught exceptions (a test asserts none), except failed resource loads,
 * which an API refusal the test asks for (403, 409) shows as.
 */
export function pageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) errors.push(m.text());
  });
  return errors;
}

/** Exactly `n` as a number cell shows it (the console's format.ts formatNumber: en-US separators, up to 3 decimals), for a locator to wait on. */
export const exactly = (n: number): RegExp => new RegExp(`^\\s*${formatNumber(n)}\\s*$`);
