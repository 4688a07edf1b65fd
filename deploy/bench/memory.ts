/**
 * Memory of the processes under load, from /proc (Linux): resident set sizes in MiB, sampled every `everyMs` while a
 * load runs, so a suite can report each process's first, last and largest reading ("memory flat under load").
 */
import { readFileSync } from 'node:fs';
import { childStatuses } from './cpu';

/** VmRSS of a process in KiB, or 0 when it is gone. */
export function rssKiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/**
 * Private memory (anonymous RSS) of every PostgreSQL backend of the cluster whose postmaster is `postmasterPid`, in
 * KiB, summed (shared buffers are mapped by every backend and would be counted again and again in their RSS).
 */
function postgresPrivateKiB(postmasterPid: number): number {
  const anonKiB = (status: string) => Number(/RssAnon:\s+(\d+)/.exec(status)?.[1] ?? 0);
  let total = 0;
  try {
    total += anonKiB(readFileSync(`/proc/${postmasterPid}/status`, 'utf8'));
  } catch {
    // the postmaster is gone
  }
  for (const [, status] of childStatuses(postmasterPid)) total += anonKiB(status);
  return total;
}

export interface MemoryWatch {
  /** Stops sampling. @returns one line per process: `name first → middle → last MiB (max M)`. */
  stop(): string[];
}

/**
 * Samples the resident memory of `pids` (name → pid) and, when given, the PostgreSQL backends' private memory.
 * @param postmasterPid the cluster's postmaster (first line of `<data>/postmaster.pid`).
 */
export function watchMemory(pids: Record<string, number>, postmasterPid?: number, everyMs = 1000): MemoryWatch {
  const series = new Map<string, number[]>();
  const sample = () => {
    for (const [name, pid] of Object.entries(pids)) series.set(name, [...(series.get(name) ?? []), rssKiB(pid)]);
    if (postmasterPid)
      series.set('PostgreSQL backends (private)', [
        ...(series.get('PostgreSQL backends (private)') ?? []),
        postgresPrivateKiB(postmasterPid),
      ]);
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      sample();
      const mib = (k: number) => (k / 1024).toFixed(0);
      return [...series].map(
        ([name, s]) =>
          `${name} ${mib(s[0] ?? 0)} → ${mib(s[Math.floor(s.length / 2)] ?? 0)} → ${mib(s.at(-1) ?? 0)} MiB (max ${mib(Math.max(...s))})`,
      );
    },
  };
}

/** The postmaster's pid of the cluster in `dataDir`, or undefined. */
export function postmasterPid(dataDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(`${dataDir}/postmaster.pid`, 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}
