/**
 * `<stratum-console>`: sign-in with a token, or with Keystone credentials when the gateway offers it (`GET
 * /console/auth`), who is signed in, the navigation, and the hash router.
 *
 * State lives in the URL's hash (`#/departments?region=RegionOne`) so links can be shared; the token never does: it
 * is kept in sessionStorage (gone when the tab closes) and sent only as `X-Auth-Token`. Keystone credentials are sent
 * once, in the body of `POST /console/auth/tokens`, and kept nowhere; the token Keystone issues is kept like a pasted
 * one. After a sign-in the shell asks the gateway who the token stands for (`GET /console/auth/tokens`), shows it in
 * the header and hands it to the pages (`caller`, kept in memory only).
 *
 * Pages are the modules under pages/ (each defines `<stratum-<route>>` with a property `api`); they are picked up
 * by the build (import.meta.glob), so a page is added by adding its file.
 */
import { css, html, LitElement, nothing, type TemplateResult } from 'lit';
import { Api, ApiError, type Caller, type KeystoneCredentials, keystoneSignIn, signInMethods, whoAmI } from './api';
import { shared } from './styles';

// Every page module registers its own element.
import.meta.glob(['./pages/*.ts', '!./pages/*.test.ts'], { eager: true });

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

/** How the header says what the token is scoped to and its roles: `project <id> · admin, member`. */
export function scopeText(c: Caller): string {
  const scope = c.scope === 'project' ? `project ${c.project?.id}` : c.scope === 'domain' ? `domain ${c.domain?.id}` : c.scope;
  return `${scope} · ${c.roles.length > 0 ? c.roles.map((r) => r.name).join(', ') : 'no roles'}`;
}

/** The scopes the Keystone form offers. */
type ScopeKind = KeystoneCredentials['scope']['kind'];

/** The Keystone sign-in's refusal as the form shows it. */
export function keystoneErrorText(e: unknown): string {
  if (!(e instanceof ApiError)) return `Could not sign in: ${e instanceof Error ? e.message : String(e)}`;
  if (e.status === 401) return 'User name or password not accepted (or no role on that scope).';
  if (e.status === 429) return `Too many attempts; try again in ${e.retryAfter ?? 60} s.`;
  if (e.status === 503) return 'Keystone is not answering. Try again shortly.';
  return `Could not sign in: ${e.message}`;
}

