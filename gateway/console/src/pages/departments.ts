/**
 * `<stratum-departments>` (`#/departments?region=RegionOne`): per region, the cloud's quota, allocated, free and used
 * per item, and each department's quota, allocated to its projects, used (its projects' reported use summed) and
 * free, as bars with the numbers on them, sorted by headroom (the tightest item first). A department is edited with a
 * dry run first, then applied with `If-Match`, so two admins cannot overwrite each other silently
 * (docs/api/domain-quota.md C1–C3 and "Registry"). A department admin, whose token may not read the cloud's views,
 * sees their department the same way, without the editor: the domain their token is scoped to (the shell's `caller`,
 * `GET /console/auth/tokens`). Only when the token names no department (not domain-scoped, or the gateway could not
 * say) is the department asked for (`&domain_id=`).
 *
 * The parts: departments/model.ts (reads and rows), views.ts (templates), bar.ts, editor.ts, styles.ts.
 */
import { html, LitElement, nothing, type TemplateResult } from 'lit';
import { type Api, ApiError, type Caller, errorMessage } from '../api';
import { routeParams, setRouteParams } from '../app';
import { formatTime } from '../format';
import './departments/editor';
import { byHeadroom, type Department, departmentIn, loadCloud, loadOwnDepartment, type PageData } from './departments/model';
import { departmentStyles } from './departments/styles';
import { allItems, cloudTable, KEY_ITEMS, keyItem, legend, usedStatus } from './departments/views';

const enc = encodeURIComponent;

/** The departments page. */
export class DepartmentsPage extends LitElement {
  static override properties = {
    api: { attribute: false },
    caller: { attribute: false },
    data: { state: true },
    region: { state: true },
    domainId: { state: true },
    loading: { state: true },
    error: { state: true },
    askDepartment: { state: true },
    editing: { state: true },
    showAll: { state: true },
  };

  static override styles = departmentStyles;

  declare api: Api | undefined;
  /** Who the token stands for (the shell's `GET /console/auth/tokens`), when known. */
  declare caller: Caller | undefined;
  declare data: PageData | undefined;
  declare region: string;
  /** The department a department admin asked to see (`&domain_id=`); unused for a cloud admin. */
  declare domainId: string;
  declare loading: boolean;
  declare error: string;
  /** The token may not read the cloud's views: offer to name one's own department. */
  declare askDepartment: boolean;
  declare editing: string | undefined;
  declare showAll: boolean;

  constructor() {
    super();
    const params = routeParams();
    this.caller = undefined;
    this.data = undefined;
    this.region = params.get('region') ?? '';
    this.domainId = params.get('domain_id') ?? '';
    this.loading = false;
    this.error = '';
    this.askDepartment = false;
    this.editing = undefined;
    this.showAll = false;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    void this.load();
  }

  /** The items of the selected region, in the catalogue's order. */
  get items(): string[] {
    return this.data?.regions.find((r) => r.name === this.region)?.items ?? [];
  }

  /** Whether the page shows the whole cloud (a cloud admin's token) rather than one department. */
  get isCloudAdmin(): boolean {
    return this.data?.cloud !== undefined;
  }

  /** The department a domain-scoped token (a department admin's) is for; undefined for any other token. */
  get ownDomain(): string | undefined {
    return this.caller?.scope === 'domain' ? this.caller.domain?.id : undefined;
  }

