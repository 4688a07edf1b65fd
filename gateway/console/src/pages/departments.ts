/**
 * `<stratum-departments>` (`#/departments?region=RegionOne`): per region, the cloud's quota, allocated and free per
 * item, and each department's quota, allocated to its projects and free, as bars with the numbers on them, sorted by
 * headroom (the tightest item first). A department is edited with a dry run first, then applied with `If-Match`, so
 * two admins cannot overwrite each other silently (docs/api/domain-quota.md C1–C3).
 */
import { regionItems } from '@stratum/quota-items';
import { css, html, LitElement, nothing, type TemplateResult } from 'lit';
import { ref } from 'lit/directives/ref.js';
import { z } from 'zod';
import { type Api, ApiError } from '../api';
import { routeParams, setRouteParams } from '../app';
import { formatNumber, formatTime, formatValue, headroom, subtract, UNLIMITED, unitOf } from '../format';
import { bars, shared } from '../styles';

const Values = z.record(z.string(), z.number());
const RegionsBody = z.object({
  regions: z.array(z.object({ name: z.string(), volume_types: z.array(z.string()), products: z.array(z.string()) })),
});
const DomainsBody = z.object({ domains: z.array(z.object({ id: z.string(), name: z.string().optional() })) });
const CloudRegion = z.object({
  quotas: Values,
  allocated: Values,
  usage: Values.optional(),
  usage_collected_at: z.string().nullish(),
});
const CloudBody = z.object({ domain: z.record(z.string(), CloudRegion) });
const DepartmentRegion = z.object({ quotas: Values, usage: Values, limits: Values });
const DepartmentBody = z.object({ domain: z.record(z.string(), DepartmentRegion) });
/** One refused item of a C2 answer (`error.details[]`). */
const Detail = z.object({
  region: z.string().optional(),
  item: z.string().optional(),
  requested: z.unknown().optional(),
  current: z.unknown().optional(),
  min: z.number().optional(),
  max: z.number().optional(),
  reason: z.string(),
});

type Region = z.infer<typeof RegionsBody>['regions'][number];
type CloudView = z.infer<typeof CloudRegion>;
type Detail = z.infer<typeof Detail>;

/** A department as the page shows it in one region. */
interface Department {
  id: string;
  name: string;
  view: z.infer<typeof DepartmentRegion> | undefined;
  etag: string | undefined;
  /** The tightest item: lowest free ÷ quota. */
  tightest: { item: string; ratio: number } | undefined;
}

/** Items always shown in a department's summary; the rest are one click away. */
const KEY_ITEMS = ['cores', 'ram', 'instances'];

/** What a refusal reason means, for people (the API's `reason` codes, docs/api/domain-quota.md "Errors"). */
function reasonText(d: Detail): string {
  const unitless = (v: number | undefined) => formatValue(d.item ?? '', v);
  switch (d.reason) {
    case 'exceeds_limit':
      return `more than the cloud has free for this department (at most ${unitless(d.max)})`;
    case 'below_allocated':
      return `less than its projects already hold (at least ${unitless(d.min)})`;
    case 'unlimited_under_finite_parent':
      return 'cannot be unlimited while the cloud quota is finite';
    case 'unlimited_children':
      return 'cannot be finite while a project below it is unlimited';
    default:
      return d.reason.replaceAll('_', ' ');
  }
}

const enc = encodeURIComponent;

/** An item's name with its unit ("ram (MiB)"); counts and `cores` need none. */
const itemLabel = (item: string): TemplateResult | string => {
  const unit = unitOf(item);
  return unit && unit !== item ? html`${item} <span class="muted">(${unit})</span>` : item;
};

/**
 * Sets a bar's width through the CSSOM: a `style` attribute (and lit's styleMap on first render writes one) is inline
 * style, which the console's Content-Security-Policy refuses.
 */
const widthOf = (share: number) => (el: Element | undefined) => {
  if (el instanceof HTMLElement) el.style.width = `${(share * 100).toFixed(1)}%`;
};

/** The departments page. */
export class DepartmentsPage extends LitElement {
  static override properties = {
    api: { attribute: false },
    regions: { state: true },
    region: { state: true },
    cloud: { state: true },
    departments: { state: true },
    loading: { state: true },
    error: { state: true },
    editing: { state: true },
    showAll: { state: true },
  };

