import { join } from 'node:path';
import { loadSamples } from '@stratum/deploy';
import { listenGateway, startTestStack, type TestStack, type TestStackOptions, tokenOf } from '@stratum/testing';
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { buildConsole, launchBrowser, newPage, pageErrors, ROOT } from './browser';

export type Persona = keyof TestStack['personas'];

export interface ConsoleSession {
  stack: TestStack;
  gateway: { url: string; close(): Promise<void> };
  browser: Browser;
  /** A supertest agent on the gateway: the API as any client sees it. */
  api(): ReturnType<typeof request>;
  /** The X-Auth-Token header of a persona. */
  as(who: Persona): Record<string, string>;
  /** A fresh page in its own context (no shared storage), with its console errors collected. */
  open(viewport?: { width: number; height: number }): Promise<{ page: Page; errors: string[] }>;
  /** Opens the console at `hash` on `page` and signs in with a persona's static token, as a person would. */
  signIn(page: Page, hash?: string, who?: Persona): Promise<void>;
  /** Registers a department of the test's own in the registry (as the admin), named `<label> <first 6 of its id>`. */
  registerDepartment(id: string, label: string): Promise<void>;
  /** One page of the API's load balancer quota list (`query` as the list takes it): its project ids in order, and its next page's marker. */
  lbaasPage(query: string): Promise<{ ids: string[]; next?: string }>;
  close(): Promise<void>;
}

/** Builds the console if stale, and starts the stack (samples loaded; `options` as startTestStack's), the gateway and Chromium. */
export async function startSession(options: TestStackOptions = {}): Promise<ConsoleSession> {
  buildConsole();
  const [stack, browser] = await Promise.all([startTestStack(options), launchBrowser()]);
  await loadSamples(stack.db, join(ROOT, 'deploy/samples'));
  const gateway = await listenGateway(stack);
  return {
    stack,
    gateway,
    browser,
    api: () => request(stack.gateway),
    as: (who) => tokenOf(stack, who),
    async open(viewport) {
      const { page } = await newPage(browser, viewport);
      return { page, errors: pageErrors(page) };
    },
    async signIn(page, hash = '', who = 'admin') {
      await page.goto(`${gateway.url}/console/${hash}`);
      await page.getByTestId('token-input').fill(stack.personas[who].token);
      await page.getByTestId('sign-in').click();
      await page.getByTestId('signed-in-as').waitFor();
    },
    async registerDepartment(id, label) {
      await request(stack.gateway)
        .put(`/v3/domain_quota_registry/domains/${id}`)
        .set(tokenOf(stack, 'admin'))
        .send({ domain: { name: `${label} ${id.slice(0, 6)}` } })
        .expect(201);
    },
    async lbaasPage(query) {
      const body = (await request(stack.gateway).get(`/v2.0/lbaas/quotas?${query}`).set(tokenOf(stack, 'admin')).expect(200)).body as {
        quotas: { project_id: string }[];
        quotas_links?: { rel: string; href: string }[];
      };
      const next = body.quotas_links?.find((l) => l.rel === 'next');
      return {
        ids: body.quotas.map((q) => q.project_id),
        next: next ? (new URL(next.href).searchParams.get('marker') ?? undefined) : undefined,
      };
    },
    async close() {
      await browser.close();
      await gateway.close();
      await stack.close();
    },
  };
}
