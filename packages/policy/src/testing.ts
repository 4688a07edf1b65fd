/**
 * For tests: start a service's real entry point with a policy file and wait for it to exit, as an operator would see
 * a bad file refused.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Writes `text` to a policy file of its own in a temporary directory. @returns its path. */
export function writePolicyFile(text: string, name = 'policy.yaml'): string {
  const path = join(mkdtempSync(join(tmpdir(), 'stratum-policy-')), name);
  writeFileSync(path, text);
  return path;
}

/**
 * Starts a service's entry point (`entry`, its `src/server.ts`) with a policy file holding `text`, on the test store
 * in a database of its own, and waits for it to exit, as a bad file must make it.
 * @param env the service's own settings to add (e.g. `REDIS_URL: ''`).
 * @returns the exit code, the output, and the file's path (the message must name it).
 */
export async function startWithPolicy(
  entry: string,
  text: string,
  env: Record<string, string> = {},
): Promise<{ code: number | null; output: string; file: string }> {
  const file = writePolicyFile(text);
  const { code, output } = await runUntilExit(entry, {
    POLICY_FILE: file,
    PORT: '0',
    STRATUM_IDENTITY_SECRET: randomBytes(24).toString('hex'),
    MONGODB_URI: process.env.STRATUM_TEST_MONGODB_URI ?? 'mongodb://127.0.0.1:1/',
    MONGODB_DATABASE: `t_${randomBytes(6).toString('hex')}`,
    LOG_LEVEL: 'silent',
    ...env,
  });
  return { code, output, file };
}

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
