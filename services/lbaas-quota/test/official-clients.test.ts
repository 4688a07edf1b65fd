import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startTestStack, type TestStack } from '@stratum/testing';

const run = promisify(execFile);
const OPENSTACK = '/usr/bin/openstack';
const PYTHON = '/usr/bin/python3';

/**
 * The official clients from Debian (python3-octaviaclient 3.1.0 under python3-openstackclient, python3-openstacksdk
 * 0.101.0; deploy/scripts/install-openstack-clients.sh, run by `npm test`) against the gateway on a live port, with
 * `--os-auth-type admin_token` as an operator would use the embedded default. Pages hold 2 records, so every list
 * the clients make follows `quotas_links` (which Octavia breaks).
 */
describe('official OpenStack clients against the gateway', () => {
  let stack: TestStack;
  let server: Server;
  let endpoint: string;
  beforeAll(async () => {
    if (!existsSync(OPENSTACK)) throw new Error(`${OPENSTACK} missing: run deploy/scripts/install-openstack-clients.sh (npm test does)`);
    stack = await startTestStack({ lbaasEnv: { DEFAULT_POOL_QUOTA: '20', PAGINATION_MAX_LIMIT: '2' } });
    server = stack.gateway.listen(0, '127.0.0.1');
    await new Promise((ok) => server.once('listening', ok));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/load-balancer`;
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((ok) => server?.close(ok));
    await stack?.close();
  });

  const project = () => randomBytes(16).toString('hex');
  /** Runs `openstack loadbalancer quota …` as `who`; resolves with exit code, stdout and stderr. */
  async function cli(who: keyof TestStack['personas'], args: string[]) {
    const auth = ['--os-auth-type', 'admin_token', '--os-endpoint', endpoint, '--os-token', stack.personas[who].token];
    try {
      const { stdout, stderr } = await run(OPENSTACK, [...auth, 'loadbalancer', 'quota', ...args], { timeout: 60_000 });
      return { code: 0, stdout, stderr };
    } catch (e) {
      const err = e as { code?: number; stdout?: string; stderr?: string };
      return { code: err.code ?? 1, stdout: err.stdout ?? '', stderr: err.stderr ?? '' };
    }
  }
  const json = (r: { stdout: string }) => JSON.parse(r.stdout);

  it('openstack loadbalancer quota set / show / list / unset / reset / defaults show', async () => {
    const p = project();
    const others = [project(), project(), project()];
    for (const o of others) expect((await cli('admin', ['set', '--member', '5', o])).code).toBe(0);

    const set = await cli('admin', ['set', '--loadbalancer', '7', '--healthmonitor', '4', '--l7rule', '-1', p, '-f', 'json']);
    expect(set.code).toBe(0);
    expect(json(set)).toEqual({ load_balancer: 7, listener: -1, pool: 20, health_monitor: 4, member: -1, l7policy: -1, l7rule: -1 });

    const show = await cli('admin', ['show', p, '-f', 'json']);
    expect(json(show)).toMatchObject({ load_balancer: 7, health_monitor: 4, pool: 20 });

    // The CLI follows the next links: 4 records over pages of 2.
    const list = await cli('admin', ['list', '-f', 'json']);
    expect(list.code).toBe(0);
    const listed = json(list) as { project_id: string; load_balancer: number | null; pool: number | null }[];
    expect(listed.map((q) => q.project_id).sort()).toEqual([p, ...others].sort());
    expect(listed.find((q) => q.project_id === p)).toMatchObject({ load_balancer: 7, pool: null });

    const one = await cli('admin', ['list', '--project', p, '-f', 'json']);
    expect((json(one) as { project_id: string }[]).map((q) => q.project_id)).toEqual([p]);

    expect((await cli('admin', ['unset', '--loadbalancer', p])).code).toBe(0);
    expect(json(await cli('admin', ['show', p, '-f', 'json']))).toMatchObject({ load_balancer: -1, health_monitor: 4 });

    expect((await cli('admin', ['reset', p])).code).toBe(0);
    expect(json(await cli('admin', ['show', p, '-f', 'json']))).toMatchObject({ health_monitor: -1, pool: 20 });
  }, 180_000);

  it('a project member reads the defaults and their own quota; a set is refused with the policy message', async () => {
    const defaults = await cli('memberA', ['defaults', 'show', '-f', 'json']);
    expect(defaults.code).toBe(0);
    expect(json(defaults)).toMatchObject({ pool: 20, load_balancer: -1 });
    const own = await cli('memberA', ['show', stack.projectA, '-f', 'json']);
    expect(json(own)).toMatchObject({ pool: 20 });
    const refused = await cli('memberA', ['set', '--pool', '1', stack.projectA]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/Policy does not allow this request to be performed/);
  }, 120_000);

  it("openstacksdk's quota calls: update, get, list (paged), defaults, delete", async () => {
    const p = project();
    const { stdout } = await run(PYTHON, [join(__dirname, 'fixtures', 'openstacksdk_quotas.py'), endpoint, stack.personas.admin.token, p], {
      timeout: 60_000,
    });
    const out = JSON.parse(stdout.trim().split('\n').at(-1) as string);
    expect(out.update).toEqual({ load_balancers: 100, pools: 100, health_monitors: 100 });
    expect(out.get).toEqual({ load_balancers: 100, listeners: 100, members: 100 });
    expect(out.list).toContain(p);
    expect(out.default).toEqual({ load_balancers: -1, pools: 20 });
    expect(out.after_delete).toEqual({ pools: 20 });
    expect(out.delete_missing).toBe('NotFoundException');
  }, 120_000);
});
