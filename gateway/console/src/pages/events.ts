/**
 * `<stratum-events>`: the event trail (docs/api/events.md). Search by resource id, event type, project and time
 * window with Panko's simple query (A3, `GET /v2/events?q.field=…&q.op=…&q.value=…`), and a resource's timeline
 * (oldest first: e.g. an instance from create to delete), each event's traits expandable. The search lives in the
 * hash (`#/events?resource_id=…&event_type=…&project_id=…&start=…&end=…`) so it can be shared; the token never does.
 */

import { EventSchema as WireEventSchema } from '@stratum/traits';
import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import { z } from 'zod';
import { type Api, ApiError } from '../api';
import { routeParams, setRouteParams } from '../app';
import { shared } from '../styles';

const EVENTS_PATH = '/v2/events';
const EVENT_TYPES_PATH = '/v2/event_types';
// Panko's default page: one instance's life (create to delete) fits in it.
const PAGE_SIZE = 100;

/** An event as Panko v2 serves it: the services' own EventSchema (@stratum/traits), `raw` allowed to be left out. */
const EventSchema = WireEventSchema.partial({ raw: true });
type StoredEvent = z.infer<typeof EventSchema>;
const EventList = z.array(EventSchema);
const EventTypes = z.array(z.string());

/** The search fields kept in the URL, in the order they appear in the form. */
const FIELDS = ['resource_id', 'event_type', 'project_id', 'start', 'end'] as const;
type Field = (typeof FIELDS)[number];
type Search = Record<Field, string> & { all_tenants: boolean; order: 'asc' | 'desc' };
/** What the URL says about the order: nothing (a timeline oldest first, any other search newest first) or a choice. */
type OrderChoice = '' | 'asc' | 'desc';

/** One A3 filter: `q.field`, `q.op`, `q.value` go positionally, so each filter gives all three. */
interface QFilter {
  field: string;
  op: 'eq' | 'ge' | 'le';
  value: string;
}

/** The A3 filters of a search; every one is AND-ed with the caller's visibility (it narrows, never widens). */
function filtersOf(s: Search, isAdmin: boolean): QFilter[] {
  const q: QFilter[] = [];
  if (s.resource_id) q.push({ field: 'resource_id', op: 'eq', value: s.resource_id });
  if (s.event_type) q.push({ field: 'event_type', op: 'eq', value: s.event_type });
  if (s.project_id) q.push({ field: 'project_id', op: 'eq', value: s.project_id });
  if (s.start) q.push({ field: 'start_timestamp', op: 'ge', value: s.start });
  if (s.end) q.push({ field: 'end_timestamp', op: 'le', value: s.end });
  // For anyone but a cloud admin `all_tenants` is an ordinary trait name and would match nothing: never send it then.
  if (isAdmin && s.all_tenants) q.push({ field: 'all_tenants', op: 'eq', value: 'true' });
  return q;
}

/** The A3 query string of a search page. */
export function eventsQuery(s: Search, isAdmin: boolean, marker?: string): string {
  const p = new URLSearchParams();
  for (const f of filtersOf(s, isAdmin)) {
    p.append('q.field', f.field);
    p.append('q.op', f.op);
    p.append('q.value', f.value);
  }
  p.set('sort', `generated:${s.order}`);
  p.set('limit', String(PAGE_SIZE));
  if (marker) p.set('marker', marker);
  return p.toString();
}

/** The search the URL holds. A resource's timeline reads oldest first; any other search newest first. */
function searchFromRoute(isAdmin: boolean): Search {
  const p = routeParams();
  const get = (k: string) => p.get(k)?.trim() ?? '';
  const s = Object.fromEntries(FIELDS.map((f) => [f, get(f)])) as Record<Field, string>;
  const choice = orderChoice(get('order'));
  const order = choice || (s.resource_id ? 'asc' : 'desc');
  // Cloud admins see every project unless the link says otherwise.
  const all = get('all_tenants');
  return { ...s, order, all_tenants: isAdmin && all !== '0' && all !== 'false' };
}

const orderChoice = (v: string): OrderChoice => (v === 'asc' || v === 'desc' ? v : '');

const traitValue = (e: StoredEvent, name: string): string | undefined => e.traits.find((t) => t.name === name)?.value;

/** `2026-11-20T08:15:01.000000` (naive UTC) → `2026-11-20 08:15:01.000 UTC`. */
function timeText(generated: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?/.exec(generated);
  if (!m) return generated;
  return `${m[1]} ${m[2]}${m[3] ? `.${m[3].slice(0, 3).padEnd(3, '0')}` : ''} UTC`;
}

