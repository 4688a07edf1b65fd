/** `<stratum-departments>`: placeholder while the page is written. */
import { html, LitElement } from 'lit';
import type { Api } from '../api';
import { shared } from '../styles';

/** The departments page. */
export class DepartmentsPage extends LitElement {
  static override properties = { api: { attribute: false } };
  static override styles = [shared];
  declare api: Api | undefined;

  override render() {
    return html`<h2>Departments</h2>`;
  }
}

customElements.define('stratum-departments', DepartmentsPage);
