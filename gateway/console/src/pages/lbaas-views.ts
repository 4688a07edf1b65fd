/**
 * The load balancer quotas page's templates: the project list, one project's detail, its edit form and the
 * confirmation of a write. Pure functions of what they are given (state and callbacks); the element
 * (pages/lbaas.ts) holds the state and the API calls.
 */
import { LBAAS_DISPLAY_NAME, LBAAS_RESOURCES, type LbaasResource } from '@stratum/quota-items';
import { html, nothing } from 'lit';
import { type Item, inUseOf, type Limits, limitText, PAGE_SIZES, type Pending } from './lbaas-model';

/** The deployment defaults (B2), one card per resource. */
export function renderDefaults(defaults: Limits | undefined, error: string) {
  return html`
    <section aria-labelledby="lb-defaults-h">
      <h3 id="lb-defaults-h">Deployment defaults</h3>
      ${error ? html`<p class="error" role="alert">${error}</p>` : nothing}
      <dl class="defaults" data-testid="lbaas-defaults">
        ${LBAAS_RESOURCES.map(
          (r) => html`<div data-resource=${r}><dt>${LBAAS_DISPLAY_NAME[r]}</dt><dd>${defaults ? limitText(defaults[r]) : '…'}</dd></div>`,
        )}
      </dl>
      <p class="hint">-1 means unlimited; a project without its own limit uses the default.</p>
    </section>
  `;
}

/** The projects section: search by project id, rows per page, the list, and the page links. */
export function renderList(v: {
  project: string;
  pageSize: number;
  items: Item[];
  loading: boolean;
  error: string;
  selected: string | undefined;
  defaults: Limits | undefined;
  hasPrev: boolean;
  hasNext: boolean;
  onSearch(e: SubmitEvent): void;
  onClear(): void;
  onPageSize(e: Event): void;
  onPrev(): void;
  onNext(): void;
  onEdit(projectId: string): void;
}) {
  return html`
  <section aria-labelledby="lb-list-h">
    <h3 id="lb-list-h">Projects</h3>
    <form class="toolbar" role="search" aria-label="Find a project" @submit=${v.onSearch}>
      <div class="field">
        <label for="lb-project">Project id</label>
        <input id="lb-project" name="project_id" data-testid="lbaas-search" .value=${v.project} autocomplete="off" spellcheck="false" />
      </div>
      <button type="submit" class="primary" data-testid="lbaas-search-submit">Search</button>
      ${v.project ? html`<button type="button" class="secondary" data-testid="lbaas-show-all" @click=${v.onClear}>Show all</button>` : nothing}
      <div class="field">
        <label for="lb-size">Rows per page</label>
        <select id="lb-size" data-testid="lbaas-page-size" @change=${v.onPageSize}>
          ${[...new Set([...PAGE_SIZES, v.pageSize])]
            .sort((a, b) => a - b)
            .map((n) => html`<option value=${n} ?selected=${n === v.pageSize}>${n}</option>`)}
        </select>
      </div>
    </form>
    ${v.error ? html`<p class="error" role="alert" data-testid="lbaas-error">${v.error}</p>` : nothing}
    <div class="scroll">
      ${renderTable({
        items: v.items,
        loading: v.loading,
        searched: v.project || null,
        selected: v.selected,
        defaults: v.defaults,
        onEdit: v.onEdit,
      })}
    </div>
    <div class="buttons">
      <button type="button" class="secondary" data-testid="lbaas-prev" ?disabled=${!v.hasPrev} @click=${() => v.onPrev()}>
        ← Previous page
      </button>
      <button type="button" class="secondary" data-testid="lbaas-next" ?disabled=${!v.hasNext} @click=${() => v.onNext()}>
        Next page →
      </button>
      <span class="muted" aria-live="polite">${v.loading ? 'Loading…' : `${v.items.length} shown`}</span>
    </div>
  </section>
  `;
}

