/**
 * Child processes of the launcher, the benchmarks and the tests: stopping one, and waiting until one answers its health
 * check.
 */
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Whether process `pid` exists (signal 0). A process of another user that we may not signal (EPERM) exists too.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Stops a child process: SIGTERM, then SIGKILL if it has not exited within 5 s.
 * @returns when it has exited.
 */
export function stopChild(child: ChildProcess): Promise<void> {
  return new Promise<void>((ok) => {
    if (child.exitCode !== null || child.signalCode !== null) return ok();
    child.once('exit', () => ok());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 5000).unref();
  });
}

/**
 * Polls `<url><path>` (by default `<url>/healthcheck`) until it answers 2xx.
 * @throws Error when `child` exits first or `timeoutMs` passes.
 */
export async function waitHealthy(
  url: string,
  child: ChildProcess,
  name: string,
  timeoutMs = 60_000,
  path = '/healthcheck',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited with code ${child.exitCode} during start-up`);
    try {
      const r = await fetch(`${url}${path}`);
      if (r.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${name} did not become healthy at ${url} within ${timeoutMs} ms`);
    await sleep(150);
  }
}
