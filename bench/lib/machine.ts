// Describes the machine a benchmark ran on, so figures can be compared across runs.

import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';

export interface MachineInfo {
  cpuModel: string;
  cores: number;
  memoryGiB: number;
  node: string;
  platform: string;
  /** 1, 5 and 15 minute load averages when the run started (the machine may be shared). */
  loadAverage: number[];
}

export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cores: typeof os.availableParallelism === 'function' ? os.availableParallelism() : cpus.length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    loadAverage: os.loadavg().map((v) => Math.round(v * 100) / 100),
  };
}

/** A process's group and CPU time (user and system), from /proc/<pid>/stat (Linux); null once it is gone. */
export function processStat(pid: number | string): { pgrp: number; cpuMs: number } | null {
  try {
    // after the command name (which may hold spaces): state, ppid, pgrp, … utime (14th field), stime (15th), in ticks
    // of USER_HZ (100 on Linux)
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { pgrp: Number(fields[2]), cpuMs: (Number(fields[11]) + Number(fields[12])) * 10 };
  } catch {
    return null;
  }
}

/** The ids of every process, from /proc (Linux); null where there is no /proc. */
export function processIds(): string[] | null {
  try {
    return readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return null;
  }
}
