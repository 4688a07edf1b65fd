/**
 * The events page in Chromium against the real stack (docs/api/events.md): search by event type, by project (a
 * cloud admin; a project member gets only what the API lets its token see), and by time window, each result compared
 * with the API's own answer to the same query; a search's link opened in a new browser context gives the same
 * results, with no token in the URL; an instance's timeline from create to delete, its traits opened and closed from
 * the keyboard. The events are this file's own, ingested through the gateway (POST /v2/ingest/events) with event
 * types and a time window no other data has.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { screenshot } from './browser';
import { type ConsoleSession, type Persona, startSession } from './session';

jest.setTimeout(90_000);

const sfx = randomBytes(4).toString('hex');
/** Two event types of this file's own: `alpha` in projects A and B, `beta` in A. */
const ALPHA = `stratumtest.${sfx}.alpha`;
const BETA = `stratumtest.${sfx}.beta`;
/** A type with more events than the API's default page (100) holds. */
const GAMMA = `stratumtest.${sfx}.gamma`;
const MANY = 105;
/** A type with exactly one page's worth of events (the page's size, 100): no page follows it. */
const DELTA = `stratumtest.${sfx}.delta`;
const PAGE = 100;
/** A day no other event has (the samples are of 2026): the time window searches see only this file's events. */
const DAY = `2024-0${1 + ((randomBytes(1)[0] as number) % 9)}-1${(randomBytes(1)[0] as number) % 9}`;
const at = (hh: number, mm: number, ss = 0) =>
  `${DAY}T${String(hh).padStart(2, '0')}:${String(mm).padStart(2, '0')}:${String(ss).padStart(2, '0')}.000000`;

/** A Ceilometer-serialized event (the http:// publisher's body): traits as [name, dtype, value], 1 = String. */
const serialized = (event_type: string, generated: string, traits: Record<string, string>) => ({
  message_id: randomUUID(),
  event_type,
  generated,
  traits: Object.entries(traits).map(([k, v]) => [k, 1, v]),
  raw: {},
});

