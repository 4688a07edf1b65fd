/**
 * How the container test reports: a failed check throws Failed (run.ts prints it and exits 1), a passed one is logged,
 * each step's time is recorded, and waiting is polling with a deadline.
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** A check of the container test failed; its message says which and why. */
export class Failed extends Error {}

/** How long a pod or condition may take to become ready, in milliseconds. */
export const READY_TIMEOUT_MS = 120_000;

/** Each step's name and duration (ms), in order. */
export const timings: [string, number][] = [];
export const log = (msg: string) => console.log(`containers test: ${msg}`);

/** Runs `step`, records how long it took. */
export async function timed<T>(name: string, step: () => Promise<T> | T): Promise<T> {
  const t0 = performance.now();
  try {
    return await step();
  } finally {
    const ms = performance.now() - t0;
    timings.push([name, ms]);
    log(`${name}: ${(ms / 1000).toFixed(1)} s`);
  }
}

/** Polls `check` every 500 ms until it returns a value, or fails after `timeoutMs` with `what`. */
export async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = READY_TIMEOUT_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Failed(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await sleep(500);
  }
}

/** Logs `what` as passed, or throws Failed with it. */
export function check(ok: boolean, what: string): void {
  if (!ok) throw new Failed(what);
  log(`ok: ${what}`);
}
