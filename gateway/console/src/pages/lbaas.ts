/**
 * `<stratum-lbaas>`: load balancer quotas (docs/api/lbaas-quota.md). The deployment defaults (B2), the paged list of
 * project records (B1, following `quotas_links`), search by project id, one project's limits and in_use, and set (PUT)
 * and reset (B4) behind a confirmation step. State lives in the hash (`#/lbaas?project_id=…&marker=…&page_reverse=…`)
 * so a view can be shared; the token never goes there. The model is lbaas-model.ts, the templates lbaas-views.ts.
 */
import { LBAAS_RESOURCES, type LbaasResource } from '@stratum/quota-items';
import { html, LitElement, nothing, type PropertyValues } from 'lit';
import { type Api, ApiError, errorMessage } from '../api';
import { routeParams, setRouteParams } from '../app';
import { readDefaults, readList, readProject, write } from './lbaas-api';
import { changesOf, DEFAULT_PAGE_SIZE, draftOf, type Item, type Limits, type PageLink, type Pending, pageSizeOf } from './lbaas-model';
import { lbaasStyles } from './lbaas-styles';
import { renderDefaults, renderDetail, renderList } from './lbaas-views';

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
  /** Navigates to `state`, keeping the route's page size unless `state` names one. */
  #go(state: Record<string, string | undefined>): void {
    setRouteParams('limit' in state ? state : { ...state, limit: routeParams().get('limit') ?? undefined });
    this.#syncFromRoute();
  }

  #pageSize(): number {
    return pageSizeOf(routeParams());
  }

  async #loadDefaults(): Promise<void> {
    if (!this.api) return;
    try {
      this.defaults = await readDefaults(this.api);
      this.defaultsError = '';
    } catch (e) {
      this.defaultsError = errorMessage(e);
    }
  }

  async #loadList(): Promise<void> {
    if (!this.api) return;
    const project = routeParams().get('project_id')?.trim();
    this.loading = true;
    try {
      ({ items: this.items, next: this.next, prev: this.prev } = await readList(this.api, routeParams()));
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
      const { limits, record } = await readProject(this.api, projectId);
      if (this.selected !== projectId) return; // another project was opened meanwhile
      this.selectedLimits = limits;
      this.selectedRecord = record;
    } catch (e) {
      this.detailError = errorMessage(e);
    }
  }

  #search(e: SubmitEvent): void {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const value = String(new FormData(form).get('project_id') ?? '').trim();
    this.#go({ project_id: value || undefined });
    if (!value) this.selected = undefined;
  }

  #clearSearch(): void {
    this.selected = undefined;
    this.#go({});
  }

  #page(link: PageLink): void {
    this.#go({ marker: link.marker, page_reverse: link.reverse ? 'true' : undefined });
  }

  #setPageSize(e: Event): void {
    const size = (e.target as HTMLSelectElement).value;
    const p = routeParams();
    this.#go({ project_id: p.get('project_id') ?? undefined, limit: size === String(DEFAULT_PAGE_SIZE) ? undefined : size });
  }

  #startEdit(): void {
    this.draft = draftOf(this.selectedRecord);
    this.draftErrors = {};
    this.pending = undefined;
    this.message = '';
  }

  /** Validates the form and asks for confirmation of the changed limits only (an omitted key stays unchanged). */
  #askSave(e: SubmitEvent): void {
    e.preventDefault();
    if (!this.draft) return;
    const { errors, changes } = changesOf(this.draft, this.selectedRecord);
    this.draftErrors = errors;
    const first = LBAAS_RESOURCES.find((r) => errors[r]);
    if (first) {
      this.renderRoot.querySelector<HTMLInputElement>(`#limit-${first}`)?.focus();
      return;
    }
    if (Object.keys(changes).length === 0) {
      this.message = 'Nothing changed.';
      return;
    }
    this.#ask({ kind: 'save', changes });
  }

  #askReset(force = false): void {
    this.message = '';
    this.detailError = '';
    this.#ask({ kind: 'reset', force });
  }

  /** The control that opened the confirmation, to give focus back to when it closes (WAI-ARIA dialog pattern). */
  #opener: HTMLElement | null = null;

  /** Opens the confirmation of a write; `updated` moves focus to its confirm button. */
  #ask(pending: Pending): void {
    const active = this.renderRoot instanceof ShadowRoot ? this.renderRoot.activeElement : null;
    this.#opener = active instanceof HTMLElement ? active : null;
    this.pending = pending;
  }

  async #confirm(): Promise<void> {
    const pending = this.pending;
    const project = this.selected;
    if (!this.api || !pending || !project) return;
    this.busy = true;
    this.detailError = '';
    try {
      this.message = await write(this.api, project, pending);
      this.draft = undefined;
      this.pending = undefined;
      this.offerForce = false;
      this.busy = false; // before focus goes back: a disabled button takes no focus
      void this.#focusBack();
      await Promise.all([this.#refreshDetail(project), this.#loadList()]);
    } catch (e) {
      this.pending = undefined;
      this.detailError = errorMessage(e);
      // A reset refused because usage is above a default can be forced, after a second confirmation.
      if (pending.kind === 'reset' && !pending.force && e instanceof ApiError && e.status === 409) this.offerForce = true;
      this.busy = false;
      void this.#focusBack();
      // A refusal may come from a change made elsewhere (usage reported by the load balancer service): show what is stored now.
      void this.#refreshDetail(project);
    } finally {
      this.busy = false;
    }
  }

  /** Closes the confirmation without writing, and gives focus back to the control that opened it. */
  async #cancel(): Promise<void> {
    this.pending = undefined;
    await this.#focusBack();
  }

  /**
   * Once the confirmation has closed (cancelled, done or refused), gives focus back to the control that opened it,
   * or, when that is gone (a saved form closes; the forced-reset button is rendered anew), to the one in its place.
   */
  async #focusBack(): Promise<void> {
    await this.updateComplete;
    const opener = this.#opener;
    this.#opener = null;
    const again = (id: string) => this.renderRoot.querySelector<HTMLElement>(`[data-testid="${id}"]`);
    const fallback = this.offerForce ? again('lbaas-force-reset') : (again('lbaas-start-edit') ?? again('lbaas-reset'));
    (opener?.isConnected ? opener : fallback)?.focus();
  }

  static override styles = lbaasStyles;

  override render() {
    const p = routeParams();
    const project = p.get('project_id') ?? '';
    return html`
      <h2>Load balancer quotas</h2>
      ${renderDefaults(this.defaults, this.defaultsError)}

      ${renderList({
        project,
        pageSize: this.#pageSize(),
        items: this.items,
        loading: this.loading,
        error: this.listError,
        selected: this.selected,
        defaults: this.defaults,
        hasPrev: !!this.prev,
        hasNext: !!this.next,
        onSearch: (e) => this.#search(e),
        onClear: () => this.#clearSearch(),
        onPageSize: (e) => this.#setPageSize(e),
        onPrev: () => this.prev && this.#page(this.prev),
        onNext: () => this.next && this.#page(this.next),
        onEdit: (id) => void this.#open(id).then(() => this.#startEdit()),
      })}

      ${this.selected ? this.#renderDetail(this.selected) : nothing}
    `;
  }

  #renderDetail(projectId: string) {
    return renderDetail({
      projectId,
      item: this.selectedRecord,
      limits: this.selectedLimits,
      defaults: this.defaults,
      message: this.message,
      error: this.detailError,
      busy: this.busy,
      offerForce: this.offerForce,
      pending: this.pending,
      draft: this.draft,
      draftErrors: this.draftErrors,
      onStartEdit: () => this.#startEdit(),
      onAskReset: (force) => this.#askReset(force),
      onClose: () => this.#close(),
      onDraftInput: (r, value) => {
        this.draft = { ...this.draft, [r]: value };
      },
      onSubmit: (e) => this.#askSave(e),
      onCancelEdit: () => {
        this.draft = undefined;
        this.pending = undefined;
      },
      onConfirm: () => void this.#confirm(),
      onCancelConfirm: () => void this.#cancel(),
    });
  }

  #close(): void {
    this.selected = undefined;
    this.draft = undefined;
    this.pending = undefined;
    this.offerForce = false;
  }

  protected override firstUpdated(): void {
    this.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && this.pending) void this.#cancel();
    });
  }
}

customElements.define('stratum-lbaas', StratumLbaas);

declare global {
  interface HTMLElementTagNameMap {
    'stratum-lbaas': StratumLbaas;
  }
}
