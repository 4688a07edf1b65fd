/**
 * The replicas bench's processes: each entry point started on its own port with its environment, its health waited
 * for, and (when asked) its stdout kept; the machine's broker and Redis the bench uses.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort, ROOT, stopChild, waitHealthy } from '@stratum/store-runtime';

export const AMQP_URL = process.env.BENCH_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
export const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/0';
/** A process the bench started: its name, base URL, the child and (when captured) its stdout lines. */
export interface Proc {
  name: string;
  url: string;
  child: ChildProcess;
  lines: string[];
}

/**
 * Starts `file` (an entry point under the repository) on a free port with `env` over the bench's environment and
 * waits for its health check. The IPC channel makes the child stop if the bench dies (http-kit's serve).
 * @param capture keep its stdout lines (JSON logs) in `lines`; otherwise stdout is discarded.
 * @param onPort the port to listen on (a replica restarted where it was); default a free one.
 * @throws Error when it exits or does not become healthy (it is stopped then).
 */
export async function startProc(name: string, file: string, env: Record<string, string>, capture = false, onPort?: number): Promise<Proc> {
  const port = onPort ?? (await freePort());
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, file)], {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', capture ? 'pipe' : 'ignore', 'inherit', 'ipc'],
  });
  const lines: string[] = [];
  if (capture && child.stdout) {
    let rest = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      const parts = (rest + chunk).split('\n');
      rest = parts.pop() ?? '';
      lines.push(...parts);
    });
  }
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitHealthy(url, child, name);
  } catch (err) {
    await stopChild(child);
    throw err;
  }
  return { name, url, child, lines };
}
