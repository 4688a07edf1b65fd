/**
 * Shared styles of every page (lit `css`, adopted as constructable style sheets, so the gateway's CSP needs no
 * 'unsafe-inline'). Colours are chosen for WCAG AA contrast on white; focus is always visible.
 */
import { css } from 'lit';

/** Base styles: type, forms, buttons, tables, messages. Include first in each element's `styles`. */
export const shared = css`
  :host {
    display: block;
    font-family: system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif;
    color: #1b1f24;
    line-height: 1.45;
    --accent: #0b57d0;
    --accent-dark: #083f99;
    --muted: #4a5563;
    --border: #c4cad3;
    --ok: #1a7f37;
    --warn: #9a6700;
    --bad: #b42318;
    --bg-soft: #f3f5f8;
  }
  h1, h2, h3 { line-height: 1.2; margin: 0.6em 0 0.4em; }
  h2 { font-size: 1.3rem; }
  h3 { font-size: 1.1rem; }
  a { color: var(--accent-dark); }
  a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, summary:focus-visible,
  [tabindex]:focus-visible {
    /* Two rings, so the indicator has 3:1 contrast (WCAG 1.4.11) on white (the dark one) and on the navy header (the amber one). */
    outline: 3px solid #f59e0b;
    outline-offset: 2px;
    box-shadow: 0 0 0 2px #1b1f24;
  }
  label { font-weight: 600; }
  input, select {
    font: inherit;
    padding: 0.35rem 0.5rem;
    border: 1px solid #6b7280;
    border-radius: 4px;
    background: #fff;
    color: inherit;
    min-height: 2.2rem;
    box-sizing: border-box;
  }
  button {
    font: inherit;
    padding: 0.4rem 0.9rem;
    min-height: 2.2rem;
    border-radius: 4px;
    border: 1px solid var(--accent-dark);
    background: var(--accent);
    color: #fff;
    cursor: pointer;
  }
  button.secondary { background: #fff; color: var(--accent-dark); }
  button.danger { background: var(--bad); border-color: #7a1710; }
  button:disabled { opacity: 0.55; cursor: not-allowed; }
  table { border-collapse: collapse; width: 100%; }
  th, td { text-align: left; padding: 0.4rem 0.5rem; border-bottom: 1px solid var(--border); vertical-align: top; }
  th { background: var(--bg-soft); font-weight: 600; }
  .num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
  .muted { color: var(--muted); }
  .error { color: var(--bad); background: #fdecea; border: 1px solid #f5c2bd; padding: 0.5rem 0.75rem; border-radius: 4px; }
  .notice { background: #eef4ff; border: 1px solid #b6ccf5; padding: 0.5rem 0.75rem; border-radius: 4px; }
  .ok { color: var(--ok); }
  .row { display: flex; flex-wrap: wrap; gap: 0.75rem; align-items: end; }
  .field { display: flex; flex-direction: column; gap: 0.2rem; }
  /*
   * A region that scrolls sideways on a narrow screen. position: relative keeps absolutely placed descendants (a
   * .visually-hidden header) inside it, or they widen the document. When it holds nothing focusable, give it
   * tabindex="0", role="region" and a label, so a keyboard can scroll it (WCAG 2.1.1; axe scrollable-region-focusable).
   */
  .scroll { overflow-x: auto; position: relative; }
  .visually-hidden {
    position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden;
    clip: rect(0, 0, 0, 0); white-space: nowrap; border: 0;
  }
`;

/**
 * Tables shown as cards on a narrow screen (up to 600px wide): each row a card of labelled lines instead of a table
 * wider than the screen, which would scroll sideways. Give the table class "cards" and each body cell a `data-label`
 * (its column's header; a cell without one, e.g. of buttons, gets no label); the header row stays for screen readers
 * only. Include after the page's own styles, so it lifts their min-width.
 */
export const cards = css`
  @media (max-width: 600px) {
    table.cards, table.cards caption, table.cards tbody, table.cards tr, table.cards td, table.cards tbody th { display: block; }
    table.cards { min-width: 0; }
    table.cards thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0, 0, 0, 0); }
    table.cards tr { border-bottom: 1px solid var(--border); padding: 0.35rem 0; }
    table.cards td, table.cards tbody th { border: none; padding: 0.1rem 0.25rem; text-align: left; white-space: normal; }
    table.cards [data-label]::before { content: attr(data-label) ': '; font-weight: 600; }
  }
`;

/** Usage bars: a track with a fill whose width is set through the CSSOM (pages/departments/bar.ts widthOf; the CSP allows it). */
export const bars = css`
  .bar {
    position: relative;
    height: 1.35rem;
    min-width: 8rem;
    background: #e5e9f0;
    border: 1px solid #aab3c0;
    border-radius: 3px;
    overflow: hidden;
  }
  .bar .fill { position: absolute; inset: 0 auto 0 0; background: #7aa7f0; }
  .bar .fill.high { background: #f2b84b; }
  .bar .fill.full { background: #f08a80; }
  .bar .label {
    position: relative;
    font-size: 0.8rem;
    padding: 0 0.35rem;
    line-height: 1.35rem;
    white-space: nowrap;
    color: #111;
    font-variant-numeric: tabular-nums;
  }
`;