/** The list of project records: in use / limit per resource, an Edit button per row. */
export function renderTable(v: {
  items: Item[];
  loading: boolean;
  searched: string | null;
  selected: string | undefined;
  defaults: Limits | undefined;
  onEdit: (projectId: string) => void;
}) {
  if (!v.loading && v.items.length === 0) {
    return html`<p class="muted">${v.searched ? `No quota record for ${v.searched}: the defaults apply.` : 'No project has its own quota record.'}</p>`;
  }
  return html`
    <table class="list cards">
      <caption class="muted">In use / limit per resource</caption>
      <thead>
        <tr>
          <th scope="col">Project</th>
          ${LBAAS_RESOURCES.map((r) => html`<th scope="col">${LBAAS_DISPLAY_NAME[r]}</th>`)}
          <th scope="col"><span class="visually-hidden">Actions</span></th>
        </tr>
      </thead>
      <tbody>
        ${v.items.map(
          (item) => html`
            <tr data-testid="lbaas-row" data-project-id=${item.project_id} class=${item.project_id === v.selected ? 'selected' : ''}>
              <th scope="row" class="mono" data-label="Project">${item.project_id}</th>
              ${LBAAS_RESOURCES.map((r) => html`<td data-resource=${r} data-label=${LBAAS_DISPLAY_NAME[r]}>${inUseOf(item, r) ?? 0} / ${limitText(item[r], v.defaults?.[r])}</td>`)}
              <td>
                <button
                  type="button"
                  class="secondary"
                  data-testid="lbaas-edit"
                  aria-label=${`Edit the quotas of ${item.project_id}`}
                  @click=${() => v.onEdit(item.project_id)}
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

/** What the detail of one project shows, and what its buttons do. */
export interface DetailView {
  projectId: string;
  /** The stored record (undefined: none, the defaults apply). */
  item: Item | undefined;
  /** Effective limits (B3); undefined while loading. */
  limits: Limits | undefined;
  defaults: Limits | undefined;
  message: string;
  error: string;
  busy: boolean;
  offerForce: boolean;
  pending: Pending | undefined;
  draft: Partial<Record<LbaasResource, string>> | undefined;
  draftErrors: Partial<Record<LbaasResource, string>>;
  onStartEdit(): void;
  onAskReset(force: boolean): void;
  onClose(): void;
  onDraftInput(r: LbaasResource, value: string): void;
  onSubmit(e: SubmitEvent): void;
  onCancelEdit(): void;
  onConfirm(): void;
  onCancelConfirm(): void;
}

/** One project's limits, stored values and in_use, with Edit / Reset / Close and the form or confirmation open. */
export function renderDetail(v: DetailView) {
  const { item, limits: eff } = v;
  return html`
    <section class="detail" aria-labelledby="lb-detail-h" data-testid="lbaas-detail" data-project-id=${v.projectId}>
      <h3 id="lb-detail-h">Project <span class="mono">${v.projectId}</span></h3>
      ${item ? nothing : html`<p class="muted">No quota record yet: the defaults apply, nothing counted in use.</p>`}
      <div class="scroll" tabindex="0" role="region" aria-label=${`Limits of ${v.projectId}`}>
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
      <p aria-live="polite" class="ok" data-testid="lbaas-message">${v.message}</p>
      ${v.error ? html`<p class="error" role="alert" data-testid="lbaas-error">${v.error}</p>` : nothing}
      <div class="buttons">
        ${v.draft ? nothing : html`<button type="button" class="secondary" data-testid="lbaas-start-edit" @click=${() => v.onStartEdit()}>Edit limits</button>`}
        <button type="button" class="danger" data-testid="lbaas-reset" ?disabled=${v.busy} @click=${() => v.onAskReset(false)}>
          Reset to defaults…
        </button>
        ${
          v.offerForce && !v.pending
            ? html`<button type="button" class="danger" data-testid="lbaas-force-reset" @click=${() => v.onAskReset(true)}>Reset anyway (force)…</button>`
            : nothing
        }
        <button type="button" class="secondary" data-testid="lbaas-close" @click=${() => v.onClose()}>Close</button>
      </div>
      ${v.draft ? renderForm(v) : nothing} ${v.pending ? renderConfirm(v, v.pending) : nothing}
    </section>
  `;
}

/** The edit form: one field per resource ('' = the default), errors beside their field. */
function renderForm(v: DetailView) {
  const draft = v.draft ?? {};
  return html`
    <form @submit=${(e: SubmitEvent) => v.onSubmit(e)} novalidate>
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
                placeholder=${`default (${limitText(v.defaults?.[r])})`}
                aria-describedby=${v.draftErrors[r] ? `limit-${r}-err` : 'lb-limit-hint'}
                aria-invalid=${v.draftErrors[r] ? 'true' : 'false'}
                .value=${draft[r] ?? ''}
                @input=${(e: Event) => v.onDraftInput(r, (e.target as HTMLInputElement).value)}
              />
              ${v.draftErrors[r] ? html`<span class="error" id=${`limit-${r}-err`}>${v.draftErrors[r]}</span>` : nothing}
            </div>
          `,
        )}
      </div>
      <div class="buttons">
        <button type="submit" class="primary" data-testid="lbaas-save" ?disabled=${v.busy}>Save…</button>
        <button type="button" class="secondary" @click=${() => v.onCancelEdit()}>Cancel</button>
      </div>
    </form>
  `;
}

/** The confirmation of a pending write (role alertdialog; Escape cancels, handled by the element). */
function renderConfirm(v: DetailView, pending: Pending) {
  const what =
    pending.kind === 'save'
      ? html`Set these limits of <span class="mono">${v.projectId}</span>?
          <ul class="changes">
            ${Object.entries(pending.changes).map(
              ([r, value]) =>
                html`<li>${LBAAS_DISPLAY_NAME[r as LbaasResource]}: ${limitText(value, v.defaults?.[r as LbaasResource])}</li>`,
            )}
          </ul>`
      : html`Reset every limit of <span class="mono">${v.projectId}</span> to the deployment default${pending.force ? ', even though usage is above a default' : ''}?`;
  return html`
    <div class="confirm" role="alertdialog" aria-labelledby="lb-confirm-text" data-testid="lbaas-confirm">
      <p id="lb-confirm-text">${what}</p>
      <div class="buttons">
        <button type="button" class="danger" data-testid="confirm" ?disabled=${v.busy} @click=${() => v.onConfirm()}>
          ${pending.kind === 'save' ? 'Yes, save' : 'Yes, reset'}
        </button>
        <button type="button" class="secondary" data-testid="confirm-cancel" @click=${() => v.onCancelConfirm()}>Cancel</button>
      </div>
    </div>
  `;
}
