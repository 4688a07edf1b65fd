/**
 * CPU use of the processes a benchmark runs, read from Linux's /proc: a process's own time, a PostgreSQL cluster's
 * (its postmaster and every backend), the whole machine's, and windows over them. Memory is memory.ts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';

/** Linux clock ticks per second (utime/stime in /proc/<pid>/stat). */
export const CLK_TCK = 100;

/** utime + stime of a process in clock ticks, or undefined when it is gone or /proc is not readable. */
export function cpuTicks(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    // Fields after the command name (which may contain spaces): utime is field 14, stime 15.
    const rest = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return Number(rest[11]) + Number(rest[12]);
  } catch {
    return undefined;
  }
}

/**
 * The processes whose parent is `parent`, each with its /proc status text (one read per process; a process that ends
 * meanwhile is left out).
 */
export function childStatuses(parent: number): [pid: number, status: string][] {
  const out: [number, string][] = [];
  const ppid = new RegExp(`^PPid:\\s+${parent}$`, 'm');
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      if (ppid.test(status)) out.push([Number(entry), status]);
    } catch {
      // ended between the listing and the read
    }
  }
  return out;
}

/** The pids whose parent is `parent`. */
export const childrenOf = (parent: number): number[] => childStatuses(parent).map(([pid]) => pid);

/** CPU ticks of the cluster's postmaster and all its children (the backends FerretDB's pool holds open); 0 without one. */
export function postgresTicks(postmaster: number | undefined): number {
  if (!postmaster) return 0;
  return [postmaster, ...childrenOf(postmaster)].reduce((total, pid) => total + (cpuTicks(pid) ?? 0), 0);
}

/** Busy and total CPU time of all the machine's cores, ms. */
export function machineTimes(): { busy: number; total: number } {
  let busy = 0;
  let total = 0;
  for (const c of cpus()) {
    const t = c.times.user + c.times.nice + c.times.sys + c.times.irq + c.times.idle;
    total += t;
    busy += t - c.times.idle;
  }
  return { busy, total };
}

/**
 * Starts a window of CPU samples per named process, plus `PostgreSQL` (the cluster of `postmaster`), `bench
 * (autocannon)` (this process) and `machine (all)` (every core's busy time: ours and others').
 * @returns `stop()`, which gives each one's use over the window in % of one core.
 */
export function cpuWindow(pids: Record<string, number | undefined>, postmaster: number | undefined) {
  const read = () => {
    const t: Record<string, number> = {};
    for (const [name, pid] of Object.entries(pids)) t[name] = cpuTicks(pid) ?? 0;
    t.PostgreSQL = postgresTicks(postmaster);
    const own = process.cpuUsage();
    t['bench (autocannon)'] = ((own.user + own.system) / 1e6) * CLK_TCK;
    t['machine (all)'] = machineTimes().busy / (1000 / CLK_TCK);
    return t;
  };
  const t0 = read();
  const start = Date.now();
  return {
    stop(): Record<string, number> {
      const t1 = read();
      const seconds = (Date.now() - start) / 1000;
      return Object.fromEntries(Object.keys(t1).map((k) => [k, (100 * ((t1[k] ?? 0) - (t0[k] ?? 0))) / CLK_TCK / seconds]));
    },
  };
}

/** The first process whose command name is `comm`, or undefined (e.g. the machine's Redis). */
export function pidOf(comm: string): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === comm) return Number(entry);
    } catch {
      // ended between the listing and the read
    }
  }
  return undefined;
}

/** The machine's load averages over 1, 5 and 15 minutes, e.g. `1.10 / 0.90 / 0.80`. */
export const loadAverage = (): string =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' / ');
