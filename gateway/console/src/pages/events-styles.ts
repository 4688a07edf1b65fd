/** The events page's styles (with the shared ones first): the search form, the list, the timeline, the traits. */
import { css } from 'lit';
import { shared } from '../styles';

export const eventsStyles = [
  shared,
  css`
    form.search {
      display: grid;
      grid-template-columns: repeat(auto-fill, minmax(14rem, 1fr));
      gap: 0.75rem 1rem;
      /* Labels on one line across a row; the checkbox and the buttons line up with the fields' boxes. */
      align-items: start;
    }
    form.search .wide {
      grid-column: span 2;
    }
    form.search > .checkbox,
    form.search > .buttons {
      align-self: end;
    }
    .checkbox {
      flex-direction: row;
      align-items: center;
      gap: 0.4rem;
      min-height: 2.2rem;
    }
    .checkbox input {
      min-height: auto;
      width: 1.1rem;
      height: 1.1rem;
    }
    .buttons {
      display: flex;
      flex-wrap: wrap;
      gap: 0.5rem;
      align-items: center;
    }
    .summary {
      margin: 0.75rem 0 0.25rem;
    }
    ol.events {
      list-style: none;
      margin: 0;
      padding: 0;
    }
    ol.events > li {
      border-bottom: 1px solid var(--border);
      padding: 0.35rem 0.25rem;
    }
    /* A timeline: a line down the left, a dot per event. */
    ol.timeline {
      border-left: 3px solid #7aa7f0;
      margin-left: 0.5rem;
    }
    ol.timeline > li {
      position: relative;
      padding-left: 1rem;
      border-bottom: none;
    }
    ol.timeline > li::before {
      content: '';
      position: absolute;
      left: -0.5rem;
      top: 0.85rem;
      width: 0.7rem;
      height: 0.7rem;
      border-radius: 50%;
      background: var(--accent);
      border: 2px solid #fff;
    }
    .head {
      display: flex;
      flex-wrap: wrap;
      gap: 0.25rem 1rem;
      align-items: center;
    }
    .type {
      font-weight: 700;
      word-break: break-word;
    }
    time {
      font-variant-numeric: tabular-nums;
      color: var(--muted);
      white-space: nowrap;
    }
    .mono {
      font-family: ui-monospace, SFMono-Regular, Menlo, monospace;
      word-break: break-all;
    }
    .meta {
      display: flex;
      flex-wrap: wrap;
      gap: 0.25rem 1rem;
      font-size: 0.92em;
      margin-top: 0.2rem;
    }
    button.link {
      background: none;
      border: none;
      color: var(--accent-dark);
      text-decoration: underline;
      padding: 0;
      min-height: auto;
      font: inherit;
      cursor: pointer;
    }
    button.traits {
      margin-left: auto;
      padding: 0.1rem 0.6rem;
      min-height: 1.9rem;
      font-size: 0.9em;
    }
    .traits-table {
      margin-top: 0.4rem;
      overflow-x: auto;
    }
    .traits-table td {
      word-break: break-word;
    }
    @media (max-width: 600px) {
      form.search {
        grid-template-columns: 1fr;
      }
      form.search .wide {
        grid-column: auto;
      }
    }
  `,
];
