/**
 * `<stratum-console>`: sign-in with a token, who is signed in, the navigation, and the hash router.
 *
 * State lives in the URL's hash (`#/departments?region=RegionOne`) so links can be shared; the token never does: it
 * is kept in sessionStorage (gone when the tab closes) and sent only as `X-Auth-Token`.
 *
 * Pages are the modules under pages/ (each defines `<stratum-<route>>` with a property `api`); they are picked up
 * by the build (import.meta.glob), so a page is added by adding its file.
 */
import { css, html, LitElement, nothing, type TemplateResult } from 'lit';
import { Api, ApiError } from './api';
import { shared } from './styles';

// Every page module registers its own element.
import.meta.glob('./pages/*.ts', { eager: true });

const TOKEN_KEY = 'stratum.console.token';

/** The routes of the navigation, in order: hash path → label. */
export const ROUTES: ReadonlyArray<{ path: string; label: string; nav: boolean }> = [
  { path: 'departments', label: 'Departments', nav: true },
  { path: 'lbaas', label: 'Load balancer quotas', nav: true },
  { path: 'events', label: 'Events', nav: true },
  { path: 'audit', label: 'Audit trail', nav: false },
];

const DEFAULT_ROUTE = 'departments';

/** The route of the current hash (`#/departments?…` → 'departments'). */
export function routePath(hash = location.hash): string {
  const path = hash.replace(/^#\/?/, '').split('?')[0] ?? '';
  return path === '' ? DEFAULT_ROUTE : path;
}

/** The query of the current hash (`#/departments?region=RegionOne` → region=RegionOne). */
export function routeParams(hash = location.hash): URLSearchParams {
  const i = hash.indexOf('?');
  return new URLSearchParams(i < 0 ? '' : hash.slice(i + 1));
}

/**
 * Puts a page's state into the URL (for sharing and reload) without re-rendering the page: replaceState fires no
 * hashchange. Empty values are left out. Never put a token here.
 */
export function setRouteParams(p: URLSearchParams | Record<string, string | undefined>, path = routePath()): void {
  const q = new URLSearchParams();
  const entries = p instanceof URLSearchParams ? [...p.entries()] : Object.entries(p);
  for (const [k, v] of entries) if (v !== undefined && v !== '') q.append(k, v);
  const query = q.toString();
  history.replaceState(history.state, '', `#/${path}${query ? `?${query}` : ''}`);
}

/** What the sign-in learned about the token. */
type Who = { kind: 'cloud-admin' } | { kind: 'user' };

/** The shell: sign-in form, or header + nav + the current page. */
export class StratumConsole extends LitElement {
  static override properties = {
    api: { state: true },
    who: { state: true },
    route: { state: true },
    error: { state: true },
    busy: { state: true },
  };

  static override styles = [
    shared,
    css`
      header {
        display: flex;
        flex-wrap: wrap;
        gap: 0.5rem 1.5rem;
        align-items: center;
        justify-content: space-between;
        padding: 0.6rem 1rem;
        background: #102a43;
        color: #fff;
      }
      header .brand { font-weight: 700; font-size: 1.1rem; color: #fff; text-decoration: none; }
      header .who { display: flex; gap: 0.75rem; align-items: center; flex-wrap: wrap; }
      header button { background: #fff; color: #102a43; border-color: #fff; }
      nav ul { list-style: none; display: flex; flex-wrap: wrap; gap: 0.25rem; margin: 0; padding: 0; }
      nav a {
        display: inline-block;
        padding: 0.35rem 0.7rem;
        border-radius: 4px;
        color: #fff;
        text-decoration: none;
      }
      nav a[aria-current='page'] { background: #fff; color: #102a43; font-weight: 600; }
      nav a:hover { text-decoration: underline; }
      main { padding: 0.75rem 1rem 2rem; max-width: 1280px; margin: 0 auto; }
      .signin { max-width: 34rem; margin: 3rem auto; padding: 1.5rem; border: 1px solid var(--border); border-radius: 8px; }
      .signin form { display: flex; flex-direction: column; gap: 0.75rem; }
      .signin input { width: 100%; }
      .signin p { margin: 0.4rem 0; }
      code { background: var(--bg-soft); padding: 0 0.25rem; border-radius: 3px; }
      @media (max-width: 600px) {
        main { padding: 0.5rem; }
        .signin { margin: 1rem 0.5rem; padding: 1rem; }
      }
    `,
  ];

  declare api: Api | undefined;
  declare who: Who | undefined;
  declare route: string;
  declare error: string;
  declare busy: boolean;
  #page: HTMLElement | undefined;
  #pageKey = '';

  constructor() {
    super();
    this.api = undefined;
    this.who = undefined;
    this.route = routePath();
    this.error = '';
    this.busy = false;
  }

  readonly #onHash = () => {
    this.route = routePath();
    this.#pageKey = ''; // a navigation: a fresh page reads its state from the new hash
    this.requestUpdate();
  };

  override connectedCallback(): void {
    super.connectedCallback();
    window.addEventListener('hashchange', this.#onHash);
    const saved = sessionStorage.getItem(TOKEN_KEY);
    if (saved) void this.#signIn(saved);
  }

  override disconnectedCallback(): void {
    window.removeEventListener('hashchange', this.#onHash);
    super.disconnectedCallback();
  }

  /**
   * Checks the token against the API and keeps it. GET /v3/domain_usage is the cheapest call that tells a cloud
   * admin (200) from another valid token (403) and an invalid one (401).
   */
  async #signIn(token: string): Promise<void> {
    this.busy = true;
    this.error = '';
    const api = new Api(token);
    try {
      let who: Who = { kind: 'cloud-admin' };
      try {
        await api.get('/v3/domain_usage');
      } catch (e) {
        if (e instanceof ApiError && e.status === 403) who = { kind: 'user' };
        else throw e;
      }
      sessionStorage.setItem(TOKEN_KEY, token);
      this.api = api;
      this.who = who;
    } catch (e) {
      sessionStorage.removeItem(TOKEN_KEY);
      this.error =
        e instanceof ApiError && e.status === 401
          ? 'The token was not accepted (401). Check it and try again.'
          : `Could not sign in: ${e instanceof Error ? e.message : String(e)}`;
    } finally {
      this.busy = false;
    }
  }

  #submit(e: SubmitEvent): void {
    e.preventDefault();
    const form = e.target as HTMLFormElement;
    const input = form.querySelector('input');
    const token = input?.value.trim() ?? '';
    if (input) input.value = '';
    if (token === '') {
      this.error = 'Enter a token.';
      return;
    }
    void this.#signIn(token);
  }

  #signOut(): void {
    sessionStorage.removeItem(TOKEN_KEY);
    this.api = undefined;
    this.who = undefined;
    this.#page = undefined;
    this.#pageKey = '';
  }

  /** The page element of the route, created once per navigation so it keeps its state while it is shown. */
  #pageElement(api: Api): HTMLElement | TemplateResult {
    const tag = `stratum-${this.route}`;
    if (!ROUTES.some((r) => r.path === this.route) || !customElements.get(tag)) {
      return html`<p class="error" role="alert">No page at <code>#/${this.route}</code>. <a href="#/departments">Departments</a></p>`;
    }
    if (this.#page === undefined || this.#pageKey !== this.route) {
      const el = document.createElement(tag) as HTMLElement & { api?: Api };
      el.api = api;
      this.#page = el;
      this.#pageKey = this.route;
    }
    return this.#page;
  }

  #renderSignIn(): TemplateResult {
    return html`<main>
      <section class="signin" aria-labelledby="signin-title">
        <h1 id="signin-title">Stratum console</h1>
        <form @submit=${this.#submit} autocomplete="off">
          <label for="token">API token</label>
          <input id="token" name="token" type="password" data-testid="token-input" autocomplete="off"
            spellcheck="false" aria-describedby="token-help" required />
          <button type="submit" data-testid="sign-in" ?disabled=${this.busy}>${this.busy ? 'Signing in…' : 'Sign in'}</button>
        </form>
        ${this.error ? html`<p class="error" role="alert">${this.error}</p>` : nothing}
        <div id="token-help" class="muted">
          <p>With <code>npm start</code>, paste the admin token it prints.</p>
          <p>When the gateway uses Keystone, paste a scoped token from <code>openstack token issue</code> (its
            <code>id</code>): the browser cannot reach Keystone itself.</p>
          <p>The token is kept in this tab's session storage only and is sent to the API only.</p>
        </div>
      </section>
    </main>`;
  }

  override render(): TemplateResult {
    const api = this.api;
    if (api === undefined) return this.#renderSignIn();
    const whoText = this.who?.kind === 'cloud-admin' ? 'Signed in as cloud admin' : 'Signed in (not a cloud admin)';
    return html`<header>
        <a class="brand" href="#/departments">Stratum console</a>
        <nav aria-label="Main">
          <ul>
            ${ROUTES.filter((r) => r.nav).map(
              (r) => html`<li><a href="#/${r.path}" data-testid="nav-${r.path}"
                aria-current=${this.route === r.path ? 'page' : nothing}>${r.label}</a></li>`,
            )}
          </ul>
        </nav>
        <div class="who">
          <span data-testid="signed-in-as">${whoText}</span>
          <button type="button" data-testid="sign-out" @click=${this.#signOut}>Sign out</button>
        </div>
      </header>
      <main>${this.#pageElement(api)}</main>`;
  }
}

customElements.define('stratum-console', StratumConsole);
