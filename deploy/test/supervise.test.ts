/**
 * The launcher's supervision with real processes: a child killed with SIGKILL comes back (after a delay that doubles
 * with each crash and resets once it has stayed up), each exit is logged with the process, signal and next delay, a
 * stop is never restarted; in the whole stack, the gateway answers 503 in the group's shape while a service is down.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, isAlive } from '@stratum/store-runtime';
import { waitFor } from '@stratum/testing';
import { ensureTokensFile, type RunningStack, Supervised, startStack } from '../src';

jest.setTimeout(180_000);

/** A logger that keeps what it is given. */
function memoryLogger() {
  const lines: { level: 'warn' | 'info'; obj: Record<string, unknown>; msg: string }[] = [];
  return {
    lines,
    warn: (obj: Record<string, unknown>, msg: string) => lines.push({ level: 'warn', obj, msg }),
    info: (obj: Record<string, unknown>, msg: string) => lines.push({ level: 'info', obj, msg }),
  };
}

/** A tiny HTTP server that answers its pid. */
const TOY = `require('node:http').createServer((q, r) => r.end(String(process.pid))).listen(Number(process.env.PORT), '127.0.0.1')`;

async function answer(url: string): Promise<string | undefined> {
  try {
    return await (await fetch(url)).text();
  } catch {
    return undefined; // refused: not listening
  }
}

describe('Supervised (a real child)', () => {
  let toy: Supervised | undefined;
  afterEach(() => toy?.stop());

  it('restarts a SIGKILLed child with a doubling delay, logs each exit, and resets the delay after it stayed up', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/`;
    const log = memoryLogger();
    const spawnToy = () => spawn(process.execPath, ['-e', TOY], { env: { ...process.env, PORT: String(port) }, stdio: 'ignore' });
    toy = new Supervised('toy', spawnToy, log, { initialDelayMs: 200, maxDelayMs: 500, resetAfterMs: 3000 });
    const s = toy;
    await waitFor('the toy answering', async () => (await answer(url)) === String(s.pid));
    s.arm();

    const delays: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      const before = s.pid;
      process.kill(before, 'SIGKILL');
      await waitFor('the toy back under a new pid', async () => s.pid !== before && (await answer(url)) === String(s.pid));
      const exit = log.lines.filter((l) => l.level === 'warn').at(-1);
      expect(exit?.obj).toMatchObject({ process: 'toy', pid: before, code: null, signal: 'SIGKILL' });
      expect(exit?.msg).toMatch(/^toy exited unexpectedly \(signal SIGKILL\); restarting in \d+ ms$/);
      delays.push(exit?.obj.restartInMs);
    }
    expect(delays).toEqual([200, 400, 500]);
    expect(s.restarts).toBe(3);
    expect(log.lines.filter((l) => l.msg === 'toy restarted')).toHaveLength(3);

    // Up for longer than resetAfterMs: the next crash waits the first delay again.
    const since = Date.now();
    await waitFor('the toy up for 3 s', async () => Date.now() - since > 3100, 10_000);
    process.kill(s.pid, 'SIGKILL');
    await waitFor('the fourth exit logged', async () => log.lines.filter((l) => l.level === 'warn').length === 4);
    expect(log.lines.filter((l) => l.level === 'warn').at(-1)?.obj.restartInMs).toBe(200);
    await waitFor('the toy back', async () => (await answer(url)) === String(s.pid));
  });

  it('does not restart a child it was asked to stop, nor one whose restart was pending', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/`;
    const log = memoryLogger();
    const spawnToy = () => spawn(process.execPath, ['-e', TOY], { env: { ...process.env, PORT: String(port) }, stdio: 'ignore' });
    const s = new Supervised('toy', spawnToy, log, { initialDelayMs: 300, maxDelayMs: 300, resetAfterMs: 60_000 });
    toy = s;
    await waitFor('the toy answering', async () => (await answer(url)) !== undefined);
    s.arm();

    // A crash, then a stop before the restart is due.
    const first = s.pid;
    process.kill(first, 'SIGKILL');
    await waitFor('the exit logged', async () => log.lines.some((l) => l.level === 'warn'));
    await s.stop();
    // Absence can only be shown by waiting past the delay the restart would have taken.
    await sleep(900);
    expect(s.restarts).toBe(0);
    expect(await answer(url)).toBeUndefined();

    // A stop of a running child: it exits, and nothing is restarted or logged as unexpected.
    const again = new Supervised('toy2', spawnToy, log, { initialDelayMs: 300, maxDelayMs: 300, resetAfterMs: 60_000 });
    toy = again;
    await waitFor('the second toy answering', async () => (await answer(url)) === String(again.pid));
    again.arm();
    const pid = again.pid;
    await again.stop();
    expect(isAlive(pid)).toBe(false);
    await sleep(900);
    expect(again.restarts).toBe(0);
    expect(log.lines.filter((l) => l.obj.process === 'toy2')).toEqual([]);
    expect(await answer(url)).toBeUndefined();
  });
});

