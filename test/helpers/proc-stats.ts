/**
 * What processes cost, read from /proc: resident memory and CPU time of one process, of every
 * process on the host, and the host's busy share (the benchmark's measurements).
 */
import { readFileSync, readdirSync } from 'node:fs';

/** Resident memory of a process in KiB: current (VmRSS) and peak (VmHWM). */
export function readMemoryKiB(pid: number): { rss: number; hwm: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const get = (k: string) =>
      Number(/\s(\d+) kB/.exec(status.split('\n').find((l) => l.startsWith(`${k}:`)) ?? '')?.[1] ?? NaN);
    return { rss: get('VmRSS'), hwm: get('VmHWM') };
  } catch {
    return null;
  }
}

/** CPU time (user + system) a process has used so far, in milliseconds. */
export function readCpuMs(pid: number): number | null {
  const t = readCpuTimes(pid);
  return t ? t.user + t.system : null;
}

/** User and system CPU time of a process so far, in milliseconds (clock ticks of 10 ms). */
export function readCpuTimes(pid: number): { user: number; system: number } | null {
  try {
    // Fields after the parenthesised command name: utime and stime are the 12th and 13th.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { user: Number(f[11]) * 10, system: Number(f[12]) * 10 };
  } catch {
    return null;
  }
}

/** CPU time (ms) of every process on the host by pid, with its command name (from /proc). */
export function readAllProcessCpu(): Map<number, { comm: string; ms: number }> {
  const out = new Map<number, { comm: string; ms: number }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(name), { comm, ms: ((Number(f[11]) + Number(f[12])) * 1000) / 100 });
    } catch {
      /* exited meanwhile */
    }
  }
  return out;
}

/** Host CPU counters (busy and total jiffies over all cores), for a busy share between two reads. */
export function readHostCpu(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
  const v = line.trim().split(/\s+/).slice(1).map(Number);
  const idle = v[3]! + (v[4] ?? 0);
  const total = v.reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}
