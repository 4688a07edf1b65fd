/** The load balancer quotas page's styles (with the shared ones first, and the list as cards on a narrow screen last). */
import { css } from 'lit';
import { cards, shared } from '../styles';

export const lbaasStyles = [
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
  cards,
];