describe('the events page', () => {
  let s: ConsoleSession;
  const instance = randomUUID();

  beforeAll(async () => {
    s = await startSession();
    const { projectA, projectB } = s.stack;
    const life = [
      'compute.instance.create.start',
      'compute.instance.create.end',
      'compute.instance.update',
      'compute.instance.delete.start',
      'compute.instance.delete.end',
    ];
    const events = [
      ...[0, 1, 2].map((i) => serialized(ALPHA, at(9, 10 + i), { project_id: projectA, resource_id: `vol-${sfx}-${i}` })),
      ...[0, 1].map((i) => serialized(ALPHA, at(9, 20 + i), { project_id: projectB, resource_id: `vol-${sfx}-b${i}` })),
      ...[0, 1].map((i) => serialized(BETA, at(11, i), { project_id: projectA })),
      ...Array.from({ length: MANY }, (_, i) => serialized(GAMMA, at(12, Math.floor(i / 60), i % 60), { project_id: projectA })),
      ...Array.from({ length: PAGE }, (_, i) => serialized(DELTA, at(13, Math.floor(i / 60), i % 60), { project_id: projectA })),
      ...life.map((t, i) =>
        serialized(t, at(10, i, 30), {
          project_id: projectA,
          resource_id: instance,
          host: `compute-${sfx}`,
          state: i < 3 ? 'active' : 'deleted',
        }),
      ),
    ];
    const r = await s
      .api()
      .post('/v2/ingest/events')
      .set(s.as('admin'))
      .set('Content-Type', 'application/json')
      .send(JSON.stringify(events));
    expect(r.body).toEqual({ stored: events.length, duplicates: 0, dropped: [] });
  });
  afterAll(() => s?.close());

  /** The API's answer (message ids, in order) to GET /v2/events with these q filters, as `who`. */
  async function apiIds(filters: [string, string, string][], opts: { who?: Persona; order?: 'asc' | 'desc' } = {}): Promise<string[]> {
    const q = new URLSearchParams();
    for (const [field, op, value] of filters) {
      q.append('q.field', field);
      q.append('q.op', op);
      q.append('q.value', value);
    }
    q.set('sort', `generated:${opts.order ?? 'desc'}`);
    q.set('limit', '100');
    const r = await s
      .api()
      .get(`/v2/events?${q}`)
      .set(s.as(opts.who ?? 'admin'))
      .expect(200);
    return (r.body as { message_id: string }[]).map((e) => e.message_id);
  }
  const ALL: [string, string, string] = ['all_tenants', 'eq', 'true'];

  /** The message ids the page lists, in order, once its summary says the search answered. */
  async function shownIds(page: Page, testid = 'event-list'): Promise<string[]> {
    await page.getByTestId('events-summary').filter({ hasNotText: 'Loading' }).waitFor();
    return page
      .getByTestId(testid)
      .getByTestId('event-row')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-message-id') ?? ''));
  }

  it('finds the events of a type in every project, as the API lists them for a cloud admin', async () => {
    const expected = await apiIds([['event_type', 'eq', ALPHA], ALL]);
    expect(expected).toHaveLength(5);
    const { page, errors } = await s.open();
    await s.signIn(page, '#/events');
    await page.getByTestId('events-type').fill(ALPHA);
    await page.getByTestId('events-search').click();
    await page
      .getByTestId('event-row')
      .nth(expected.length - 1)
      .waitFor();
    expect(await shownIds(page)).toEqual(expected);
    expect(page.url()).toContain(`event_type=${encodeURIComponent(ALPHA)}`);
    expect(errors).toEqual([]);
  });

  it('shows more events than a page holds a page at a time, as the API pages them (its next link)', async () => {
    const first = await s
      .api()
      .get(`/v2/events?q.field=event_type&q.op=eq&q.value=${GAMMA}&q.field=all_tenants&q.op=eq&q.value=true&sort=generated:desc`)
      .set(s.as('admin'))
      .expect(200);
    const firstIds = (first.body as { message_id: string }[]).map((e) => e.message_id);
    expect(firstIds).toHaveLength(100); // the API's default page
    const next = /<([^>]+)>;\s*rel="next"/.exec(String(first.headers.link))?.[1] as string;
    const second = await s
      .api()
      .get(new URL(next).pathname + new URL(next).search)
      .set(s.as('admin'))
      .expect(200);
    const expected = [...firstIds, ...(second.body as { message_id: string }[]).map((e) => e.message_id)];
    expect(expected).toHaveLength(MANY);
    const { page, errors } = await s.open();
    await s.signIn(page, `#/events?event_type=${encodeURIComponent(GAMMA)}`);
    await page.getByTestId('event-row').nth(99).waitFor();
    await page.getByTestId('events-summary').filter({ hasText: '100+ events' }).waitFor();
    await page.getByTestId('events-more').click();
    await page
      .getByTestId('event-row')
      .nth(MANY - 1)
      .waitFor();
    expect(await shownIds(page)).toEqual(expected);
    await expect(page.getByTestId('events-more').count()).resolves.toBe(0);
    expect(errors).toEqual([]);
  });

  it('shows exactly one page of events without a More button (no empty page after it)', async () => {
    const expected = await apiIds([['event_type', 'eq', DELTA], ALL]);
    expect(expected).toHaveLength(PAGE);
    const { page, errors } = await s.open();
    await s.signIn(page, `#/events?event_type=${encodeURIComponent(DELTA)}`);
    await page
      .getByTestId('event-row')
      .nth(PAGE - 1)
      .waitFor();
    expect(await shownIds(page)).toEqual(expected);
    // "100 events", not "100+": the page asked for one more than it shows and none came back.
    await expect(page.getByTestId('events-summary').textContent()).resolves.toMatch(/^\s*100 events,/);
    await expect(page.getByTestId('events-more').count()).resolves.toBe(0);
    expect(errors).toEqual([]);
  });

  it("narrows a type to one project for a cloud admin, and a project member gets only its own project's events", async () => {
    const { projectA, projectB } = s.stack;
    const inB = await apiIds([['event_type', 'eq', ALPHA], ['project_id', 'eq', projectB], ALL]);
    expect(inB).toHaveLength(2);
    const { page, errors } = await s.open();
    await s.signIn(page, '#/events');
    await page.getByTestId('events-type').fill(ALPHA);
    await page.getByTestId('events-project').fill(projectB);
    await page.getByTestId('events-search').click();
    await page
      .getByTestId('event-row')
      .nth(inB.length - 1)
      .waitFor();
    expect(await shownIds(page)).toEqual(inB);
    await screenshot(page, 'events-search', false);
    await page.context().close();

    // A member of project A: no all-projects choice, and only what the API gives its token.
    const member = await s.open();
    await s.signIn(member.page, '#/events', 'memberA');
    await member.page.getByTestId('events-type').waitFor();
    await expect(member.page.getByTestId('events-all-tenants').count()).resolves.toBe(0);
    const own = await apiIds([['event_type', 'eq', ALPHA]], { who: 'memberA' });
    expect(own).toHaveLength(3); // project A's
    await member.page.getByTestId('events-type').fill(ALPHA);
    await member.page.getByTestId('events-search').click();
    await member.page
      .getByTestId('event-row')
      .nth(own.length - 1)
      .waitFor();
    expect(await shownIds(member.page)).toEqual(own);
    const projects = await member.page.getByTestId('event-row').evaluateAll((rows) => rows.map((r) => r.textContent ?? ''));
    expect(projects.every((t) => t.includes(projectA) && !t.includes(projectB))).toBe(true);
    // Asking for project B: the API decides (its answer for this token), and the page shows exactly that.
    const other = await apiIds(
      [
        ['event_type', 'eq', ALPHA],
        ['project_id', 'eq', projectB],
      ],
      { who: 'memberA' },
    );
    expect(other).toEqual([]);
    await member.page.getByTestId('events-project').fill(projectB);
    await member.page.getByTestId('events-search').click();
    await member.page.getByTestId('events-summary').filter({ hasText: 'No events match' }).waitFor();
    await expect(member.page.getByTestId('event-row').count()).resolves.toBe(0);
    expect(member.page.url()).not.toContain('all_tenants');
    // A link that asks for every project gives a member no more than its own project (the page never sends
    // all_tenants for a token that is not a cloud admin's, and the API would not widen it).
    await member.page.goto(`${s.gateway.url}/console/#/events?event_type=${encodeURIComponent(ALPHA)}&all_tenants=true`);
    await member.page
      .getByTestId('event-row')
      .nth(own.length - 1)
      .waitFor();
    expect(await shownIds(member.page)).toEqual(own);
    expect([...errors, ...member.errors]).toEqual([]);
    await member.page.context().close();
  });

  it('finds the events of a time window (inclusive ends) as the API does, and the link opens the same results in a new browser', async () => {
    const start = `${DAY}T09:10:30`;
    const end = `${DAY}T10:02:30`;
    const expected = await apiIds([['start_timestamp', 'ge', start], ['end_timestamp', 'le', end], ALL]);
    // 09:11 and 09:12 of alpha in A, both of B, and the instance's first three (10:00:30 to 10:02:30, the end inclusive).
    expect(expected).toHaveLength(7);
    const { page, errors } = await s.open();
    await s.signIn(page, '#/events');
    await page.getByTestId('events-start').fill(start);
    await page.getByTestId('events-end').fill(end);
    await page.getByTestId('events-search').click();
    await page
      .getByTestId('event-row')
      .nth(expected.length - 1)
      .waitFor();
    expect(await shownIds(page)).toEqual(expected);

    // The link to share: the search is in the URL, the token is not (nor anywhere in the page's URL).
    const link = page.url();
    expect(link).toContain('start=');
    expect(link).toContain('end=');
    expect(link).not.toContain(s.stack.personas.admin.token);
    await expect(page.getByTestId('events-link').getAttribute('href')).resolves.toBe(new URL(link).hash);
    await page.context().close();

    const other = await s.open();
    // A new context shares nothing: it asks for a token first, then shows the same search.
    await s.signIn(other.page, new URL(link).hash);
    await other.page
      .getByTestId('event-row')
      .nth(expected.length - 1)
      .waitFor();
    expect(await shownIds(other.page)).toEqual(expected);
    await expect(other.page.getByTestId('events-start').inputValue()).resolves.toBe(start);
    expect(other.page.url()).toBe(link);
    expect([...errors, ...other.errors]).toEqual([]);
    await other.page.context().close();
  });

  it("shows the API's refusal of a link's malformed search, and no events", async () => {
    const refusal = await s
      .api()
      .get('/v2/events?q.field=start_timestamp&q.op=ge&q.value=noon&sort=generated:desc&limit=100')
      .set(s.as('admin'))
      .expect(400);
    const message = refusal.body.error_message.faultstring as string;
    const { page, errors } = await s.open();
    await s.signIn(page, '#/events?start=noon&all_tenants=0');
    await page.getByTestId('events-error').filter({ hasText: message }).waitFor();
    await expect(page.getByTestId('event-row').count()).resolves.toBe(0);
    expect(errors).toEqual([]);
  });

  it("shows an instance's timeline from create to delete, oldest first as the API lists it, each event's traits opened and closed by keyboard", async () => {
    const expected = await apiIds([['resource_id', 'eq', instance], ALL], { order: 'asc' });
    expect(expected).toHaveLength(5);
    const { page, errors } = await s.open();
    await s.signIn(page, '#/events');
    await page.getByTestId('events-resource').fill(instance);
    await page.getByTestId('events-resource').press('Enter');
    const timeline = page.getByTestId('event-timeline');
    await timeline
      .getByTestId('event-row')
      .nth(expected.length - 1)
      .waitFor();
    expect(await shownIds(page, 'event-timeline')).toEqual(expected);
    const types = await timeline.getByTestId('event-type').allTextContents();
    expect([types[0]?.trim(), types.at(-1)?.trim()]).toEqual(['compute.instance.create.start', 'compute.instance.delete.end']);

    // Keyboard only: Enter opens the last event's traits, Space closes them, Enter again opens.
    const last = timeline.getByTestId('event-row').last();
    const toggle = last.getByTestId('event-traits');
    await toggle.focus();
    await page.keyboard.press('Enter');
    const table = last.getByTestId('event-traits-table');
    await table.locator('[data-trait="state"]').filter({ hasText: 'deleted' }).waitFor();
    await expect(toggle.getAttribute('aria-expanded')).resolves.toBe('true');
    await expect(table.getAttribute('id')).resolves.toBe(await toggle.getAttribute('aria-controls'));
    const stored = (
      await s
        .api()
        .get(`/v2/events/${expected.at(-1)}?all_tenants=true`)
        .set(s.as('admin'))
        .expect(200)
    ).body as {
      traits: { name: string; value: string }[];
    };
    const shown = await table.locator('tr[data-trait]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-trait')));
    expect(shown).toEqual(stored.traits.map((t) => t.name));
    await screenshot(page, 'events', false);
    await page.keyboard.press('Space');
    await table.waitFor({ state: 'detached' });
    await expect(toggle.getAttribute('aria-expanded')).resolves.toBe('false');
    await page.keyboard.press('Enter');
    await table.waitFor();
    expect(page.url()).toContain(`resource_id=${instance}`);
    expect(errors).toEqual([]);
  });
});
