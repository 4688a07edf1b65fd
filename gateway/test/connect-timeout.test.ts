/**
 * A replica whose host drops connection attempts (rather than refusing them) behind the gateway: with two replicas,
 * a read that meets it gives up connecting after UPSTREAM_CONNECT_TIMEOUT_MS and is answered by the other replica,
 * instead of waiting out UPSTREAM_TIMEOUT_MS (gateway/README.md "Replicas"). The dropping host is a loopback port
 * whose SYNs an iptables rule drops; the test skips without root or iptables, and removes its rule afterwards.
 */
import type { ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:net';
import { freePort, stopChild } from '@stratum/store-runtime';
import { listenGateway, startServiceProcess, startTestStack, type TestStack, tokenOf, uuid } from '@stratum/testing';

jest.setTimeout(60_000);

const CONNECT_TIMEOUT_MS = 300;

/** Whether this process may add an iptables rule (root, iptables present and working). */
function canDrop(): boolean {
  if (process.getuid?.() !== 0) return false;
  try {
    execFileSync('iptables', ['-S', 'INPUT'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const dropRule = (port: number) => ['INPUT', '-i', 'lo', '-p', 'tcp', '--dport', String(port), '--syn', '-j', 'DROP'];

(canDrop() ? describe : describe.skip)('a replica that drops connection attempts', () => {
  let stack: TestStack;
  let gateway: { url: string; close(): Promise<void> };
  let child: ChildProcess | undefined;
  let dropped = 0;
  let holder: Server | undefined;

  beforeAll(async () => {
    const [live, silent] = [await freePort(), await freePort()];
    // Held open while the rule stands, so no other test is given this port (its connections would hang too).
    holder = createServer().listen(silent, '127.0.0.1');
    await once(holder, 'listening');
    dropped = silent;
    execFileSync('iptables', ['-I', ...dropRule(silent)]);
    stack = await startTestStack({
      upstreamOverride: { LBAAS_QUOTA_URL: `http://127.0.0.1:${live},http://127.0.0.1:${silent}` },
      gatewayEnv: { UPSTREAM_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS), UPSTREAM_TIMEOUT_MS: '20000' },
    });
    child = await startServiceProcess('lbaas-quota', live, {
      database: stack.db.databaseName,
      secret: stack.gatewayDeps.config.STRATUM_IDENTITY_SECRET,
    });
    gateway = await listenGateway(stack);
  });
  afterAll(async () => {
    if (dropped) execFileSync('iptables', ['-D', ...dropRule(dropped)]);
    holder?.close();
    await gateway?.close();
    if (child) await stopChild(child);
    await stack?.close();
  });

  it('gives up connecting after the connect timeout and answers every read from the live replica', async () => {
    const headers = tokenOf(stack, 'admin');
    const took: number[] = [];
    // Round-robin: the first reads meet the silent replica too (then it cools down, and is met again after).
    for (let i = 0; i < 4; i++) {
      const t0 = performance.now();
      const res = await fetch(`${gateway.url}/v2.0/lbaas/quotas/${uuid()}`, { headers });
      took.push(performance.now() - t0);
      expect(res.status).toBe(200);
    }
    const retries = (await stack.gatewayDeps.metrics.upstreamRetries.get()).values.find((v) => v.labels.group === 'lbaas')?.value ?? 0;
    expect(retries).toBeGreaterThanOrEqual(1);
    // Not UPSTREAM_TIMEOUT_MS (20 s): the connect timeout, plus the live replica's answer.
    expect(Math.max(...took)).toBeLessThan(10_000);
  });
});
