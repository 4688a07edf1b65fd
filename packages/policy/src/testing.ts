/**
 * For tests: start a service's real entry point with a policy file and wait for it to exit, as an operator would see
 * a bad file refused.
 */
import { spawn } from 'node:child_process';

/**
 * Runs `node --import tsx <entry>` with `env` added to the environment until it exits (at most `timeoutMs`).
 * @returns the exit code (null when killed on timeout) and everything written to stderr and stdout.
 */
export function runUntilExit(
  entry: string,
  env: Record<string, string>,
  timeoutMs = 60_000,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', entry], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (b: Buffer) => {
      output += b.toString();
    });
    child.stderr.on('data', (b: Buffer) => {
      output += b.toString();
    });
    const kill = () => child.kill('SIGKILL');
    const timer = setTimeout(kill, timeoutMs);
    // A test runner that stops early must not leave a service behind.
    process.once('exit', kill);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      process.off('exit', kill);
      resolve({ code, output });
    });
  });
}
