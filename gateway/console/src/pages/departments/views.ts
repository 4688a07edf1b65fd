/**
 * What the departments page shows per region: the cloud's table (quota, allocated, free, used; C3) and one section per
 * department (quota, allocated to projects = C1 `usage`, used = its projects' reports summed, free = quota −
 * allocated), each item with a quotaBar. Pure templates: the page (../departments.ts) holds the state and actions.
 */
import { html, nothing, type TemplateResult } from 'lit';
import { formatNumber, formatTime, subtract, UNLIMITED, unitOf } from '../../format';
import { quotaBar } from './bar';
import { type CloudView, type Department, type DepartmentView, itemNumbers, usedLabel } from './model';

/** Items always shown in a department's summary; the rest are one click away. */
export const KEY_ITEMS = ['cores', 'ram', 'instances'];

/** An item's name with its unit ("ram (MiB)"); counts and `cores` need none. */
export const itemLabel = (item: string): TemplateResult | string => {
  const unit = unitOf(item);
  return unit && unit !== item ? html`${item} <span class="muted">(${unit})</span>` : item;
};

/** What the fills of a bar mean (text as well as swatches). */
export const legend = html`<p class="legend muted" data-testid="bar-legend">
  <span><span class="swatch bar" aria-hidden="true"><span class="fill"></span></span>allocated (the bar's length is the quota)</span>
  <span><span class="swatch bar" aria-hidden="true"><span class="fill used"></span></span>used: actual use reported, within allocated</span>
</p>`;

/** The cloud's table in `region`: each item's quota, allocated, free and used (the region's last report). */
export function cloudTable(c: CloudView, region: string, items: string[]): TemplateResult {
  // Scrolls sideways on a narrow screen: focusable and named so a keyboard can scroll it (WCAG 2.1.1).
  return html`<div class="scroll" tabindex="0" role="region" aria-label=${`Cloud quota per item in ${region}`}>
    <table class="summary-table">
      <caption class="visually-hidden">Cloud quota per item in ${region}</caption>
      <thead>
        <tr>
          <th scope="col">Item</th>
          <th scope="col" class="num">Quota</th>
          <th scope="col" class="num">Allocated</th>
          <th scope="col" class="num">Free</th>
          <th scope="col" class="num hide-narrow">Used</th>
          <th scope="col">Used and allocated of quota</th>
        </tr>
      </thead>
      <tbody>
        ${items.map((item) => {
          const q = c.quotas[item] ?? UNLIMITED;
          const a = c.allocated[item] ?? 0;
          const u = c.usage?.[item];
          return html`<tr data-item=${item}>
            <th scope="row">${itemLabel(item)}</th>
            <td class="num">${formatNumber(q)}</td>
            <td class="num">${formatNumber(a)}</td>
            <td class="num" data-testid="cloud-free-${item}">${formatNumber(subtract(q, a))}</td>
            <td class="num hide-narrow" data-testid="cloud-used-${item}">${formatNumber(u)}</td>
            <td>${quotaBar(item, q, a, u, `Cloud ${item}`)}</td>
          </tr>`;
        })}
      </tbody>
    </table>
  </div>`;
}

/** "3 of 3 projects reported, oldest report …", or why there is no used. */
export function usedStatus(d: Department, region: string): TemplateResult {
  const u = d.used;
  if (u === null) return html`<p class="reported muted" data-testid="used-status">Used: could not be read with this token.</p>`;
  if (u === undefined) {
    return html`<p class="reported muted" data-testid="used-status">Used: not reported (none of its projects reported its use in ${region}).</p>`;
  }
  return html`<p class="reported muted" data-testid="used-status" title="Oldest report summed: ${u.collected_at}">
    Used: the sum of <span data-testid="projects-reported">${u.projects_reported} of ${u.projects}</span> projects' reports;
    oldest report <time datetime=${u.collected_at}>${formatTime(u.collected_at)}</time>.
  </p>`;
}

/** One key item of a department: its bar and its four numbers. */
export function keyItem(d: Department, item: string): TemplateResult {
  const n = itemNumbers(d, item);
  const title = d.used ? `${d.used.projects_reported} of ${d.used.projects} projects reported; oldest report ${d.used.collected_at}` : '';
  return html`<div class="key">
    <div class="name">${itemLabel(item)}</div>
    ${quotaBar(item, n.quota, n.allocated, n.used, `${d.name} ${item}`)}
    <div class="nums">quota <strong>${formatNumber(n.quota)}</strong> · allocated to projects <strong data-testid="allocated-${item}">${formatNumber(n.allocated)}</strong>
      · used <strong data-testid="used-${item}" title=${title || nothing}>${usedLabel(d, item)}</strong>
      · free <strong data-testid="free-${item}">${formatNumber(n.free)}</strong></div>
  </div>`;
}

/** Every item of a department in a table (inside a <details>). */
export function allItems(d: Department, view: DepartmentView, region: string, items: string[]): TemplateResult {
  return html`<details>
    <summary>All ${items.length} items of ${d.name}</summary>
    <div class="scroll" tabindex="0" role="region" aria-label=${`All items of ${d.name}`}>
      <table>
        <caption class="visually-hidden">${d.name} in ${region}</caption>
        <thead><tr><th scope="col">Item</th><th scope="col" class="num">Quota</th><th scope="col" class="num">Allocated to projects</th>
          <th scope="col" class="num">Used</th><th scope="col" class="num">Free</th><th scope="col" class="num hide-narrow">Limit</th>
          <th scope="col">Used and allocated of quota</th></tr></thead>
        <tbody>
          ${items.map((item) => {
            const n = itemNumbers({ view, used: d.used }, item);
            return html`<tr data-item=${item}>
              <th scope="row">${itemLabel(item)}</th>
              <td class="num">${formatNumber(n.quota)}</td><td class="num">${formatNumber(n.allocated)}</td>
              <td class="num" data-testid="used-all-${item}">${usedLabel(d, item)}</td>
              <td class="num">${formatNumber(n.free)}</td><td class="num hide-narrow">${formatNumber(view.limits[item])}</td>
              <td>${quotaBar(item, n.quota, n.allocated, n.used, `${d.name} ${item}`)}</td>
            </tr>`;
          })}
        </tbody>
      </table>
    </div>
  </details>`;
}
