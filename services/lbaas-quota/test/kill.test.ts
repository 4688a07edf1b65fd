/**
 * kill -9 of the service in the middle of a burst of consumes: every acknowledged consume is in the store, nothing
 * more than was sent is, and a restarted service goes on from the stored state (one conditional write per change, so
 * there is nothing half-written to repair).
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { signIdentity } from '@stratum/identity';
import { freePort, stopChild } from '@stratum/store-runtime';
import { startServiceProcess } from '@stratum/testing';

jest.setTimeout(120_000);

describe('lbaas-quota killed mid-burst', () => {
  const secret = randomBytes(24).toString('hex');
  const database = `t_${randomBytes(6).toString('hex')}`;
  // Signed per request: a signature is bound to its method, path and body.
  const service = (url: string, body: string) =>
    signIdentity({ userId: 'octavia', projectId: 'service', domainId: 'default', roles: ['service'] }, secret, {
      method: 'POST',
      url,
      body,
    });
  const admin = (url: string) =>
    signIdentity({ userId: 'admin', projectId: 'admin', domainId: 'default', roles: ['admin'] }, secret, { method: 'GET', url });
  let child: ChildProcess | undefined;
  let baseUrl = '';

  const startService = (port: number) => startServiceProcess('lbaas-quota', port, { database, secret });

  /** A project's `member` in_use, as the admin reads it. */
  async function membersInUse(projectId: string): Promise<number> {
    const r = await fetch(`${baseUrl}/v2.0/lbaas/quotas/${projectId}/usage`, { headers: admin(`/v2.0/lbaas/quotas/${projectId}/usage`) });
    expect(r.status).toBe(200);
    return ((await r.json()) as { usage: { member: { in_use: number } } }).usage.member.in_use;
  }

  afterAll(async () => {
    if (child) await stopChild(child);
  });

  it('keeps every acknowledged consume and no more than were sent', async () => {
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    child = await startService(port);
    const projects = Array.from({ length: 4 }, () => randomBytes(16).toString('hex'));
    const acknowledged = new Map(projects.map((p) => [p, 0]));
    const sent = new Map(projects.map((p) => [p, 0]));
    const consume = async (p: string) => {
      sent.set(p, (sent.get(p) ?? 0) + 1);
      const body = JSON.stringify({ consume: { member: 1 } });
      try {
        const r = await fetch(`${baseUrl}/v2.0/lbaas/quotas/${p}/usage`, {
          method: 'POST',
          headers: { ...service(`/v2.0/lbaas/quotas/${p}/usage`, body), 'Content-Type': 'application/json' },
          body,
        });
        if (r.status === 200) acknowledged.set(p, (acknowledged.get(p) ?? 0) + 1);
      } catch {
        // the connection died with the process: not acknowledged
      }
    };
    // 16 clients consuming in a loop until the process is gone.
    let running = true;
    const clients = Array.from({ length: 16 }, async (_, i) => {
      while (running) await consume(projects[i % projects.length] as string);
    });
    const victim = child;
    // Kill once a few hundred consumes have been acknowledged, in the middle of the burst.
    for (let i = 0; i < 600 && [...acknowledged.values()].reduce((a, b) => a + b, 0) < 300; i++)
      await new Promise((r) => setTimeout(r, 25));
    victim.kill('SIGKILL');
    await new Promise((r) => victim.once('exit', r));
    running = false;
    await Promise.all(clients);

    child = await startService(port);
    for (const p of projects) {
      const inUse = await membersInUse(p);
      expect(inUse).toBeGreaterThanOrEqual(acknowledged.get(p) as number);
      expect(inUse).toBeLessThanOrEqual(sent.get(p) as number);
    }
    expect([...acknowledged.values()].reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(300);
    // The restarted service changes the same records on from where they are.
    const p = projects[0] as string;
    const before = await membersInUse(p);
    await consume(p);
    const after = await membersInUse(p);
    expect(after).toBe(before + 1);
  });
});