  #setRoute(): void {
    setRouteParams({ region: this.region, domain_id: this.isCloudAdmin ? undefined : this.domainId });
  }

  /** Reads everything: the cloud's view and every department, or (when refused) the named department only. */
  async load(): Promise<void> {
    const api = this.api;
    if (!api) return;
    this.loading = true;
    this.error = '';
    this.askDepartment = false;
    try {
      let data: PageData;
      try {
        data = await loadCloud(api);
      } catch (e) {
        if (!(e instanceof ApiError && e.status === 403)) throw e;
        this.domainId = this.ownDomain ?? this.domainId;
        if (!this.domainId) {
          this.askDepartment = true;
          this.data = undefined;
          this.error = `This token may not read the cloud's and departments' quotas (a cloud admin's may): ${e.message}`;
          return;
        }
        data = await loadOwnDepartment(api, this.domainId);
      }
      this.data = data;
      if (!data.regions.some((r) => r.name === this.region)) this.region = data.regions[0]?.name ?? '';
      this.#setRoute();
    } catch (e) {
      this.data = undefined;
      this.askDepartment = !this.ownDomain && e instanceof ApiError && (e.status === 403 || e.status === 404);
      this.error =
        e instanceof ApiError && e.status === 403
          ? `This token may not read the quotas of department ${this.domainId}: ${e.message}`
          : errorMessage(e);
    } finally {
      this.loading = false;
    }
  }

  /** The departments in the selected region, least headroom first. */
  get departments(): Department[] {
    const items = this.items;
    return byHeadroom((this.data?.departments ?? []).map((d) => departmentIn(d, this.region, items)));
  }

  #selectRegion(e: Event): void {
    this.region = (e.target as HTMLSelectElement).value;
    this.editing = undefined;
    this.#setRoute();
  }

  #askFor(e: Event): void {
    e.preventDefault();
    const input = (e.target as HTMLFormElement).querySelector<HTMLInputElement>('input');
    this.domainId = input?.value.trim() ?? '';
    this.#setRoute();
    void this.load();
  }

  #renderCloud(): TemplateResult {
    const c = this.data?.cloud?.[this.region];
    if (!c) return html`<p class="muted">The cloud has no quota view in ${this.region}.</p>`;
    const items = this.showAll ? this.items : this.items.filter((i) => KEY_ITEMS.includes(i));
    return html`<section data-testid="cloud-summary" aria-labelledby="cloud-title">
      <h2 id="cloud-title">Cloud in ${this.region}</h2>
      <p class="muted">What the cloud can hand out to departments: its quota, what departments and the default domain's projects
        hold (allocated), and what is left (free). Used is the actual use last reported
        (${formatTime(c.usage_collected_at ?? undefined)}).</p>
      ${cloudTable(c, this.region, items)}
      <button type="button" class="secondary" aria-pressed=${this.showAll ? 'true' : 'false'}
        @click=${() => {
          this.showAll = !this.showAll;
        }}>${this.showAll ? 'Show key items only' : `Show all ${this.items.length} items`}</button>
    </section>`;
  }

  #renderDepartment(d: Department): TemplateResult {
    const items = this.items;
    const t = d.tightest;
    const admin = this.isCloudAdmin;
    return html`<section class="dept" data-testid="department-row" data-domain-id=${d.id} aria-labelledby="dept-${d.id}">
      <div class="dept-head">
        <h3 id="dept-${d.id}">${d.name} ${d.name === d.id ? nothing : html`<span class="muted hint">${d.id}</span>`}</h3>
        <span class="muted">${
          t ? html`Least headroom: <strong>${t.item}</strong>, ${Math.round(t.ratio * 100)}% free` : 'Unlimited in every item'
        }</span>
        ${
          admin
            ? html`<div class="dept-actions">
              <button type="button" data-testid="edit-department" aria-expanded=${this.editing === d.id ? 'true' : 'false'}
                aria-controls="edit-${d.id}" @click=${() => this.#toggleEdit(d.id)}>
                ${this.editing === d.id ? 'Close editor' : 'Edit quotas'}<span class="visually-hidden"> of ${d.name}</span>
              </button>
              <a data-testid="audit-link" href="#/audit?domain_id=${enc(d.id)}">Audit trail<span class="visually-hidden"> of ${d.name}</span></a>
            </div>`
            : nothing
        }
      </div>
      ${usedStatus(d, this.region)}
      ${
        d.view
          ? html`<div class="keys">${KEY_ITEMS.filter((i) => items.includes(i)).map((i) => keyItem(d, i))}</div>
            ${allItems(d, d.view, this.region, items)}`
          : html`<p class="muted">No quotas in ${this.region}.</p>`
      }
      ${
        this.editing === d.id
          ? html`<stratum-department-editor id="edit-${d.id}" .api=${this.api} .region=${this.region}
            .domainId=${d.id} .domainName=${d.name} .items=${items} .view=${d.view} .etag=${d.etag}
            @applied=${() => void this.load()}></stratum-department-editor>`
          : nothing
      }
    </section>`;
  }

  #toggleEdit(id: string): void {
    this.editing = this.editing === id ? undefined : id;
  }

  #renderAsk(): TemplateResult {
    return html`<form class="row toolbar" data-testid="department-id-form" @submit=${this.#askFor}>
      <div class="field">
        <label for="domain-id">Your department's id (a department admin sees their own department)</label>
        <input id="domain-id" name="domain_id" data-testid="department-id-input" autocomplete="off" spellcheck="false"
          .value=${this.domainId} required />
      </div>
      <button type="submit" class="secondary">Show the department</button>
    </form>`;
  }

  override render(): TemplateResult {
    const regions = this.data?.regions ?? [];
    const departments = this.departments;
    return html`<h1>Departments</h1>
      <div class="row toolbar">
        <div class="field">
          <label for="region">Region</label>
          <select id="region" data-testid="region-select" @change=${this.#selectRegion} ?disabled=${regions.length === 0}>
            ${regions.map((r) => html`<option value=${r.name} ?selected=${r.name === this.region}>${r.name}</option>`)}
          </select>
        </div>
        <button type="button" class="secondary" @click=${() => void this.load()} ?disabled=${this.loading}>Reload</button>
        <span role="status" class="muted">${this.loading ? 'Loading…' : ''}</span>
      </div>
      ${this.error ? html`<p class="error" role="alert">${this.error}</p>` : nothing}
      ${this.askDepartment ? this.#renderAsk() : nothing}
      ${this.isCloudAdmin && regions.length > 0 ? this.#renderCloud() : nothing}
      ${
        departments.length > 0
          ? html`<h2>${this.isCloudAdmin ? 'Departments' : 'Your department'} in ${this.region}</h2>
            <p class="muted">Sorted by headroom: the department closest to its quota in any item first. Free = quota − allocated to
              projects; used = the actual use its projects reported, summed.</p>
            ${legend}
            ${departments.map((d) => this.#renderDepartment(d))}`
          : !this.loading && !this.error && this.data
            ? html`<p class="muted">No departments yet.</p>`
            : nothing
      }`;
  }
}

customElements.define('stratum-departments', DepartmentsPage);
