/**
 * The events page's templates: the search form and one event (its head, resource and project, and its traits when
 * expanded). Pure functions of what they are given; the element (pages/events.ts) holds the state and the API calls.
 */
import { html, nothing } from 'lit';
import { inputTime, type OrderChoice, type Search, type StoredEvent, timeText, traitValue } from './events-query';

/** The search form: resource id, event type (suggested from the API's types), project, time window, order, all projects (admins). */
export function renderSearchForm(v: {
  search: Search;
  order: OrderChoice;
  isAdmin: boolean;
  types: string[];
  onSubmit(e: SubmitEvent): void;
  onClear(): void;
}) {
  return html`
  <form class="search" role="search" aria-label="Search events" @submit=${(e: SubmitEvent) => v.onSubmit(e)}>
    <div class="field wide">
      <label for="ev-resource">Resource id</label>
      <input id="ev-resource" name="resource_id" data-testid="events-resource" .value=${v.search.resource_id}
        autocomplete="off" spellcheck="false" aria-describedby="ev-resource-hint" />
      <span id="ev-resource-hint" class="muted">An instance, volume, port… id: shows its timeline, oldest first.</span>
    </div>
    <div class="field">
      <label for="ev-type">Event type</label>
      <input id="ev-type" name="event_type" data-testid="events-type" list="ev-types" .value=${v.search.event_type}
        autocomplete="off" spellcheck="false" placeholder="e.g. compute.instance.create.end" />
      <datalist id="ev-types">${v.types.map((t) => html`<option value=${t}></option>`)}</datalist>
    </div>
    <div class="field">
      <label for="ev-project">Project id</label>
      <input id="ev-project" name="project_id" data-testid="events-project" .value=${v.search.project_id}
        autocomplete="off" spellcheck="false" />
    </div>
    <div class="field">
      <label for="ev-start">From (UTC)</label>
      <input id="ev-start" name="start" type="datetime-local" step="1" data-testid="events-start" .value=${inputTime(v.search.start)} />
    </div>
    <div class="field">
      <label for="ev-end">To (UTC, inclusive)</label>
      <input id="ev-end" name="end" type="datetime-local" step="1" data-testid="events-end" .value=${inputTime(v.search.end)} />
    </div>
    <div class="field">
      <label for="ev-order">Order</label>
      <select id="ev-order" name="order" data-testid="events-order">
        <option value="" ?selected=${v.order === ''}>Automatic (a timeline oldest first)</option>
        <option value="asc" ?selected=${v.order === 'asc'}>Oldest first</option>
        <option value="desc" ?selected=${v.order === 'desc'}>Newest first</option>
      </select>
    </div>
    ${
      v.isAdmin
        ? html`<div class="field checkbox">
            <input id="ev-all" name="all_tenants" type="checkbox" data-testid="events-all-tenants" .checked=${v.search.all_tenants} />
            <label for="ev-all">All projects</label>
          </div>`
        : nothing
    }
    <div class="buttons">
      <button type="submit" data-testid="events-search">Search</button>
      <button type="button" class="secondary" @click=${() => v.onClear()}>Clear</button>
    </div>
  </form>
  `;
}

/** One event: time, type, a toggle for its traits (a button: Enter and Space work), resource (a link to its timeline) and project. */
export function renderEvent(
  e: StoredEvent,
  v: { open: boolean; inTimeline: boolean; onToggle(): void; onTimeline(resourceId: string): void },
) {
  const { open, inTimeline } = v;
  const resource = traitValue(e, 'resource_id');
  const project = traitValue(e, 'project_id') ?? traitValue(e, 'tenant_id');
  const panel = `traits-${e.message_id}`;
  return html`
    <li data-testid="event-row" data-message-id=${e.message_id} data-event-type=${e.event_type}>
      <div class="head">
        <time datetime=${`${e.generated}Z`}>${timeText(e.generated)}</time>
        <span class="type" data-testid="event-type">${e.event_type}</span>
        <button type="button" class="secondary traits" data-testid="event-traits" aria-expanded=${open ? 'true' : 'false'}
          aria-controls=${panel} @click=${() => v.onToggle()}>
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
                        aria-label=${`Timeline of ${resource}`} @click=${() => v.onTimeline(resource)}>${resource}</button>`
                }</span>`
            : nothing
        }
        ${project ? html`<span>Project: <span class="mono">${project}</span></span>` : nothing}
      </div>
      ${
        open
          ? html`<div class="traits-table" id=${panel} data-testid="event-traits-table" tabindex="0" role="region"
              aria-label=${`Traits of ${e.event_type}`}>
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
