/**
 * `<stratum-department-editor>`: the edit form of one department in one region (docs/api/domain-quota.md C2). Only
 * changed items are sent; a dry run must accept exactly these values before Apply is enabled; Apply sends `If-Match`
 * with the ETag the page read, so a change made meanwhile by someone else is a 412, not an overwrite.
 */
import { html, LitElement, nothing, type TemplateResult } from 'lit';
import { z } from 'zod';
import { type Api, ApiError, errorMessage } from '../../api';
import { formatNumber, formatValue, itemSpec, unitOf } from '../../format';
import type { DepartmentView } from './model';
import { departmentStyles } from './styles';

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
type Detail = z.infer<typeof Detail>;

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

  static override styles = departmentStyles;

  declare api: Api | undefined;
  declare region: string;
  declare domainId: string;
  declare domainName: string;
  declare items: string[];
  declare view: DepartmentView | undefined;
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
        this.error = errorMessage(e);
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
          // The step the item's catalogue scale allows (3 decimals for storage, memory and cpu).
          const scale = itemSpec(item)?.scale === 3 ? '0.001' : '1';
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

customElements.define('stratum-department-editor', DepartmentEditor);