/** A datetime-local value (`YYYY-MM-DDThh:mm[:ss]`) or ISO text, as the input's value (seconds kept). */
function inputTime(v: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2})?)/.exec(v);
  return m ? `${m[1]}T${m[2]}` : '';
}

/** The events page. */
export class StratumEvents extends LitElement {
  static override properties = {
    api: { attribute: false },
    isAdmin: { state: true },
    events: { state: true },
    types: { state: true },
    error: { state: true },
    loading: { state: true },
    more: { state: true },
    expanded: { state: true },
    searched: { state: true },
  };

  api?: Api;
  /** Whether the token is a cloud admin's (who may lift the project restriction with all_tenants). */
  isAdmin = false;
  events: StoredEvent[] = [];
  /** Event types for the type field's suggestions. */
  types: string[] = [];
  error = '';
  loading = false;
  /** Whether a full page came back, so a next page may exist. */
  more = false;
  /** message_ids whose traits are shown. */
  expanded: ReadonlySet<string> = new Set();
  /** The search the results belong to. */
  searched?: Search;

  #loadSeq = 0;

  protected override updated(changed: PropertyValues<this>): void {
    if (changed.has('api') && this.api) void this.#start();
  }

  /** Learns whether the token is a cloud admin's (as the shell does), then loads the types and the URL's search. */
  async #start(): Promise<void> {
    const api = this.api;
    if (!api) return;
    try {
      await api.get('/v3/domain_usage');
      this.isAdmin = true;
    } catch {
      this.isAdmin = false;
    }
    void this.#loadTypes();
    await this.#load();
  }

  async #loadTypes(): Promise<void> {
    if (!this.api) return;
    try {
      this.types = await this.api.get(`${EVENT_TYPES_PATH}${this.isAdmin ? '?all_tenants=true' : ''}`, EventTypes);
    } catch {
      this.types = []; // suggestions only: the field still takes any type
    }
  }

  /** Loads the first page of the URL's search, or (`append`) the next page of the current one. */
  async #load(append = false): Promise<void> {
    if (!this.api) return;
    const search = append && this.searched ? this.searched : searchFromRoute(this.isAdmin);
    const marker = append ? this.events.at(-1)?.message_id : undefined;
    const seq = ++this.#loadSeq;
    this.loading = true;
    this.error = '';
    try {
      const page = await this.api.get(`${EVENTS_PATH}?${eventsQuery(search, this.isAdmin, marker)}`, EventList);
      if (seq !== this.#loadSeq) return; // a newer search answered first
      this.searched = search;
      this.events = append ? [...this.events, ...page] : page;
      this.more = page.length === PAGE_SIZE;
      if (!append) this.expanded = new Set();
    } catch (e) {
      if (seq !== this.#loadSeq) return;
      if (!append) this.events = [];
      this.more = false;
      this.error = e instanceof ApiError ? e.message : e instanceof z.ZodError ? 'Unexpected answer from the API.' : String(e);
    } finally {
      if (seq === this.#loadSeq) this.loading = false;
    }
  }

  /** Puts a search into the URL (shareable) and runs it. */
  #go(s: Partial<Record<Field, string>> & { all_tenants: boolean; order?: OrderChoice }): void {
    const state: Record<string, string | undefined> = {};
    for (const f of FIELDS) state[f] = s[f] || undefined;
    if (this.isAdmin && !s.all_tenants) state.all_tenants = '0';
    state.order = s.order || undefined;
    setRouteParams(state);
    void this.#load();
  }

  #submit(e: SubmitEvent): void {
    e.preventDefault();
    const data = new FormData(e.currentTarget as HTMLFormElement);
    const text = (k: string) => String(data.get(k) ?? '').trim();
    this.#go({
      ...(Object.fromEntries(FIELDS.map((f) => [f, text(f)])) as Record<Field, string>),
      all_tenants: data.get('all_tenants') === 'on',
      order: orderChoice(text('order')),
    });
  }

  #clear(): void {
    this.#go({ all_tenants: this.searched?.all_tenants ?? true });
  }

  /** The timeline of one resource, from an event's resource id. */
  #showTimeline(resourceId: string): void {
    this.#go({ resource_id: resourceId, all_tenants: this.searched?.all_tenants ?? true });
    this.renderRoot.querySelector<HTMLElement>('#events-results-h')?.focus();
  }

  #toggle(id: string): void {
    const next = new Set(this.expanded);
    if (!next.delete(id)) next.add(id);
    this.expanded = next;
  }

  static override styles = [
    shared,
    css`
      form.search {
        display: grid;
        grid-template-columns: repeat(auto-fill, minmax(14rem, 1fr));
        gap: 0.75rem 1rem;
        align-items: end;
      }
      form.search .wide {
        grid-column: span 2;
      }
      .checkbox {
        flex-direction: row;
        align-items: center;
        gap: 0.4rem;
        min-height: 2.2rem;
      }
      .checkbox input {
        min-height: auto;
        width: 1.1rem;
        height: 1.1rem;
      }
      .buttons {
        display: flex;
        flex-wrap: wrap;
        gap: 0.5rem;
        align-items: center;
      }
      .summary {
        margin: 0.75rem 0 0.25rem;
      }
      ol.events {
        list-style: none;
        margin: 0;
        padding: 0;
      }
      ol.events > li {
        border-bottom: 1px solid var(--border);
        padding: 0.35rem 0.25rem;
      }
      /* A timeline: a line down the left, a dot per event. */
      ol.timeline {
        border-left: 3px solid #7aa7f0;
        margin-left: 0.5rem;
      }
      ol.timeline > li {
        position: relative;
        padding-left: 1rem;
        border-bottom: none;
      }
      ol.timeline > li::before {
        content: '';
        position: absolute;
        left: -0.5rem;
        top: 0.85rem;
        width: 0.7rem;
        height: 0.7rem;
        border-radius: 50%;
        background: var(--accent);
        border: 2px solid #fff;
      }
      .head {
        display: flex;
        flex-wrap: wrap;
        gap: 0.25rem 1rem;
        align-items: center;
      }
      .type {
        font-weight: 700;
        word-break: break-word;
      }
      time {
        font-variant-numeric: tabular-nums;
        color: var(--muted);
        white-space: nowrap;
      }
      .mono {
        font-family: ui-monospace, SFMono-Regular, Menlo, monospace;
        word-break: break-all;
      }
      .meta {
        display: flex;
        flex-wrap: wrap;
        gap: 0.25rem 1rem;
        font-size: 0.92em;
        margin-top: 0.2rem;
      }
      button.link {
        background: none;
        border: none;
        color: var(--accent-dark);
        text-decoration: underline;
        padding: 0;
        min-height: auto;
        font: inherit;
        cursor: pointer;
      }
      button.traits {
        margin-left: auto;
        padding: 0.1rem 0.6rem;
        min-height: 1.9rem;
        font-size: 0.9em;
      }
      .traits-table {
        margin-top: 0.4rem;
        overflow-x: auto;
      }
      .traits-table td {
        word-break: break-word;
      }
      @media (max-width: 600px) {
        form.search {
          grid-template-columns: 1fr;
        }
        form.search .wide {
          grid-column: auto;
        }
      }
    `,
  ];

  override render() {
    const s = searchFromRoute(this.isAdmin);
    const order = orderChoice(routeParams().get('order') ?? '');
    return html`
      <h2>Events</h2>
      <form class="search" role="search" aria-label="Search events" @submit=${this.#submit}>
        <div class="field wide">
          <label for="ev-resource">Resource id</label>
          <input id="ev-resource" name="resource_id" data-testid="events-resource" .value=${s.resource_id}
            autocomplete="off" spellcheck="false" aria-describedby="ev-resource-hint" />
          <span id="ev-resource-hint" class="muted">An instance, volume, port… id: shows its timeline, oldest first.</span>
        </div>
        <div class="field">
          <label for="ev-type">Event type</label>
          <input id="ev-type" name="event_type" data-testid="events-type" list="ev-types" .value=${s.event_type}
            autocomplete="off" spellcheck="false" placeholder="e.g. compute.instance.create.end" />
          <datalist id="ev-types">${this.types.map((t) => html`<option value=${t}></option>`)}</datalist>
        </div>
        <div class="field">
          <label for="ev-project">Project id</label>
          <input id="ev-project" name="project_id" data-testid="events-project" .value=${s.project_id}
            autocomplete="off" spellcheck="false" />
        </div>
        <div class="field">
          <label for="ev-start">From (UTC)</label>
          <input id="ev-start" name="start" type="datetime-local" step="1" data-testid="events-start" .value=${inputTime(s.start)} />
        </div>
        <div class="field">
          <label for="ev-end">To (UTC, inclusive)</label>
          <input id="ev-end" name="end" type="datetime-local" step="1" data-testid="events-end" .value=${inputTime(s.end)} />
        </div>
        <div class="field">
          <label for="ev-order">Order</label>
          <select id="ev-order" name="order" data-testid="events-order">
            <option value="" ?selected=${order === ''}>Automatic (a timeline oldest first)</option>
            <option value="asc" ?selected=${order === 'asc'}>Oldest first</option>
            <option value="desc" ?selected=${order === 'desc'}>Newest first</option>
          </select>
        </div>
        ${
          this.isAdmin
            ? html`<div class="field checkbox">
                <input id="ev-all" name="all_tenants" type="checkbox" data-testid="events-all-tenants" .checked=${s.all_tenants} />
                <label for="ev-all">All projects</label>
              </div>`
            : nothing
        }
        <div class="buttons">
          <button type="submit" data-testid="events-search">Search</button>
          <button type="button" class="secondary" @click=${() => this.#clear()}>Clear</button>
        </div>
      </form>
      ${this.error ? html`<p class="error" role="alert" data-testid="events-error">${this.error}</p>` : nothing}
      ${this.#renderResults()}
    `;
  }

  #renderResults() {
    const s = this.searched;
    if (!s) return html`<p class="muted" aria-live="polite">${this.loading ? 'Loading…' : ''}</p>`;
    const timeline = s.resource_id !== '';
    const first = this.events[0];
    const last = this.events.at(-1);
    const heading = timeline ? html`Timeline of <span class="mono">${s.resource_id}</span>` : html`Events`;
    return html`
      <section aria-labelledby="events-results-h">
        <h3 id="events-results-h" tabindex="-1">${heading}</h3>
        <p class="summary muted" aria-live="polite" data-testid="events-summary">
          ${
            this.loading
              ? 'Loading…'
              : this.events.length === 0
                ? 'No events match.'
                : html`${this.events.length}${this.more ? '+' : ''} event${this.events.length === 1 ? '' : 's'},
                    ${s.order === 'asc' ? 'oldest first' : 'newest first'}${
                      first && last ? html`: ${timeText(first.generated)} → ${timeText(last.generated)}` : nothing
                    }.
                    <a href=${location.hash} data-testid="events-link">Link to this search</a>`
          }
        </p>
        <ol class=${timeline ? 'events timeline' : 'events'} data-testid=${timeline ? 'event-timeline' : 'event-list'}
          aria-label=${timeline ? `Events of ${s.resource_id}` : 'Events'}>
          ${this.events.map((e) => this.#renderEvent(e, timeline))}
        </ol>
        ${
          this.more
            ? html`<p><button type="button" class="secondary" data-testid="events-more" ?disabled=${this.loading}
                @click=${() => void this.#load(true)}>More events</button></p>`
            : nothing
        }
      </section>
    `;
  }

  #renderEvent(e: StoredEvent, inTimeline: boolean) {
    const open = this.expanded.has(e.message_id);
    const resource = traitValue(e, 'resource_id');
    const project = traitValue(e, 'project_id') ?? traitValue(e, 'tenant_id');
    const panel = `traits-${e.message_id}`;
    return html`
      <li data-testid="event-row" data-message-id=${e.message_id} data-event-type=${e.event_type}>
        <div class="head">
          <time datetime=${`${e.generated}Z`}>${timeText(e.generated)}</time>
          <span class="type" data-testid="event-type">${e.event_type}</span>
          <button type="button" class="secondary traits" data-testid="event-traits" aria-expanded=${open ? 'true' : 'false'}
            aria-controls=${panel} @click=${() => this.#toggle(e.message_id)}>
            ${open ? 'Hide' : 'Show'} traits (${e.traits.length})
          </button>
        </div>
        <div class="meta">
          ${
            resource
              ? html`<span>Resource:
                  ${
                    inTimeline
                      ? html`<span class="mono">${resource}</span>`
                      : html`<button type="button" class="link mono" data-testid="event-resource"
                          aria-label=${`Timeline of ${resource}`} @click=${() => this.#showTimeline(resource)}>${resource}</button>`
                  }</span>`
              : nothing
          }
          ${project ? html`<span>Project: <span class="mono">${project}</span></span>` : nothing}
        </div>
        ${
          open
            ? html`<div class="traits-table" id=${panel} data-testid="event-traits-table">
                <table>
                  <caption class="visually-hidden">Traits of ${e.event_type} at ${timeText(e.generated)}</caption>
                  <thead><tr><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Value</th></tr></thead>
                  <tbody>
                    ${e.traits.map(
                      (t) => html`<tr data-trait=${t.name}><th scope="row" class="mono">${t.name}</th><td>${t.type}</td>
                        <td class="mono">${t.value}</td></tr>`,
                    )}
                    <tr><th scope="row" class="mono">message_id</th><td>—</td><td class="mono">${e.message_id}</td></tr>
                  </tbody>
                </table>
              </div>`
            : nothing
        }
      </li>
    `;
  }
}

customElements.define('stratum-events', StratumEvents);

declare global {
  interface HTMLElementTagNameMap {
    'stratum-events': StratumEvents;
  }
}