  static override styles = [
    shared,
    bars,
    css`
      .toolbar { margin: 0.5rem 0 1rem; }
      .summary-table td, .summary-table th { padding: 0.3rem 0.5rem; }
      .summary-table .bar { min-width: 10rem; }
      .dept {
        border: 1px solid var(--border);
        border-radius: 6px;
        padding: 0.6rem 0.8rem;
        margin: 0 0 0.75rem;
      }
      .dept-head { display: flex; flex-wrap: wrap; gap: 0.4rem 1rem; align-items: baseline; justify-content: space-between; }
      .dept-head h3 { margin: 0; }
      .dept-actions { display: flex; gap: 0.5rem; flex-wrap: wrap; align-items: center; }
      .keys { display: grid; grid-template-columns: repeat(auto-fit, minmax(15rem, 1fr)); gap: 0.5rem 1rem; margin-top: 0.5rem; }
      .key .name { font-weight: 600; }
      .key .nums { font-size: 0.85rem; color: var(--muted); }
      .key .nums strong { color: #1b1f24; }
      details { margin-top: 0.5rem; }
      summary { cursor: pointer; color: var(--accent-dark); }
      .edit { border-top: 1px solid var(--border); margin-top: 0.75rem; padding-top: 0.5rem; }
      .edit-grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(14rem, 1fr)); gap: 0.6rem 1rem; }
      .edit-grid input { width: 100%; }
      .hint { font-size: 0.8rem; color: var(--muted); font-weight: normal; }
      .refusals { margin: 0.5rem 0; padding-left: 1.2rem; color: var(--bad); }
      .buttons { display: flex; gap: 0.5rem; flex-wrap: wrap; margin-top: 0.75rem; }
      @media (max-width: 600px) {
        .summary-table .bar { min-width: 6rem; }
        .hide-narrow { display: none; }
      }
    `,
  ];

  declare api: Api | undefined;
  declare regions: Region[];
  declare region: string;
  declare cloud: CloudView | undefined;
  declare departments: Department[];
  declare loading: boolean;
  declare error: string;
  declare editing: string | undefined;
  declare showAll: boolean;

  constructor() {
    super();
    this.regions = [];
    this.region = routeParams().get('region') ?? '';
    this.cloud = undefined;
    this.departments = [];
    this.loading = false;
    this.error = '';
    this.editing = undefined;
    this.showAll = false;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    void this.load();
  }

  /** The items of the selected region, in the catalogue's order. */
  get items(): string[] {
    const r = this.regions.find((x) => x.name === this.region);
    return r ? [...regionItems({ volumeTypes: r.volume_types, products: r.products }).keys()] : [];
  }

  /** Loads the region list, the cloud's view and every department's (each with its ETag). */
  async load(): Promise<void> {
    const api = this.api;
    if (!api) return;
    this.loading = true;
    this.error = '';
    try {
      const [regions, domains, cloud] = await Promise.all([
        api.get('/v3/domain_quota_registry/regions', RegionsBody),
        api.get('/v3/domain_quota_registry/domains', DomainsBody),
        api.get('/v3/domain_usage', CloudBody),
      ]);
      this.regions = regions.regions;
      if (!this.regions.some((r) => r.name === this.region)) this.region = this.regions[0]?.name ?? '';
      setRouteParams({ region: this.region });
      const depts = await Promise.all(
        domains.domains
          .filter((d) => d.id !== 'default')
          .map(async (d) => {
            const { body, etag } = await api.getWithEtag(`/v3/domain_quotas/${enc(d.id)}`, DepartmentBody);
            return { id: d.id, name: d.name ?? d.id, body, etag };
          }),
      );
      this.cloud = cloud.domain[this.region];
      this.departments = depts.map((d) => this.#department(d.id, d.name, d.body.domain[this.region], d.etag));
      this.#cache = { cloud: cloud.domain, depts };
    } catch (e) {
      this.error =
        e instanceof ApiError && e.status === 403
          ? `This token may not read the cloud's and departments' quotas (a cloud admin's may): ${e.message}`
          : e instanceof Error
            ? e.message
            : String(e);
    } finally {
      this.loading = false;
    }
  }

  /** The last answers, so switching region needs no new requests. */
  #cache:
    | {
        cloud: Record<string, CloudView>;
        depts: { id: string; name: string; body: z.infer<typeof DepartmentBody>; etag: string | undefined }[];
      }
    | undefined;

  #department(id: string, name: string, view: Department['view'], etag: string | undefined): Department {
    let tightest: Department['tightest'];
    if (view) {
      for (const item of this.items) {
        const q = view.quotas[item] ?? 0;
        // Unlimited has no limit to be near; a zero quota (an item the department was never given) is not "full".
        if (q === UNLIMITED || q <= 0) continue;
        const ratio = headroom(q, view.usage[item] ?? 0);
        if (tightest === undefined || ratio < tightest.ratio) tightest = { item, ratio };
      }
    }
    return { id, name, view, etag, tightest };
  }

