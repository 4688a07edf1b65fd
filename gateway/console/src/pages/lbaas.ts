/**
 * `<stratum-lbaas>`: load balancer quotas (docs/api/lbaas-quota.md). The deployment defaults (B2), the paged list of
 * project records (B1, following `quotas_links`), search by project id, one project's limits and in_use, and set (PUT)
 * and reset (B4) behind a confirmation step. State lives in the hash (`#/lbaas?project_id=…&marker=…&page_reverse=…`)
 * so a view can be shared; the token never goes there.
 */
import { LBAAS_DISPLAY_NAME, LBAAS_IN_USE_NAME, LBAAS_RESOURCES, type LbaasResource, QuotaLimit } from '@stratum/quota-items';
import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import { z } from 'zod';
import { type Api, ApiError } from '../api';
import { routeParams, setRouteParams } from '../app';
import { formatNumber } from '../format';
import { shared } from '../styles';

/** Canonical root of Octavia's quota controller, served by the gateway (docs/api/lbaas-quota.md). */
const ROOT = '/v2.0/lbaas/quotas';
const PAGE_SIZES = [10, 20, 50, 100] as const;
const DEFAULT_PAGE_SIZE = 20;

const limits = <T extends z.ZodType>(schema: T) =>
  z.object(Object.fromEntries(LBAAS_RESOURCES.map((r) => [r, schema])) as Record<LbaasResource, T>);

/** `{"quota": {…}}` of B2, B3 and PUT: effective limits (null resolved to the default). */
const SingleQuota = z.object({ quota: limits(QuotaLimit).partial() });
/** A B1 list item: stored limits (null = the default) and in_use counts (`in_use_<resource>`). */
const ListItem = limits(QuotaLimit.nullable()).partial().extend({ project_id: z.string() }).catchall(z.unknown());
const QuotaList = z.object({
  quotas: z.array(ListItem),
  quotas_links: z.array(z.object({ href: z.string(), rel: z.string() })).default([]),
});

type Limits = Partial<Record<LbaasResource, number>>;
type Item = z.infer<typeof ListItem>;
/** Where a page link leads: the list query it carries. */
interface PageLink {
  marker: string;
  reverse: boolean;
}
/** A write waiting for the operator's confirmation. */
type Pending = { kind: 'save'; changes: Partial<Record<LbaasResource, number | null>> } | { kind: 'reset'; force: boolean };

/** -1 reads "unlimited"; null/undefined "default". */
function limitText(v: number | null | undefined, dflt?: number): string {
  if (v === null || v === undefined) return dflt === undefined ? 'default' : `default (${limitText(dflt)})`;
  return formatNumber(v);
}

const inUseOf = (item: Item | undefined, r: LbaasResource): number | undefined => {
  const v = item?.[LBAAS_IN_USE_NAME[r]];
  return typeof v === 'number' ? v : undefined;
};

/** A page link's marker and direction, read from its href (any origin: only the query matters). */
function pageLink(links: { href: string; rel: string }[], rel: 'next' | 'previous'): PageLink | undefined {
  const link = links.find((l) => l.rel === rel);
  if (!link) return undefined;
  const q = new URL(link.href, location.href).searchParams;
  const marker = q.get('marker');
  if (!marker) return undefined;
  return { marker, reverse: /^(1|t|true|y|yes|on)$/i.test(q.get('page_reverse') ?? '') };
}

/** Parses the edit field of one resource: '' = default (null); else an integer in [-1, 2000000000]. */
function parseLimit(raw: string): { ok: true; value: number | null } | { ok: false; error: string } {
  const t = raw.trim().toLowerCase();
  if (t === '') return { ok: true, value: null };
  if (t === 'unlimited') return { ok: true, value: -1 };
  if (!/^-?\d+$/.test(t)) return { ok: false, error: 'a whole number, -1 for unlimited, or empty for the default' };
  const n = Number(t);
  const r = QuotaLimit.safeParse(n);
  return r.success ? { ok: true, value: n } : { ok: false, error: 'between -1 (unlimited) and 2000000000' };
}

