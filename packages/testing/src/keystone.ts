/**
 * A real Keystone for integration tests and the gateway benchmark (Debian's `keystone` package, installed by
 * deploy/scripts/install-openstack-clients.sh): SQLite, fernet tokens, the `admin` user bootstrapped with a random
 * password, served on loopback by the package's own `keystone-wsgi-public` test server. Optionally publishes its
 * notifications (CADF) to RabbitMQ on an exchange of the caller's choosing, so a test owns its messages.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, stopChild, waitHealthy } from '@stratum/store-runtime';

export interface KeystoneOptions {
  /** Publish notifications to this AMQP broker (`rabbit://user:pass@host:port/`) and exchange (control_exchange). */
  notifications?: { transportUrl: string; exchange: string };
  /** Lifetime of the tokens it issues, in seconds (Keystone's `[token] expiration`; its default is 3600). */
  tokenExpirationSeconds?: number;
}

export interface RunningKeystone {
  /** e.g. `http://127.0.0.1:41234/v3` */
  url: string;
  adminPassword: string;
  /** A project-scoped token of the bootstrapped admin (project `admin`, domain `Default`). */
  adminToken(): Promise<string>;
  /**
   * The settings (@stratum/keystone KeystoneEnv) of a gateway or service that uses this Keystone with its bootstrapped
   * admin as the service user: KEYSTONE_URL, _USERNAME, _PASSWORD, _PROJECT_NAME, and both domains `Default`.
   */
  serviceEnv(): Record<string, string>;
  stop(): Promise<void>;
}

export const KEYSTONE_MANAGE = '/usr/bin/keystone-manage';

/**
 * Creates, bootstraps and serves a Keystone. Takes about ten seconds (keystone-manage runs four times).
 * @throws Error when the package is missing or Keystone does not answer within `timeoutMs`.
 */
export async function startKeystone(opts: KeystoneOptions = {}, timeoutMs = 60_000): Promise<RunningKeystone> {
  const dir = mkdtempSync(join(tmpdir(), 'stratum-keystone-'));
  for (const d of ['fernet', 'credential']) mkdirSync(join(dir, d));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/v3`;
  const adminPassword = randomBytes(12).toString('hex');
  const conf = join(dir, 'keystone.conf');
  const n = opts.notifications;
  writeFileSync(
    conf,
    [
      '[DEFAULT]',
      `log_file = ${join(dir, 'keystone.log')}`,
      ...(n ? [`transport_url = ${n.transportUrl}`, `control_exchange = ${n.exchange}`] : []),
      '[database]',
      `connection = sqlite:///${join(dir, 'keystone.db')}`,
      '[token]',
      'provider = fernet',
      ...(opts.tokenExpirationSeconds ? [`expiration = ${opts.tokenExpirationSeconds}`] : []),
      '[fernet_tokens]',
      `key_repository = ${join(dir, 'fernet')}`,
      '[fernet_receipts]',
      `key_repository = ${join(dir, 'fernet')}`,
      '[credential]',
      `key_repository = ${join(dir, 'credential')}`,
      '[oslo_messaging_notifications]',
      `driver = ${n ? 'messagingv2' : 'noop'}`,
      'topics = notifications',
      '',
    ].join('\n'),
  );
  const manage = (...args: string[]) =>
    execFileSync(KEYSTONE_MANAGE, ['--config-file', conf, ...args], { stdio: ['ignore', 'ignore', 'pipe'], timeout: timeoutMs });
  manage('db_sync');
  manage('fernet_setup', '--keystone-user', 'root', '--keystone-group', 'root');
  manage('credential_setup', '--keystone-user', 'root', '--keystone-group', 'root');
  manage('bootstrap', '--bootstrap-password', adminPassword, '--bootstrap-public-url', url, '--bootstrap-region-id', 'RegionOne');

  const child: ChildProcess = spawn('/usr/bin/keystone-wsgi-public', ['--host', '127.0.0.1', '--port', String(port)], {
    env: { ...process.env, OS_KEYSTONE_CONFIG_FILES: conf },
    stdio: 'ignore',
  });
  const stop = async () => {
    await stopChild(child);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitHealthy(url, child, 'keystone', timeoutMs, '');
  } catch (e) {
    await stop();
    throw e;
  }

  const adminToken = async () => {
    const res = await fetch(`${url}/auth/tokens`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        auth: {
          identity: { methods: ['password'], password: { user: { name: 'admin', domain: { id: 'default' }, password: adminPassword } } },
          scope: { project: { name: 'admin', domain: { id: 'default' } } },
        },
      }),
    });
    const token = res.headers.get('x-subject-token');
    if (!token) throw new Error(`keystone refused the admin password (HTTP ${res.status})`);
    return token;
  };
  const serviceEnv = () => ({
    KEYSTONE_URL: url,
    KEYSTONE_USERNAME: 'admin',
    KEYSTONE_PASSWORD: adminPassword,
    KEYSTONE_USER_DOMAIN_NAME: 'Default',
    KEYSTONE_PROJECT_NAME: 'admin',
    KEYSTONE_PROJECT_DOMAIN_NAME: 'Default',
  });
  return { url, adminPassword, adminToken, serviceEnv, stop };
}