  #selectRegion(e: Event): void {
    this.region = (e.target as HTMLSelectElement).value;
    setRouteParams({ region: this.region });
    this.editing = undefined;
    const c = this.#cache;
    if (c) {
      this.cloud = c.cloud[this.region];
      this.departments = c.depts.map((d) => this.#department(d.id, d.name, d.body.domain[this.region], d.etag));
    }
  }

  /** Departments, least headroom first (unlimited everywhere last), then by name. */
  get sorted(): Department[] {
    return [...this.departments].sort((a, b) => (a.tightest?.ratio ?? 2) - (b.tightest?.ratio ?? 2) || a.name.localeCompare(b.name));
  }

  /** A bar of `allocated` out of `quota`, the numbers on it. */
  #bar(item: string, quota: number | undefined, allocated: number | undefined, label: string): TemplateResult {
    const q = quota ?? 0;
    const a = allocated ?? 0;
    const unlimited = q === UNLIMITED;
    const share = unlimited ? 0 : q <= 0 ? (a > 0 ? 1 : 0) : Math.min(1, a / q);
    const cls = share >= 1 ? 'fill full' : share >= 0.8 ? 'fill high' : 'fill';
    const text = unlimited
      ? `${formatValue(item, a)} of unlimited`
      : `${formatNumber(a)} of ${formatValue(item, q)} (${Math.round(share * 100)}%)`;
    return html`<div class="bar" role="img" aria-label="${label}: ${text}">
      <div class=${cls} ${ref(widthOf(share))}></div>
      <span class="label">${text}</span>
    </div>`;
  }

  #renderCloud(): TemplateResult {
    const c = this.cloud;
    if (!c) return html`<p class="muted">The cloud has no quota view in ${this.region}.</p>`;
    const items = this.showAll ? this.items : this.items.filter((i) => KEY_ITEMS.includes(i));
    return html`<section data-testid="cloud-summary" aria-labelledby="cloud-title">
      <h2 id="cloud-title">Cloud in ${this.region}</h2>
      <p class="muted">What the cloud can hand out to departments: its quota, what departments and the default domain's projects
        hold (allocated), and what is left (free). Used is the actual use last reported
        (${formatTime(c.usage_collected_at ?? undefined)}).</p>
      <div class="scroll">
        <table class="summary-table">
          <caption class="visually-hidden">Cloud quota per item in ${this.region}</caption>
          <thead>
            <tr>
              <th scope="col">Item</th>
              <th scope="col" class="num">Quota</th>
              <th scope="col" class="num">Allocated</th>
              <th scope="col" class="num">Free</th>
              <th scope="col" class="num hide-narrow">Used</th>
              <th scope="col">Allocated of quota</th>
            </tr>
          </thead>
          <tbody>
            ${items.map((item) => {
              const q = c.quotas[item] ?? UNLIMITED;
              const a = c.allocated[item] ?? 0;
              return html`<tr data-item=${item}>
                <th scope="row">${itemLabel(item)}</th>
                <td class="num">${formatNumber(q)}</td>
                <td class="num">${formatNumber(a)}</td>
                <td class="num" data-testid="cloud-free-${item}">${formatNumber(subtract(q, a))}</td>
                <td class="num hide-narrow">${formatNumber(c.usage?.[item])}</td>
                <td>${this.#bar(item, q, a, `Cloud ${item}`)}</td>
              </tr>`;
            })}
          </tbody>
        </table>
      </div>
      <button type="button" class="secondary" aria-pressed=${this.showAll ? 'true' : 'false'}
        @click=${() => {
          this.showAll = !this.showAll;
        }}>${this.showAll ? 'Show key items only' : `Show all ${this.items.length} items`}</button>
    </section>`;
  }

  #renderKey(d: Department, item: string): TemplateResult {
    const v = d.view;
    const q = v?.quotas[item] ?? 0;
    const a = v?.usage[item] ?? 0;
    const free = subtract(q, a);
    const testid = `free-${item}`;
    return html`<div class="key">
      <div class="name">${itemLabel(item)}</div>
      ${this.#bar(item, q, a, `${d.name} ${item}`)}
      <div class="nums">quota <strong>${formatNumber(q)}</strong> · allocated to projects <strong>${formatNumber(a)}</strong>
        · free <strong data-testid=${testid}>${formatNumber(free)}</strong></div>
    </div>`;
  }

  #renderDepartment(d: Department): TemplateResult {
    const items = this.items;
    const t = d.tightest;
    return html`<section class="dept" data-testid="department-row" data-domain-id=${d.id} aria-labelledby="dept-${d.id}">
      <div class="dept-head">
        <h3 id="dept-${d.id}">${d.name} <span class="muted hint">${d.id}</span></h3>
        <span class="muted">${
          t ? html`Least headroom: <strong>${t.item}</strong>, ${Math.round(t.ratio * 100)}% free` : 'Unlimited in every item'
        }</span>
        <div class="dept-actions">
          <button type="button" data-testid="edit-department" aria-expanded=${this.editing === d.id ? 'true' : 'false'}
            aria-controls="edit-${d.id}" @click=${() => this.#toggleEdit(d.id)}>
            ${this.editing === d.id ? 'Close editor' : 'Edit quotas'}<span class="visually-hidden"> of ${d.name}</span>
          </button>
          <a data-testid="audit-link" href="#/audit?domain_id=${enc(d.id)}">Audit trail<span class="visually-hidden"> of ${d.name}</span></a>
        </div>
      </div>
      ${d.view ? html`<div class="keys">${KEY_ITEMS.filter((i) => items.includes(i)).map((i) => this.#renderKey(d, i))}</div>` : html`<p class="muted">No quotas in ${this.region}.</p>`}
      ${
        d.view
          ? html`<details>
            <summary>All ${items.length} items of ${d.name}</summary>
            <div class="scroll">
              <table>
                <caption class="visually-hidden">${d.name} in ${this.region}</caption>
                <thead><tr><th scope="col">Item</th><th scope="col" class="num">Quota</th><th scope="col" class="num">Allocated to projects</th>
                  <th scope="col" class="num">Free</th><th scope="col" class="num hide-narrow">Limit</th><th scope="col">Allocated of quota</th></tr></thead>
                <tbody>
                  ${items.map((item) => {
                    const v = d.view as NonNullable<Department['view']>;
                    const q = v.quotas[item] ?? 0;
                    const a = v.usage[item] ?? 0;
                    return html`<tr data-item=${item}>
                      <th scope="row">${itemLabel(item)}</th>
                      <td class="num">${formatNumber(q)}</td><td class="num">${formatNumber(a)}</td>
                      <td class="num">${formatNumber(subtract(q, a))}</td><td class="num hide-narrow">${formatNumber(v.limits[item])}</td>
                      <td>${this.#bar(item, q, a, `${d.name} ${item}`)}</td>
                    </tr>`;
                  })}
                </tbody>
              </table>
            </div>
          </details>`
          : nothing
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

  override render(): TemplateResult {
    return html`<h1>Departments</h1>
      <div class="row toolbar">
        <div class="field">
          <label for="region">Region</label>
          <select id="region" data-testid="region-select" @change=${this.#selectRegion} ?disabled=${this.regions.length === 0}>
            ${this.regions.map((r) => html`<option value=${r.name} ?selected=${r.name === this.region}>${r.name}</option>`)}
          </select>
        </div>
        <button type="button" class="secondary" @click=${() => void this.load()} ?disabled=${this.loading}>Reload</button>
        <span role="status" class="muted">${this.loading ? 'Loading…' : ''}</span>
      </div>
      ${this.error ? html`<p class="error" role="alert">${this.error}</p>` : nothing}
      ${this.regions.length > 0 ? this.#renderCloud() : nothing}
      ${
        this.departments.length > 0
          ? html`<h2>Departments in ${this.region}</h2>
            <p class="muted">Sorted by headroom: the department closest to its quota in any item first. Free = quota − allocated to projects.</p>
            ${this.sorted.map((d) => this.#renderDepartment(d))}`
          : !this.loading && !this.error
            ? html`<p class="muted">No departments yet.</p>`
            : nothing
      }`;
  }
}

/**
 * `<stratum-department-editor>`: the edit form of one department in one region. Only changed items are sent; a dry
 * run must accept exactly these values before Apply is enabled; Apply sends `If-Match` with the ETag the page read,
 * so a change made meanwhile by someone else is a 412, not an overwrite.
 */
export class DepartmentEditor extends LitElement {
  static override properties = {
    api: { attribute: false },
    region: { attribute: false },
    domainId: { attribute: false },
    domainName: { attribute: false },
    items: { attribute: false },
    view: { attribute: false },
    etag: { attribute: false },
    values: { state: true },
    checked: { state: true },
    refusals: { state: true },
    message: { state: true },
    error: { state: true },
    busy: { state: true },
    conflict: { state: true },
  };

  static override styles = DepartmentsPage.styles;

  declare api: Api | undefined;
  declare region: string;
  declare domainId: string;
  declare domainName: string;
  declare items: string[];
  declare view: Department['view'];
  declare etag: string | undefined;
  declare values: Record<string, string>;
  /** The request body a dry run accepted; Apply sends only that. */
  declare checked: string | undefined;
  declare refusals: Detail[];
  declare message: string;
  declare error: string;
  declare busy: boolean;
  /** The last Apply was a 412: someone else changed the department since the page read it. */
  declare conflict: boolean;

  constructor() {
    super();
    this.conflict = false;
    this.values = {};
    this.checked = undefined;
    this.refusals = [];
    this.message = '';
    this.error = '';
    this.busy = false;
    this.items = [];
  }

  /** The changed items as the API's body, or a problem with the form's input. */
  #body(): { body: Record<string, unknown> } | { problem: string } {
    const domain: Record<string, unknown> = { region: this.region };
    let n = 0;
    for (const [item, raw] of Object.entries(this.values)) {
      const text = raw.trim();
      if (text === '') continue;
      const value = Number(text);
      if (!Number.isFinite(value)) return { problem: `${item}: "${text}" is not a number` };
      if (value === (this.view?.quotas[item] ?? 0)) continue;
      domain[item] = value;
      n++;
    }
    if (n === 0) return { problem: 'Change at least one item.' };
    return { body: { domain } };
  }

  async #send(dryRun: boolean): Promise<void> {
    const api = this.api;
    if (!api) return;
    const b = this.#body();
    this.refusals = [];
    this.message = '';
    this.error = '';
    if ('problem' in b) {
      this.error = b.problem;
      return;
    }
    const key = JSON.stringify(b.body);
    this.busy = true;
    this.conflict = false;
    try {
      const path = `/v3/domain_quotas/${enc(this.domainId)}${dryRun ? '?dry_run=true' : ''}`;
      const headers: Record<string, string> = {};
      if (!dryRun && this.etag) headers['If-Match'] = this.etag;
      const res = await api.send('PATCH', path, b.body, headers);
      const changed = Object.keys(b.body.domain as object).filter((k) => k !== 'region');
      if (dryRun) {
        this.checked = key;
        this.message = `Dry run accepted: ${changed.map((i) => `${i} → ${formatValue(i, (b.body.domain as Record<string, number>)[i])}`).join(', ')}. Nothing was written yet; Apply to save.`;
      } else {
        this.checked = undefined;
        this.values = {};
        if (res.etag) this.etag = res.etag;
        this.message = `Saved: ${changed.join(', ')}.`;
        this.dispatchEvent(new CustomEvent('applied', { bubbles: true, composed: true }));
      }
    } catch (e) {
      if (!dryRun) this.checked = undefined;
      if (e instanceof ApiError) {
        const err = (e.body as { error?: { details?: unknown } } | undefined)?.error;
        const details = z.array(Detail).safeParse(err?.details);
        this.refusals = details.success ? details.data : [];
        this.conflict = e.status === 412;
        this.error =
          e.status === 412
            ? 'Someone changed this department since the page read it (412): nothing was saved. Reload the current quotas, check them, then edit again.'
            : `${dryRun ? 'Dry run refused' : 'Refused'} (${e.status}): ${e.message}`;
      } else {
        this.error = e instanceof Error ? e.message : String(e);
      }
    } finally {
      this.busy = false;
    }
  }

  /** After a 412: the page reads the department again (new values and ETag); the form keeps what was typed. */
  #reload(): void {
    this.conflict = false;
    this.error = '';
    this.checked = undefined;
    this.dispatchEvent(new CustomEvent('applied', { bubbles: true, composed: true }));
  }

  /** Keyboard users land in the form they opened. */
  override firstUpdated(): void {
    this.renderRoot.querySelector<HTMLInputElement>('input')?.focus();
  }

  #input(item: string, e: Event): void {
    this.values = { ...this.values, [item]: (e.target as HTMLInputElement).value };
    this.checked = undefined; // the values changed: dry-run again before Apply
    this.message = '';
  }

  override render(): TemplateResult {
    const v = this.view;
    const b = this.#body();
    const canApply = 'body' in b && this.checked === JSON.stringify(b.body) && !this.busy;
    return html`<form class="edit" aria-label="Edit quotas of ${this.domainName} in ${this.region}"
        @submit=${(e: Event) => {
          e.preventDefault();
          void this.#send(true);
        }}>
      <h4>Edit ${this.domainName} in ${this.region}</h4>
      <p class="muted">Leave an item empty to keep it. −1 means unlimited. The limit is what the cloud leaves free plus this department's own share.</p>
      <div class="edit-grid">
        ${this.items.map((item) => {
          const q = v?.quotas[item] ?? 0;
          const unit = unitOf(item);
          const scale = unit === 'GiB' || unit === 'MiB' || item === 'cpu' ? '0.001' : '1';
          return html`<div class="field">
            <label for="e-${item}">${item}${unit && unit !== item ? ` (${unit})` : ''}
              <span class="hint">now ${formatNumber(q)}; projects hold ${formatNumber(v?.usage[item])}; limit ${formatNumber(v?.limits[item])}</span></label>
            <input id="e-${item}" type="number" inputmode="decimal" min="-1" step=${scale} placeholder=${String(q)}
              data-testid="edit-item-${item}" .value=${this.values[item] ?? ''} @input=${(e: Event) => this.#input(item, e)} />
          </div>`;
        })}
      </div>
      ${
        this.refusals.length > 0
          ? html`<ul class="refusals" aria-label="Refused items">
            ${this.refusals.map(
              (d) =>
                html`<li data-testid="refusal" data-item=${d.item ?? ''} data-reason=${d.reason}><strong>${d.item ?? d.region ?? 'request'}</strong>: ${reasonText(d)}${
                  d.requested !== undefined ? html` <span class="muted">(requested ${String(d.requested)})</span>` : nothing
                }</li>`,
            )}
          </ul>`
          : nothing
      }
      ${this.error ? html`<p class="error" role="alert">${this.error}</p>` : nothing}
      ${this.message ? html`<p class="notice" role="status">${this.message}</p>` : nothing}
      ${
        this.conflict
          ? html`<button type="button" class="secondary" data-testid="reload-after-conflict" @click=${this.#reload}>
              Reload the current quotas</button>`
          : nothing
      }
      <div class="buttons">
        <button type="submit" data-testid="dry-run" ?disabled=${this.busy}>Dry run</button>
        <button type="button" data-testid="apply" ?disabled=${!canApply} @click=${() => void this.#send(false)}
          title=${canApply ? 'Save these values' : 'Run a dry run of these values first'}>Apply</button>
      </div>
    </form>`;
  }
}

customElements.define('stratum-departments', DepartmentsPage);
customElements.define('stratum-department-editor', DepartmentEditor);