/** The shell: sign-in form, or header + nav + the current page. */
export class StratumConsole extends LitElement {
  static override properties = {
    api: { state: true },
    who: { state: true },
    caller: { state: true },
    route: { state: true },
    error: { state: true },
    busy: { state: true },
    methods: { state: true },
    scope: { state: true },
    keystoneError: { state: true },
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
      header .who { display: flex; gap: 0.25rem 0.75rem; align-items: center; flex-wrap: wrap; }
      header .who span { overflow-wrap: anywhere; }
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
      .signin input, .signin select { width: 100%; }
      .signin .or { margin-top: 1.5rem; padding-top: 1rem; border-top: 1px solid var(--border); font-size: 1.1rem; }
      .signin .error:empty { padding: 0; border: 0; margin: 0; }
      .signin fieldset { border: 1px solid var(--border); border-radius: 6px; padding: 0.5rem 0.75rem 0.75rem; margin: 0; display: flex; flex-direction: column; gap: 0.5rem; }
      .signin legend { font-weight: 600; padding: 0 0.25rem; }
      .signin h2 { margin-bottom: 0; }
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
  /** Who the token stands for (`GET /console/auth/tokens`); undefined when the gateway could not say. */
  declare caller: Caller | undefined;
  declare route: string;
  declare error: string;
  declare busy: boolean;
  /** The sign-in methods the gateway offers (`GET /console/auth`); `password` shows the Keystone form. */
  declare methods: string[];
  declare scope: ScopeKind;
  declare keystoneError: string;
  #page: HTMLElement | undefined;
  #pageKey = '';

  constructor() {
    super();
    this.api = undefined;
    this.who = undefined;
    this.caller = undefined;
    this.route = routePath();
    this.error = '';
    this.busy = false;
    this.methods = ['token'];
    this.scope = 'project';
    this.keystoneError = '';
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
    void signInMethods().then((m) => {
      this.methods = m;
    });
  }

  override disconnectedCallback(): void {
    window.removeEventListener('hashchange', this.#onHash);
    super.disconnectedCallback();
  }

  /**
   * Checks the token against the API and keeps it. GET /v3/domain_usage is the cheapest call that tells a cloud
   * admin (200) from another valid token (403) and an invalid one (401). Who the token stands for is asked at the
   * same time; a gateway that cannot say (anything but a 401) leaves it unknown, and the pages ask instead.
   */
  async #signIn(token: string): Promise<void> {
    this.busy = true;
    this.error = '';
    const api = new Api(token);
    try {
      const cloudAdmin = async (): Promise<Who> => {
        try {
          await api.get('/v3/domain_usage');
          return { kind: 'cloud-admin' };
        } catch (e) {
          if (e instanceof ApiError && e.status === 403) return { kind: 'user' };
          throw e;
        }
      };
      const caller = whoAmI(api).catch((e: unknown) => {
        if (e instanceof ApiError && e.status === 401) throw e;
        return undefined;
      });
      const [who, known] = await Promise.all([cloudAdmin(), caller]);
      sessionStorage.setItem(TOKEN_KEY, token);
      this.api = api;
      this.who = who;
      this.caller = known;
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

  /**
   * The Keystone form: its fields go to the gateway once (request body), the password field is cleared whatever the
   * answer, and the issued token takes the same path as a pasted one (#signIn).
   */
  async #submitKeystone(e: SubmitEvent): Promise<void> {
    e.preventDefault();
    const form = e.target as HTMLFormElement;
    const field = (name: string) => (form.elements.namedItem(name) as HTMLInputElement | HTMLSelectElement | null)?.value.trim() ?? '';
    const passwordInput = form.elements.namedItem('password') as HTMLInputElement | null;
    const password = passwordInput?.value ?? '';
    if (passwordInput) passwordInput.value = '';
    const scope: KeystoneCredentials['scope'] =
      this.scope === 'project'
        ? { kind: 'project', name: field('project'), domain: field('projectDomain') }
        : this.scope === 'domain'
          ? { kind: 'domain', name: field('domain') }
          : { kind: 'system' };
    const credentials: KeystoneCredentials = { username: field('username'), password, userDomain: field('userDomain'), scope };
    this.keystoneError = '';
    this.error = '';
    this.busy = true;
    try {
      const token = await keystoneSignIn(credentials);
      await this.#signIn(token);
    } catch (err) {
      this.keystoneError = keystoneErrorText(err);
      passwordInput?.focus();
    } finally {
      this.busy = false;
    }
  }

  #signOut(): void {
    sessionStorage.removeItem(TOKEN_KEY);
    this.api = undefined;
    this.who = undefined;
    this.caller = undefined;
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
      const el = document.createElement(tag) as HTMLElement & { api?: Api; caller?: Caller; isAdmin?: boolean };
      el.api = api;
      el.caller = this.caller;
      el.isAdmin = this.who?.kind === 'cloud-admin';
      this.#page = el;
      this.#pageKey = this.route;
    }
    return this.#page;
  }