/** The load balancer quotas page. */
export class StratumLbaas extends LitElement {
  static override properties = {
    api: { attribute: false },
    defaults: { state: true },
    defaultsError: { state: true },
    items: { state: true },
    next: { state: true },
    prev: { state: true },
    listError: { state: true },
    loading: { state: true },
    selected: { state: true },
    selectedLimits: { state: true },
    selectedRecord: { state: true },
    detailError: { state: true },
    draft: { state: true },
    draftErrors: { state: true },
    pending: { state: true },
    message: { state: true },
    busy: { state: true },
    offerForce: { state: true },
  };

  api?: Api;
  defaults?: Limits;
  defaultsError = '';
  items: Item[] = [];
  next?: PageLink;
  prev?: PageLink;
  listError = '';
  loading = false;
  /** The project whose detail is open. */
  selected?: string;
  selectedLimits?: Limits;
  /** The open project's list record (stored limits, in_use); undefined when it has none. */
  selectedRecord?: Item;
  detailError = '';
  /** Edit fields, by resource; undefined while not editing. */
  draft?: Partial<Record<LbaasResource, string>>;
  draftErrors: Partial<Record<LbaasResource, string>> = {};
  pending?: Pending;
  /** Outcome of the last write, announced politely. */
  message = '';
  busy = false;
  /** Set after a reset refused with 409 (usage above a default): offers the forced reset. */
  offerForce = false;

  /** The list query last loaded, so an unchanged route does not reload. */
  #query = '';

  protected override updated(changed: PropertyValues<this>): void {
    // Keyboard users land on the confirmation as soon as it appears.
    if (changed.has('pending') && this.pending) this.renderRoot.querySelector<HTMLButtonElement>('[data-testid="confirm"]')?.focus();
    if (changed.has('api') && this.api) {
      this.#query = '';
      void this.#loadDefaults();
      this.#syncFromRoute();
    }
  }

  /**
   * Loads the list when the hash's list state changed. The shell makes a fresh page on every navigation, and
   * setRouteParams fires no hashchange, so the page's own actions call this after changing the route.
   */
  #syncFromRoute(): void {
    if (!this.api) return;
    const p = routeParams();
    const q = ['project_id', 'marker', 'page_reverse', 'limit'].map((k) => `${k}=${p.get(k) ?? ''}`).join('&');
    if (q === this.#query) return;
    this.#query = q;
    void this.#loadList();
  }