describe('startStack (the launcher): a killed service comes back', () => {
  let stack: RunningStack | undefined;
  afterAll(() => stack?.stop());

  it('restarts event-query after kill -9; meanwhile the gateway answers 503 in Panko shape; stop restarts nothing', async () => {
    const uri = process.env.STRATUM_TEST_MONGODB_URI as string;
    const dir = mkdtempSync(join(tmpdir(), 'stratum-supervise-'));
    const { admin } = ensureTokensFile(join(dir, 'tokens.json'));
    const [gateway, eventQuery, lbaasQuota, domainQuota] = [await freePort(), await freePort(), await freePort(), await freePort()];
    const log = memoryLogger();
    stack = await startStack({
      mongoUri: uri,
      database: `t_${randomBytes(6).toString('hex')}`,
      identitySecret: randomBytes(24).toString('hex'),
      tokensFile: join(dir, 'tokens.json'),
      ports: { gateway, eventQuery, lbaasQuota, domainQuota },
      env: { LOG_LEVEL: 'silent', REDIS_URL: '', METRICS_PORT: '' },
      stdio: 'ignore',
      // A wide window for the 503.
      restart: { initialDelayMs: 3000 },
      logger: log,
    });
    const s = stack;
    const events = () => fetch(`${s.gatewayUrl}/v2/events?limit=1`, { headers: { 'X-Auth-Token': admin } });
    expect((await events()).status).toBe(200);

    const killed = s.pids.eventQuery;
    process.kill(killed, 'SIGKILL');
    let down: { status: number; body: unknown } | undefined;
    await waitFor('a 503 while event-query is down', async () => {
      const r = await events();
      if (r.status !== 503) return false;
      down = { status: r.status, body: await r.json() };
      return true;
    });
    expect(down).toEqual({
      status: 503,
      body: { error_message: { faultcode: 'Server', faultstring: expect.any(String), debuginfo: null } },
    });
    await waitFor('event-query back through the gateway', async () => (await events()).status === 200, 90_000);
    expect(s.pids.eventQuery).not.toBe(killed);
    expect(s.processes.eventQuery.restarts).toBe(1);
    expect(log.lines.find((l) => l.level === 'warn')).toMatchObject({
      obj: { process: 'eventQuery', pid: killed, signal: 'SIGKILL', restartInMs: 3000 },
      msg: 'eventQuery exited unexpectedly (signal SIGKILL); restarting in 3000 ms',
    });

    const pids = Object.values(s.pids);
    await s.stop();
    stack = undefined;
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
    expect(log.lines.filter((l) => l.level === 'warn')).toHaveLength(1);
    expect(Object.values(s.processes).map((p) => p.restarts)).toEqual([1, 0, 0, 0]);
  });
});
