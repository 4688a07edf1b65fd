/**
 * The quota bar: the track is the quota, the lighter fill what is allocated, the darker striped fill inside it what
 * is used (actual use reported), and the numbers written on it. The same text is the bar's accessible name
 * (role="img"), so neither colour nor the fills carry anything the text does not say.
 */
import { css, html, nothing, type TemplateResult } from 'lit';
import { ref } from 'lit/directives/ref.js';
import { UNLIMITED } from '../../format';
import { barText, shareOf } from './model';

/**
 * Sets a fill's width through the CSSOM: a `style` attribute (and lit's styleMap on first render writes one) is inline
 * style, which the console's Content-Security-Policy refuses.
 */
const widthOf = (share: number) => (el: Element | undefined) => {
  if (el instanceof HTMLElement) el.style.width = `${(share * 100).toFixed(1)}%`;
};

/**
 * A bar of `allocated` (and `used`, when reported) out of `quota`, with the numbers on it.
 * @param label what the bar is of ("Finance cores"), put before the numbers in its accessible name.
 */
export function quotaBar(
  item: string,
  quota: number | undefined,
  allocated: number | undefined,
  used: number | undefined,
  label: string,
): TemplateResult {
  const q = quota ?? 0;
  const a = allocated ?? 0;
  const unlimited = q === UNLIMITED;
  const share = unlimited ? 0 : shareOf(a, q);
  const usedShare = unlimited || used === undefined ? 0 : shareOf(used, q);
  const level = share >= 1 ? ' full' : share >= 0.8 ? ' high' : '';
  const text = barText(item, q, a, used);
  return html`<div class="bar" role="img" aria-label="${label}: ${text}">
    <div class="fill${level}" ${ref(widthOf(share))}></div>
    ${used === undefined ? nothing : html`<div class="fill used${level}" ${ref(widthOf(usedShare))}></div>`}
    <span class="label">${text}</span>
  </div>`;
}

/**
 * The two fills' colours, after styles.ts `bars` (which this overrides for the allocated fill): allocated light,
 * used darker and striped inside it; each keeps the label's dark text at WCAG AA contrast.
 */
export const usedBars = css`
  .bar .fill { background: #c9dcfa; }
  .bar .fill.high { background: #fbe3b5; }
  .bar .fill.full { background: #f9cfcb; }
  .bar .fill.used {
    background: repeating-linear-gradient(135deg, #7aa7f0 0 6px, #8fb5f2 6px 9px);
  }
  .bar .fill.used.high { background: repeating-linear-gradient(135deg, #f2b84b 0 6px, #f4c466 6px 9px); }
  .bar .fill.used.full { background: repeating-linear-gradient(135deg, #f08a80 0 6px, #f29d94 6px 9px); }
`;
