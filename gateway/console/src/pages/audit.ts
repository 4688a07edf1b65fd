/**
 * `<stratum-audit>` (`#/audit?domain_id=…&limit=…&marker=…&before=…`): a department's audit trail, newest first, a page at a
 * time (GET /v3/domain_quotas/{domain_id}/audit?limit&marker, docs/api/domain-quota.md "Audit log"); `limit` (1 to
 * 1000, the API's range) is the page size, 50 when absent. The pager state and query are audit-model.ts.
 */
import { css, html, LitElement, nothing, type TemplateResult } from 'lit';
import { type Api, errorMessage } from '../api';
import { routeParams, setRouteParams } from '../app';
import { formatTime } from '../format';
import { cards, shared } from '../styles';
import { AuditBody, auditQuery, changeText, type Entry, pagerOf, routeStateOf } from './audit-model';
import { pageOf } from './paging';

/** The audit trail page. */
export class AuditPage extends LitElement {
  static override properties = {
    api: { attribute: false },
    domainId: { state: true },
    entries: { state: true },
    markers: { state: true },
    older: { state: true },
    loading: { state: true },
    error: { state: true },
  };

  static override styles = [
    shared,
    css`
      .refused { color: var(--bad); font-weight: 600; }
      .accepted { color: var(--ok); font-weight: 600; }
      .pager { display: flex; gap: 0.5rem; margin-top: 0.75rem; }
      #domain { width: 24rem; max-width: 100%; }
      .who { word-break: break-all; }
      @media (max-width: 600px) {
        .row .field { flex: 1 1 100%; }
        #domain { width: 100%; }
      }
    `,
    // A narrow screen: each entry a card of labelled lines instead of a table wider than the screen.
    cards,
  ];

  declare api: Api | undefined;
  declare domainId: string;
  declare entries: Entry[];
  /** Markers of the pages before the current one (the first page has none). */
  declare markers: string[];
  /** Whether a page older than this one exists. */
  declare older: boolean;
  declare loading: boolean;
  declare error: string;
  /** Entries per page, from the route. */
  readonly pageSize: number;

  constructor() {
    super();
    const pager = pagerOf(routeParams());
    this.pageSize = pager.pageSize;
    this.domainId = pager.domainId;
    this.markers = pager.markers;
    this.entries = [];
    this.older = false;
    this.loading = false;
    this.error = '';
  }

  override connectedCallback(): void {
    super.connectedCallback();
    if (this.domainId) void this.load();
  }

  /** Loads the page after the last marker (the first page without one). */
  async load(): Promise<void> {
    const api = this.api;
    if (!api || !this.domainId) return;
    this.loading = true;
    this.error = '';
    const pager = { domainId: this.domainId, pageSize: this.pageSize, markers: this.markers };
    setRouteParams(routeStateOf(pager));
    try {
      const q = auditQuery(pager);
      const body = await api.get(`/v3/domain_quotas/${encodeURIComponent(this.domainId)}/audit?${q}`, AuditBody);
      ({ rows: this.entries, more: this.older } = pageOf(body.audit, this.pageSize));
    } catch (e) {
      this.entries = [];
      this.older = false;
      this.error = errorMessage(e);
    } finally {
      this.loading = false;
    }
  }

  #submit(e: SubmitEvent): void {
    e.preventDefault();
    const input = (e.target as HTMLFormElement).querySelector('input');
    this.domainId = input?.value.trim() ?? '';
    this.markers = [];
    void this.load();
  }

  #older(): void {
    const last = this.entries.at(-1);
    if (!last) return;
    this.markers = [...this.markers, last._id];
    void this.load();
  }

  #newer(): void {
    this.markers = this.markers.slice(0, -1);
    void this.load();
  }

  override render(): TemplateResult {
    return html`<h1>Audit trail</h1>
      <p><a href="#/departments">← Departments</a></p>
      <form class="row" @submit=${this.#submit}>
        <div class="field">
          <label for="domain">Department id</label>
          <input id="domain" data-testid="audit-domain" .value=${this.domainId} required />
        </div>
        <button type="submit" data-testid="audit-show">Show</button>
        <span role="status" class="muted">${this.loading ? 'Loading…' : ''}</span>
      </form>
      ${this.error ? html`<p class="error" role="alert">${this.error}</p>` : nothing}
      ${
        this.domainId && !this.loading && !this.error && this.entries.length === 0
          ? html`<p class="muted">No entries${this.markers.length > 0 ? ' on this page' : ''}.</p>`
          : nothing
      }
      ${
        this.entries.length > 0
          ? html`<div class="scroll" tabindex="0" role="region" aria-label=${`Audit entries of ${this.domainId}`}><table class="entries cards">
            <caption class="visually-hidden">Audit entries of ${this.domainId}, newest first</caption>
            <thead><tr><th scope="col">When</th><th scope="col">Region</th><th scope="col">Item</th><th scope="col">Change</th>
              <th scope="col">Outcome</th><th scope="col">Who</th><th scope="col">Project</th></tr></thead>
            <tbody>
              ${this.entries.map(
                (e) => html`<tr data-testid="audit-row" data-entry-id=${e._id}>
                  <td data-label="When" title=${e.at}>${formatTime(e.at)}</td>
                  <td data-label="Region">${e.region ?? '–'}</td>
                  <td data-label="Item">${e.item ?? '(request)'}</td>
                  <td data-label="Change" class="num">${changeText(e)}</td>
                  <td data-label="Outcome"><span class=${e.outcome === 'refused' ? 'refused' : 'accepted'}>${e.outcome}</span>
                    ${e.reason ? html`<div class="muted">${e.reason}${e.message ? `: ${e.message}` : ''}</div>` : nothing}</td>
                  <td data-label="Who" class="who">${e.user_id ?? '–'}${e.request_id ? html`<div class="muted">${e.request_id}</div>` : nothing}</td>
                  <td data-label="Project">${e.project_id ?? '–'}</td>
                </tr>`,
              )}
            </tbody>
          </table></div>`
          : nothing
      }
      <div class="pager">
        <button type="button" class="secondary" ?disabled=${this.markers.length === 0 || this.loading} data-testid="audit-newer" @click=${this.#newer}>Newer</button>
        <button type="button" class="secondary" ?disabled=${!this.older || this.loading} data-testid="audit-older" @click=${this.#older}>Older</button>
      </div>`;
  }
}

customElements.define('stratum-audit', AuditPage);
