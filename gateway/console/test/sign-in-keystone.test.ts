/**
 * The console's Keystone sign-in in Chromium, against a real Keystone (the gateway in Keystone mode): the form beside
 * the token, the bootstrapped admin signed in onto the departments page, a wrong password refused. The token Keystone
 * issues is kept like a pasted one; the credentials nowhere.
 */
import { type RunningKeystone, startKeystone } from '@stratum/testing';
import type { Page } from 'playwright-core';
import { screenshot } from './browser';
import { type ConsoleSession, startSession } from './session';

jest.setTimeout(60_000);

describe('the console signs in with Keystone credentials', () => {
  let keystone: RunningKeystone;
  let s: ConsoleSession;
  let gateway: ConsoleSession['gateway'];
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    keystone = await startKeystone();
    s = await startSession({
      gatewayEnv: {
        TOKENS_FILE: '',
        ...keystone.serviceEnv(),
      },
    });
    ({ gateway } = s);
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    await keystone?.stop();
  });
  beforeEach(async () => {
    ({ page, errors } = await s.open());
  });
  afterEach(async () => {
    await page.context().close();
  });

  /** Fills the Keystone form as the admin, with `password`, project `admin` in domain Default, and submits it by keyboard. */
  async function fillAndSubmit(password: string, hash = ''): Promise<void> {
    await page.goto(`${gateway.url}/console/${hash}`);
    await page.getByTestId('keystone-form').waitFor();
    await page.getByLabel('User name').fill('admin');
    await page.getByTestId('keystone-password').fill(password);
    await expect(page.getByTestId('keystone-user-domain').inputValue()).resolves.toBe('Default');
    await expect(page.getByTestId('keystone-scope').inputValue()).resolves.toBe('project');
    await page.getByTestId('keystone-project').fill('admin');
    await expect(page.getByTestId('keystone-project-domain').inputValue()).resolves.toBe('Default');
    await page.getByTestId('keystone-password').press('Enter');
  }

  it("offers the Keystone form beside the token, with the browser's autocomplete names and labelled fields", async () => {
    await page.goto(`${gateway.url}/console/`);
    await page.getByTestId('keystone-form').waitFor();
    await expect(page.getByTestId('token-input').isVisible()).resolves.toBe(true);
    await expect(page.getByTestId('keystone-username').getAttribute('autocomplete')).resolves.toBe('username');
    await expect(page.getByTestId('keystone-password').getAttribute('autocomplete')).resolves.toBe('current-password');
    for (const label of ['User name', 'Password', 'User domain', 'Sign in to', 'Project name', 'Project domain']) {
      await expect(page.getByLabel(label, { exact: true }).count()).resolves.toBe(1);
    }
    // The scope choice swaps the fields it needs.
    await page.getByTestId('keystone-scope').selectOption('domain');
    await page.getByTestId('keystone-domain').waitFor();
    await expect(page.getByTestId('keystone-project').count()).resolves.toBe(0);
    await page.getByTestId('keystone-scope').selectOption('system');
    await expect(page.getByTestId('keystone-domain').count()).resolves.toBe(0);
    expect(errors).toEqual([]);
  });

  it('signs the admin in (project admin, domain Default), keeps only the token in session storage, and shows a page', async () => {
    await fillAndSubmit(keystone.adminPassword, '#/departments?region=RegionOne');
    await expect(page.getByTestId('signed-in-as').textContent()).resolves.toMatch(/cloud admin/);
    // The departments page, filled by the API with the Keystone token.
    await page.getByTestId('cloud-summary').waitFor();
    await expect(page.getByTestId('department-row').count()).resolves.toBeGreaterThan(0);
    const token = await (page.evaluate("sessionStorage.getItem('stratum.console.token')") as Promise<string | null>);
    expect(token).toMatch(/^\S{20,}$/);
    const url = page.url();
    const storage = await (page.evaluate('JSON.stringify({ ...sessionStorage, ...localStorage })') as Promise<string>);
    expect(url).not.toContain(keystone.adminPassword);
    expect(url).not.toContain(token as string);
    expect(storage).not.toContain(keystone.adminPassword);
    // Signing out leaves nothing behind.
    await page.getByTestId('sign-out').click();
    await page.getByTestId('keystone-form').waitFor();
    await expect(page.evaluate('sessionStorage.length')).resolves.toBe(0);
    expect(errors).toEqual([]);
  });

  it('shows a wrong password as not accepted, clears the password field, and stays signed out', async () => {
    await fillAndSubmit('not-the-password');
    const alert = page.getByTestId('keystone-error');
    await alert.filter({ hasText: /not accepted/ }).waitFor();
    await expect(alert.textContent()).resolves.toMatch(/User name or password not accepted/);
    await expect(alert.getAttribute('role')).resolves.toBe('alert');
    await expect(page.getByTestId('keystone-password').inputValue()).resolves.toBe('');
    await expect(page.getByTestId('signed-in-as').count()).resolves.toBe(0);
    expect(page.url()).not.toContain('not-the-password');
    await screenshot(page, 'sign-in-keystone');
  });
});
