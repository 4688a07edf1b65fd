/** The departments page's own styles (with the shared ones and the bars of ../../styles.ts), also the editor's. */
import { css } from 'lit';
import { bars, shared } from '../../styles';
import { usedBars } from './bar';

export const departmentStyles = [
  shared,
  bars,
  usedBars,
  css`
    .toolbar { margin: 0.5rem 0 1rem; }
    .summary-table td, .summary-table th { padding: 0.3rem 0.5rem; }
    .summary-table .bar { min-width: 14rem; }
    .dept {
      border: 1px solid var(--border);
      border-radius: 6px;
      padding: 0.6rem 0.8rem;
      margin: 0 0 0.75rem;
    }
    .dept-head { display: flex; flex-wrap: wrap; gap: 0.4rem 1rem; align-items: baseline; justify-content: space-between; }
    .dept-head h3 { margin: 0; }
    .dept-actions { display: flex; gap: 0.5rem; flex-wrap: wrap; align-items: center; }
    .reported { font-size: 0.85rem; margin: 0.3rem 0 0; }
    .keys { display: grid; grid-template-columns: repeat(auto-fit, minmax(17rem, 1fr)); gap: 0.5rem 1rem; margin-top: 0.5rem; }
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
    .legend { display: flex; flex-wrap: wrap; gap: 0.3rem 1rem; font-size: 0.85rem; margin: 0.3rem 0 0.6rem; }
    .legend .swatch { display: inline-block; width: 1.6rem; height: 0.8rem; border: 1px solid #aab3c0; vertical-align: middle; margin-right: 0.3rem; position: relative; overflow: hidden; }
    .legend .swatch .fill { position: absolute; inset: 0; }
    @media (max-width: 600px) {
      .summary-table .bar { min-width: 8rem; }
      .hide-narrow { display: none; }
    }
  `,
];
