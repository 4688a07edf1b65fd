/**
 * `<stratum-events>`: the event trail (docs/api/events.md). Search by resource id, event type, project and time
 * window with Panko's simple query (A3, `GET /v2/events?q.field=…&q.op=…&q.value=…`), and a resource's timeline
 * (oldest first: e.g. an instance from create to delete), each event's traits expandable. The search lives in the
 * hash (`#/events?resource_id=…&event_type=…&project_id=…&start=…&end=…`) so it can be shared; the token never does.
 * The search and query are events-query.ts, the templates events-views.ts.
 */
import { html, LitElement, nothing, type PropertyValues } from 'lit';
import { type Api, errorMessage } from '../api';
import { routeParams, setRouteParams } from '../app';
import {
  EVENT_TYPES_PATH,
  EVENTS_PATH,
  EventList,
  EventTypes,
  eventsQuery,
  FIELDS,
  type Field,
  type OrderChoice,
  orderChoice,
  PAGE_SIZE,
  routeStateOf,
  type Search,
  type StoredEvent,
  searchFromRoute,
  timeText,
} from './events-query';
import { eventsStyles } from './events-styles';
import { renderEvent, renderSearchForm } from './events-views';
import { pageOf } from './paging';

/** The events page. */
export class StratumEvents extends LitElement {
  static override properties = {
    api: { attribute: false },
    isAdmin: { attribute: false },
    events: { state: true },
    types: { state: true },
    error: { state: true },
    loading: { state: true },
    more: { state: true },
    expanded: { state: true },
    searched: { state: true },
  };

  api?: Api;
  /** Whether the token is a cloud admin's (who may lift the project restriction with all_tenants): the shell's, from sign-in. */
  isAdmin = false;
  events: StoredEvent[] = [];
  /** Event types for the type field's suggestions. */
  types: string[] = [];
  error = '';
  loading = false;
  /** Whether more events match than are shown (the extra row of FETCH_LIMIT came back). */
  more = false;
  /** message_ids whose traits are shown. */
  expanded: ReadonlySet<string> = new Set();
  /** The search the results belong to. */
  searched?: Search;

  #loadSeq = 0;

  protected override updated(changed: PropertyValues<this>): void {
    if (changed.has('api') && this.api) {
      void this.#loadTypes();
      void this.#load();
    }
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
    const search = append && this.searched ? this.searched : searchFromRoute(routeParams(), this.isAdmin);
    const marker = append ? this.events.at(-1)?.message_id : undefined;
    const seq = ++this.#loadSeq;
    this.loading = true;
    this.error = '';
    try {
      const page = await this.api.get(`${EVENTS_PATH}?${eventsQuery(search, this.isAdmin, marker)}`, EventList);
      if (seq !== this.#loadSeq) return; // a newer search answered first
      const { rows, more } = pageOf(page, PAGE_SIZE);
      this.searched = search;
      this.events = append ? [...this.events, ...rows] : rows;
      this.more = more;
      if (!append) this.expanded = new Set();
    } catch (e) {
      if (seq !== this.#loadSeq) return;
      if (!append) this.events = [];
      this.more = false;
      this.error = errorMessage(e);
    } finally {
      if (seq === this.#loadSeq) this.loading = false;
    }
  }

  /** Puts a search into the URL (shareable) and runs it. */
  #go(s: Partial<Record<Field, string>> & { all_tenants: boolean; order?: OrderChoice }): void {
    setRouteParams(routeStateOf(s, this.isAdmin));
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

  static override styles = eventsStyles;

  override render() {
    const route = routeParams();
    const s = searchFromRoute(route, this.isAdmin);
    const order = orderChoice(route.get('order') ?? '');
    return html`
      <h2>Events</h2>
      ${renderSearchForm({
        search: s,
        order,
        isAdmin: this.isAdmin,
        types: this.types,
        onSubmit: (e) => this.#submit(e),
        onClear: () => this.#clear(),
      })}
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
          ${this.events.map((e) =>
            renderEvent(e, {
              open: this.expanded.has(e.message_id),
              inTimeline: timeline,
              onToggle: () => this.#toggle(e.message_id),
              onTimeline: (id) => this.#showTimeline(id),
            }),
          )}
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
}

customElements.define('stratum-events', StratumEvents);

declare global {
  interface HTMLElementTagNameMap {
    'stratum-events': StratumEvents;
  }
}
