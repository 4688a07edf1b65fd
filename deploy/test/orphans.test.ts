/**
 * A launcher killed with SIGKILL leaves no orphan: the services and the gateway it started see their IPC channel
 * close and stop by themselves, freeing their ports for the next start.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, isAlive, ROOT } from '@stratum/store-runtime';
import { must } from '@stratum/testing';
import { ensureTokensFile } from '../src';

jest.setTimeout(120_000);

/** A launcher of its own: startStack in a process of its own, printing the pids once every process is healthy. */
const LAUNCHER = `
const { startStack } = require(${JSON.stringify(join(ROOT, 'deploy/src'))});
startStack(JSON.parse(process.env.STACK_OPTIONS)).then((s) => console.log('PIDS ' + JSON.stringify(s.pids)));
`;

describe('kill -9 of the launcher', () => {
  it('stops every process it started within seconds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stratum-orphans-'));
    ensureTokensFile(join(dir, 'tokens.json'));
    const options = {
      mongoUri: process.env.STRATUM_TEST_MONGODB_URI,
      database: `t_${randomBytes(6).toString('hex')}`,
      identitySecret: randomBytes(24).toString('hex'),
      tokensFile: join(dir, 'tokens.json'),
      ports: { gateway: await freePort(), eventQuery: await freePort(), lbaasQuota: await freePort(), domainQuota: await freePort() },
      env: { LOG_LEVEL: 'silent', REDIS_URL: '', METRICS_PORT: '' },
      stdio: 'ignore',
    };
    const launcher = spawn(process.execPath, ['--import', 'tsx', '-e', LAUNCHER], {
      cwd: ROOT,
      env: { ...process.env, STACK_OPTIONS: JSON.stringify(options) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    const pids = await new Promise<Record<string, number>>((ok, fail) => {
      launcher.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const m = /PIDS (\{.*\})/.exec(out);
        if (m) ok(JSON.parse(must(m[1])));
      });
      launcher.once('exit', (code) => fail(new Error(`the launcher exited (${code}) before its stack was up: ${out}`)));
    });
    expect(Object.keys(pids).sort()).toEqual(['domainQuota', 'eventQuery', 'gateway', 'lbaasQuota']);
    for (const pid of Object.values(pids)) expect(isAlive(pid)).toBe(true);

    launcher.kill('SIGKILL');
    const end = Date.now() + 30_000;
    while (Object.values(pids).some(isAlive) && Date.now() < end) await sleep(100);
    const left = Object.entries(pids).filter(([, pid]) => isAlive(pid));
    for (const [, pid] of left) process.kill(pid, 'SIGKILL');
    expect(left).toEqual([]);
  });
});