  #renderSignIn(): TemplateResult {
    return html`<main>
      <section class="signin" aria-labelledby="signin-title">
        <h1 id="signin-title">Stratum console</h1>
        ${
          this.methods.includes('password')
            ? html`${this.#renderKeystoneForm()}<h2 class="or" id="token-title">Or sign in with a token</h2>`
            : nothing
        }
        <form @submit=${this.#submit} method="post" autocomplete="off" aria-label="Sign in with a token">
          <label for="token">API token</label>
          <input id="token" name="token" type="password" data-testid="token-input" autocomplete="off"
            spellcheck="false" aria-describedby="token-help" required />
          <button type="submit" data-testid="sign-in" ?disabled=${this.busy}>${this.busy ? 'Signing in…' : 'Sign in'}</button>
        </form>
        ${this.error ? html`<p class="error" role="alert">${this.error}</p>` : nothing}
        <div id="token-help" class="muted">
          ${
            this.methods.includes('password')
              ? html`<p>This gateway uses Keystone. With your Keystone user name and password, the gateway asks Keystone
                  for a scoped token (the browser never talks to Keystone); or paste a scoped token from
                  <code>openstack token issue</code> (its <code>id</code>).</p>`
              : html`<p>With <code>npm start</code>, paste the admin token it prints. When the gateway uses Keystone,
                  this page also offers a Keystone user name and password sign-in.</p>`
          }
          <p>The token is kept in this tab's session storage only and is sent to the API only; a password is sent
            once, to the gateway, and kept nowhere.</p>
        </div>
      </section>
    </main>`;
  }

  /** The Keystone sign-in form (shown when the gateway offers `password`). */
  #renderKeystoneForm(): TemplateResult {
    const scopeFields =
      this.scope === 'project'
        ? html`<label for="ks-project">Project name</label>
            <input id="ks-project" name="project" data-testid="keystone-project" autocomplete="off" spellcheck="false" required maxlength="255" />
            <label for="ks-project-domain">Project domain</label>
            <input id="ks-project-domain" name="projectDomain" data-testid="keystone-project-domain" autocomplete="off"
              spellcheck="false" required maxlength="255" value="Default" />`
        : this.scope === 'domain'
          ? html`<label for="ks-domain">Domain name</label>
              <input id="ks-domain" name="domain" data-testid="keystone-domain" autocomplete="off" spellcheck="false" required maxlength="255" />`
          : html`<p class="muted">The system scope is for cloud admins (a role on the system).</p>`;
    return html`<form data-testid="keystone-form" method="post" aria-labelledby="keystone-title" @submit=${this.#submitKeystone}>
      <h2 id="keystone-title">Sign in with Keystone</h2>
      <label for="ks-username">User name</label>
      <input id="ks-username" name="username" data-testid="keystone-username" autocomplete="username" spellcheck="false"
        autocapitalize="off" required maxlength="255" />
      <label for="ks-password">Password</label>
      <input id="ks-password" name="password" type="password" data-testid="keystone-password" autocomplete="current-password"
        required maxlength="4096" />
      <label for="ks-user-domain">User domain</label>
      <input id="ks-user-domain" name="userDomain" data-testid="keystone-user-domain" autocomplete="off" spellcheck="false"
        required maxlength="255" value="Default" />
      <fieldset>
        <legend>Scope</legend>
        <label for="ks-scope">Sign in to</label>
        <select id="ks-scope" name="scope" data-testid="keystone-scope"
          @change=${(e: Event) => {
            this.scope = (e.target as HTMLSelectElement).value as ScopeKind;
          }}>
          <option value="project" ?selected=${this.scope === 'project'}>a project</option>
          <option value="domain" ?selected=${this.scope === 'domain'}>a domain</option>
          <option value="system" ?selected=${this.scope === 'system'}>the system (cloud admin)</option>
        </select>
        ${scopeFields}
      </fieldset>
      <button type="submit" data-testid="keystone-sign-in" ?disabled=${this.busy}>${this.busy ? 'Signing in…' : 'Sign in with Keystone'}</button>
      <p class="error" role="alert" data-testid="keystone-error">${this.keystoneError}</p>
    </form>`;
  }

  override render(): TemplateResult {
    const api = this.api;
    if (api === undefined) return this.#renderSignIn();
    const admin = this.who?.kind === 'cloud-admin';
    const c = this.caller;
    const whoText = c
      ? `Signed in as ${c.user.id}${admin ? ' (cloud admin)' : ''}`
      : admin
        ? 'Signed in as cloud admin'
        : 'Signed in (not a cloud admin)';
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
          ${c ? html`<span data-testid="signed-in-scope">${scopeText(c)}</span>` : nothing}
          <button type="button" data-testid="sign-out" @click=${this.#signOut}>Sign out</button>
        </div>
      </header>
      <main>${this.#pageElement(api)}</main>`;
  }
}

customElements.define('stratum-console', StratumConsole);