  /** Puts the list state into the URL and loads it. */
  #go(state: Record<string, string | undefined>): void {
    setRouteParams(state);
    this.#syncFromRoute();
  }

  #pageSize(): number {
    const n = Number(routeParams().get('limit'));
    return Number.isInteger(n) && n > 0 && n <= 1000 ? n : DEFAULT_PAGE_SIZE;
  }

  async #loadDefaults(): Promise<void> {
    if (!this.api) return;
    try {
      this.defaults = (await this.api.get(`${ROOT}/defaults`, SingleQuota)).quota;
      this.defaultsError = '';
    } catch (e) {
      this.defaultsError = errorMessage(e);
    }
  }

  async #loadList(): Promise<void> {
    if (!this.api) return;
    const p = routeParams();
    const q = new URLSearchParams({ limit: String(this.#pageSize()) });
    const project = p.get('project_id')?.trim();
    if (project) q.set('project_id', project);
    const marker = p.get('marker');
    if (marker && !project) {
      q.set('marker', marker);
      if (p.get('page_reverse') === 'true') q.set('page_reverse', 'True');
    }
    this.loading = true;
    try {
      const list = await this.api.get(`${ROOT}?${q}`, QuotaList);
      this.items = list.quotas;
      this.next = pageLink(list.quotas_links, 'next');
      this.prev = pageLink(list.quotas_links, 'previous');
      this.listError = '';
      // A search by project id opens that project, whether or not it has a record (no record: the defaults apply).
      if (project && this.selected !== project) void this.#open(project);
    } catch (e) {
      this.items = [];
      this.next = this.prev = undefined;
      this.listError = errorMessage(e);
    } finally {
      this.loading = false;
    }
  }

  /** Opens one project's detail. */
  async #open(projectId: string): Promise<void> {
    this.selected = projectId;
    this.selectedLimits = undefined;
    this.selectedRecord = this.items.find((i) => i.project_id === projectId);
    this.detailError = '';
    this.draft = undefined;
    this.pending = undefined;
    this.message = '';
    this.offerForce = false;
    await this.#refreshDetail(projectId);
  }

  /**
   * Reads the open project's effective limits (B3) and its stored record (B1 with `project_id`: limits as stored and
   * in_use), whichever page of the list is shown.
   */
  async #refreshDetail(projectId: string): Promise<void> {
    if (!this.api) return;
    try {
      const [single, list] = await Promise.all([
        this.api.get(`${ROOT}/${encodeURIComponent(projectId)}`, SingleQuota),
        this.api.get(`${ROOT}?${new URLSearchParams({ project_id: projectId })}`, QuotaList),
      ]);
      if (this.selected !== projectId) return; // another project was opened meanwhile
      this.selectedLimits = single.quota;
      this.selectedRecord = list.quotas.find((i) => i.project_id === projectId);
    } catch (e) {
      this.detailError = errorMessage(e);
    }
  }

  /** The stored record of the open project (undefined: it has none, the defaults apply). */
  #selectedItem(): Item | undefined {
    return this.selectedRecord;
  }

  #search(e: SubmitEvent): void {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const value = String(new FormData(form).get('project_id') ?? '').trim();
    this.#go({ project_id: value || undefined, limit: routeParams().get('limit') ?? undefined });
    if (!value) this.selected = undefined;
  }

  #clearSearch(): void {
    this.selected = undefined;
    this.#go({ limit: routeParams().get('limit') ?? undefined });
  }

  #page(link: PageLink): void {
    this.#go({ marker: link.marker, page_reverse: link.reverse ? 'true' : undefined, limit: routeParams().get('limit') ?? undefined });
  }

  #setPageSize(e: Event): void {
    const size = (e.target as HTMLSelectElement).value;
    const p = routeParams();
    this.#go({ project_id: p.get('project_id') ?? undefined, limit: size === String(DEFAULT_PAGE_SIZE) ? undefined : size });
  }

  #startEdit(): void {
    const item = this.#selectedItem();
    this.draft = Object.fromEntries(
      LBAAS_RESOURCES.map((r) => {
        const stored = item ? item[r] : null;
        return [r, stored === null || stored === undefined ? '' : String(stored)];
      }),
    );
    this.draftErrors = {};
    this.pending = undefined;
    this.message = '';
  }

  /** Validates the form and asks for confirmation of the changed limits only (an omitted key stays unchanged). */
  #askSave(e: SubmitEvent): void {
    e.preventDefault();
    if (!this.draft) return;
    const item = this.#selectedItem();
    const errors: Partial<Record<LbaasResource, string>> = {};
    const changes: Partial<Record<LbaasResource, number | null>> = {};
    for (const r of LBAAS_RESOURCES) {
      const parsed = parseLimit(this.draft[r] ?? '');
      if (!parsed.ok) {
        errors[r] = parsed.error;
        continue;
      }
      const before = item ? (item[r] ?? null) : null;
      if (parsed.value !== before) changes[r] = parsed.value;
    }
    this.draftErrors = errors;
    if (Object.keys(errors).length > 0) {
      const first = LBAAS_RESOURCES.find((r) => errors[r]);
      this.renderRoot.querySelector<HTMLInputElement>(`#limit-${first}`)?.focus();
      return;
    }
    if (Object.keys(changes).length === 0) {
      this.message = 'Nothing changed.';
      return;
    }
    this.pending = { kind: 'save', changes };
  }

  #askReset(force = false): void {
    this.pending = { kind: 'reset', force };
    this.message = '';
    this.detailError = '';
  }

  async #confirm(): Promise<void> {
    const pending = this.pending;
    const project = this.selected;
    if (!this.api || !pending || !project) return;
    const path = `${ROOT}/${encodeURIComponent(project)}`;
    this.busy = true;
    this.detailError = '';
    try {
      if (pending.kind === 'save') {
        await this.api.send('PUT', path, { quota: pending.changes });
        this.message = `Saved the quotas of ${project}.`;
      } else {
        await this.api.send('DELETE', pending.force ? `${path}?force=true` : path);
        this.message = `Reset the quotas of ${project} to the defaults.`;
      }
      this.draft = undefined;
      this.pending = undefined;
      await Promise.all([this.#refreshDetail(project), this.#loadList()]);
    } catch (e) {
      this.pending = undefined;
      this.detailError = errorMessage(e);
      // A reset refused because usage is above a default can be forced, after a second confirmation.
      if (pending.kind === 'reset' && !pending.force && e instanceof ApiError && e.status === 409) this.offerForce = true;
    } finally {
      this.busy = false;
    }
  }

  #cancel(): void {
    this.pending = undefined;
  }

  static override styles = [
    shared,
    css`
      section {
        margin-bottom: 1.5rem;
      }
      .toolbar {
        display: flex;
        flex-wrap: wrap;
        gap: 0.5rem 1rem;
        align-items: flex-end;
      }
      table.list {
        min-width: 48rem;
      }
      caption {
        text-align: left;
        padding: 0.25rem 0;
      }
      td.num,
      th.num {
        text-align: right;
      }
      tr.selected > * {
        background: #e8f0fe;
      }
      .mono {
        font-family: ui-monospace, SFMono-Regular, Menlo, monospace;
        word-break: break-all;
      }
      .defaults {
        display: grid;
        grid-template-columns: repeat(auto-fill, minmax(10rem, 1fr));
        gap: 0.5rem;
        margin: 0;
      }
      .defaults div {
        border: 1px solid var(--border);
        border-radius: 4px;
        padding: 0.4rem 0.6rem;
      }
      .defaults dt {
        color: var(--muted);
        font-size: 0.9em;
      }
      .defaults dd {
        margin: 0;
        font-weight: 600;
        font-variant-numeric: tabular-nums;
      }
      .grid {
        display: grid;
        grid-template-columns: repeat(auto-fill, minmax(13rem, 1fr));
        gap: 0.75rem;
      }
      .hint {
        color: var(--muted);
        font-size: 0.9em;
      }
      .field-error {
        color: var(--bad);
        font-size: 0.9em;
      }
      .confirm {
        border: 2px solid var(--bad);
        border-radius: 6px;
        padding: 0.75rem;
        margin-top: 0.75rem;
      }
      .detail {
        border: 1px solid var(--border);
        border-radius: 6px;
        padding: 0.75rem;
      }
      .buttons {
        display: flex;
        flex-wrap: wrap;
        gap: 0.5rem;
        margin-top: 0.5rem;
        align-items: center;
      }
      ul.changes {
        margin: 0.5rem 0;
      }
      @media (max-width: 600px) {
        .toolbar {
          flex-direction: column;
          align-items: stretch;
        }
      }
    `,
  ];

  override render() {
    const p = routeParams();
    const project = p.get('project_id') ?? '';
    return html`
      <h2>Load balancer quotas</h2>
      <section aria-labelledby="lb-defaults-h">
        <h3 id="lb-defaults-h">Deployment defaults</h3>
        ${this.defaultsError ? html`<p class="error" role="alert">${this.defaultsError}</p>` : nothing}
        <dl class="defaults" data-testid="lbaas-defaults">
          ${LBAAS_RESOURCES.map(
            (r) =>
              html`<div data-resource=${r}><dt>${LBAAS_DISPLAY_NAME[r]}</dt><dd>${this.defaults ? limitText(this.defaults[r]) : '…'}</dd></div>`,
          )}
        </dl>
        <p class="hint">-1 means unlimited; a project without its own limit uses the default.</p>
      </section>

      <section aria-labelledby="lb-list-h">
        <h3 id="lb-list-h">Projects</h3>
        <form class="toolbar" role="search" @submit=${this.#search}>
          <div class="field">
            <label for="lb-project">Project id</label>
            <input id="lb-project" name="project_id" data-testid="lbaas-search" .value=${project} autocomplete="off" spellcheck="false" />
          </div>
          <button type="submit" class="primary" data-testid="lbaas-search-submit">Search</button>
          ${project ? html`<button type="button" class="secondary" @click=${this.#clearSearch}>Show all</button>` : nothing}
          <div class="field">
            <label for="lb-size">Rows per page</label>
            <select id="lb-size" @change=${this.#setPageSize}>
              ${[...new Set([...PAGE_SIZES, this.#pageSize()])]
                .sort((a, b) => a - b)
                .map((n) => html`<option value=${n} ?selected=${n === this.#pageSize()}>${n}</option>`)}
            </select>
          </div>
        </form>
        ${this.listError ? html`<p class="error" role="alert" data-testid="lbaas-error">${this.listError}</p>` : nothing}
        <div class="scroll">${this.#renderTable()}</div>
        <div class="buttons">
          <button type="button" class="secondary" data-testid="lbaas-prev" ?disabled=${!this.prev} @click=${() => this.prev && this.#page(this.prev)}>
            ← Previous page
          </button>
          <button type="button" class="secondary" data-testid="lbaas-next" ?disabled=${!this.next} @click=${() => this.next && this.#page(this.next)}>
            Next page →
          </button>
          <span class="muted" aria-live="polite">${this.loading ? 'Loading…' : `${this.items.length} shown`}</span>
        </div>
      </section>

      ${this.selected ? this.#renderDetail(this.selected) : nothing}
    `;
  }

  #renderTable() {
    if (!this.loading && this.items.length === 0) {
      const project = routeParams().get('project_id');
      return html`<p class="muted">${project ? `No quota record for ${project}: the defaults apply.` : 'No project has its own quota record.'}</p>`;
    }
    return html`
      <table class="list">
        <caption class="muted">In use / limit per resource</caption>
        <thead>
          <tr>
            <th scope="col">Project</th>
            ${LBAAS_RESOURCES.map((r) => html`<th scope="col">${LBAAS_DISPLAY_NAME[r]}</th>`)}
            <th scope="col"><span class="visually-hidden">Actions</span></th>
          </tr>
        </thead>
        <tbody>
          ${this.items.map(
            (item) => html`
              <tr data-testid="lbaas-row" data-project-id=${item.project_id} class=${item.project_id === this.selected ? 'selected' : ''}>
                <th scope="row" class="mono">${item.project_id}</th>
                ${LBAAS_RESOURCES.map(
                  (r) => html`<td data-resource=${r}>${inUseOf(item, r) ?? 0} / ${limitText(item[r], this.defaults?.[r])}</td>`,
                )}
                <td>
                  <button
                    type="button"
                    class="secondary"
                    data-testid="lbaas-edit"
                    aria-label=${`Open the quotas of ${item.project_id}`}
                    @click=${() => {
                      void this.#open(item.project_id).then(() => this.#startEdit());
                    }}
                  >
                    Edit
                  </button>
                </td>
              </tr>
            `,
          )}
        </tbody>
      </table>
    `;
  }

  #renderDetail(projectId: string) {
    const item = this.#selectedItem();
    const eff = this.selectedLimits;
    return html`
      <section class="detail" aria-labelledby="lb-detail-h" data-testid="lbaas-detail" data-project-id=${projectId}>
        <h3 id="lb-detail-h">Project <span class="mono">${projectId}</span></h3>
        ${item ? nothing : html`<p class="muted">No quota record yet: the defaults apply, nothing counted in use.</p>`}
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Resource</th>
                <th scope="col">Limit</th>
                <th scope="col">Stored</th>
                <th scope="col">In use</th>
              </tr>
            </thead>
            <tbody>
              ${LBAAS_RESOURCES.map(
                (r) => html`
                  <tr data-resource=${r}>
                    <th scope="row">${LBAAS_DISPLAY_NAME[r]}</th>
                    <td data-testid="lbaas-limit">${eff ? limitText(eff[r]) : '…'}</td>
                    <td>${item ? limitText(item[r]) : 'default'}</td>
                    <td data-testid="lbaas-in-use">${inUseOf(item, r) ?? 0}</td>
                  </tr>
                `,
              )}
            </tbody>
          </table>
        </div>
        <p aria-live="polite" class="ok" data-testid="lbaas-message">${this.message}</p>
        ${this.detailError ? html`<p class="error" role="alert" data-testid="lbaas-error">${this.detailError}</p>` : nothing}
        <div class="buttons">
          ${this.draft ? nothing : html`<button type="button" class="secondary" @click=${() => this.#startEdit()}>Edit limits</button>`}
          <button type="button" class="danger" data-testid="lbaas-reset" ?disabled=${this.busy} @click=${() => this.#askReset(false)}>
            Reset to defaults…
          </button>
          ${
            this.offerForce && !this.pending
              ? html`<button type="button" class="danger" data-testid="lbaas-force-reset" @click=${() => {
                  this.offerForce = false;
                  this.#askReset(true);
                }}>Reset anyway (force)…</button>`
              : nothing
          }
          <button type="button" class="secondary" @click=${() => this.#close()}>Close</button>
        </div>
        ${this.draft ? this.#renderForm() : nothing} ${this.pending ? this.#renderConfirm(projectId, this.pending) : nothing}
      </section>
    `;
  }

  #close(): void {
    this.selected = undefined;
    this.draft = undefined;
    this.pending = undefined;
    this.offerForce = false;
  }

  #renderForm() {
    const draft = this.draft ?? {};
    return html`
      <form @submit=${this.#askSave} novalidate>
        <h4>Set limits</h4>
        <p class="hint" id="lb-limit-hint">A whole number; -1 for unlimited; empty for the deployment default.</p>
        <div class="grid">
          ${LBAAS_RESOURCES.map(
            (r) => html`
              <div class="field">
                <label for=${`limit-${r}`}>${LBAAS_DISPLAY_NAME[r]}</label>
                <input
                  id=${`limit-${r}`}
                  data-testid=${`lbaas-limit-${r}`}
                  inputmode="numeric"
                  autocomplete="off"
                  placeholder=${`default (${limitText(this.defaults?.[r])})`}
                  aria-describedby=${this.draftErrors[r] ? `limit-${r}-err` : 'lb-limit-hint'}
                  aria-invalid=${this.draftErrors[r] ? 'true' : 'false'}
                  .value=${draft[r] ?? ''}
                  @input=${(e: Event) => {
                    this.draft = { ...this.draft, [r]: (e.target as HTMLInputElement).value };
                  }}
                />
                ${this.draftErrors[r] ? html`<span class="error" id=${`limit-${r}-err`}>${this.draftErrors[r]}</span>` : nothing}
              </div>
            `,
          )}
        </div>
        <div class="buttons">
          <button type="submit" class="primary" data-testid="lbaas-save" ?disabled=${this.busy}>Save…</button>
          <button type="button" class="secondary" @click=${() => {
            this.draft = undefined;
            this.pending = undefined;
          }}>Cancel</button>
        </div>
      </form>
    `;
  }

  #renderConfirm(projectId: string, pending: Pending) {
    const what =
      pending.kind === 'save'
        ? html`Set these limits of <span class="mono">${projectId}</span>?
            <ul class="changes">
              ${Object.entries(pending.changes).map(
                ([r, v]) => html`<li>${LBAAS_DISPLAY_NAME[r as LbaasResource]}: ${limitText(v, this.defaults?.[r as LbaasResource])}</li>`,
              )}
            </ul>`
        : html`Reset every limit of <span class="mono">${projectId}</span> to the deployment default${pending.force ? ', even though usage is above a default' : ''}?`;
    return html`
      <div class="confirm" role="alertdialog" aria-labelledby="lb-confirm-text" data-testid="lbaas-confirm">
        <p id="lb-confirm-text">${what}</p>
        <div class="buttons">
          <button type="button" class="danger" data-testid="confirm" ?disabled=${this.busy} @click=${() => void this.#confirm()}>
            ${pending.kind === 'save' ? 'Yes, save' : 'Yes, reset'}
          </button>
          <button type="button" class="secondary" @click=${() => this.#cancel()}>Cancel</button>
        </div>
      </div>
    `;
  }

  protected override firstUpdated(): void {
    this.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && this.pending) this.#cancel();
    });
  }
}

/** The API's text for an error, else the exception's. */
function errorMessage(e: unknown): string {
  if (e instanceof ApiError) return e.message;
  if (e instanceof z.ZodError) return 'Unexpected answer from the API.';
  return e instanceof Error ? e.message : String(e);
}

customElements.define('stratum-lbaas', StratumLbaas);

declare global {
  interface HTMLElementTagNameMap {
    'stratum-lbaas': StratumLbaas;
  }
}
