/**
 * Supervision of the launcher's child processes, as systemd's `Restart=always` with a back-off: a child that exits
 * when the launcher did not ask it to (a crash, `kill -9`, an out-of-memory kill) is started again after a delay that
 * doubles with each crash (0.5 s, 1 s, 2 s, … up to 30 s) and returns to the first once the child has stayed up for
 * a minute. Every exit and restart is logged. A stop asked by the launcher (Ctrl-C, SIGTERM) is never restarted.
 */
import type { ChildProcess } from 'node:child_process';
import { stopChild } from '@stratum/store-runtime';

export interface RestartPolicy {
  /** Delay before the first restart after a crash, in ms. */
  initialDelayMs: number;
  /** Longest delay between restarts, in ms; the delay doubles up to it. */
  maxDelayMs: number;
  /** A child that stayed up this long (ms) before crashing is restarted after `initialDelayMs` again. */
  resetAfterMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicy = { initialDelayMs: 500, maxDelayMs: 30_000, resetAfterMs: 60_000 };

/** Where the supervisor reports (a pino logger fits). */
export interface SupervisorLogger {
  warn(obj: Record<string, unknown>, msg: string): void;
  info(obj: Record<string, unknown>, msg: string): void;
}

/** One child process kept running: `spawnChild` starts it, and again after each unexpected exit. */
export class Supervised {
  private current: ChildProcess;
  private startedAt = Date.now();
  private delay: number;
  private timer?: NodeJS.Timeout;
  private armed = false;
  private stopping = false;
  /** Restarts so far. */
  restarts = 0;

  /**
   * Starts the child at once. Exits are restarted only once `arm()` is called (a child that fails during start-up
   * is the launcher's start-up error, not something to retry forever).
   */
  constructor(
    readonly name: string,
    private readonly spawnChild: () => ChildProcess,
    private readonly logger: SupervisorLogger,
    private readonly policy: RestartPolicy = DEFAULT_RESTART_POLICY,
  ) {
    this.delay = policy.initialDelayMs;
    this.current = this.launch();
  }

  /** The running child (a new object after each restart). */
  get child(): ChildProcess {
    return this.current;
  }

  /** The running child's process id (0 while it is being restarted and has not spawned yet). */
  get pid(): number {
    return this.current.pid ?? 0;
  }

  /** From now on, an unexpected exit is restarted. */
  arm(): void {
    this.armed = true;
  }

  private launch(): ChildProcess {
    const child = this.spawnChild();
    this.startedAt = Date.now();
    child.once('exit', (code, signal) => this.exited(child, code, signal));
    // A spawn that fails (e.g. the executable is gone) emits 'error' and no 'exit'.
    child.on('error', (err) => {
      if (child.pid === undefined) this.exited(child, null, null, err);
    });
    return child;
  }

  private exited(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null, err?: Error): void {
    if (child !== this.current || this.stopping || !this.armed) return;
    const upMs = Date.now() - this.startedAt;
    if (upMs >= this.policy.resetAfterMs) this.delay = this.policy.initialDelayMs;
    const wait = this.delay;
    this.delay = Math.min(this.delay * 2, this.policy.maxDelayMs);
    const how = signal ? `signal ${signal}` : err ? `spawn error ${err.message}` : `code ${code}`;
    this.logger.warn(
      { process: this.name, pid: child.pid, code, signal, upMs, restartInMs: wait, restarts: this.restarts },
      `${this.name} exited unexpectedly (${how}); restarting in ${wait} ms`,
    );
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.stopping) return;
      this.restarts++;
      this.current = this.launch();
      this.logger.info({ process: this.name, pid: this.current.pid, restarts: this.restarts }, `${this.name} restarted`);
    }, wait);
  }

  /** Stops the child (SIGTERM, then SIGKILL after 5 s) and any pending restart; it is not restarted afterwards. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.current.pid === undefined) return; // never spawned
    await stopChild(this.current);
  }
}
