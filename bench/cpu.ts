// Where the CPU goes during a run: the whole machine (os.cpus), this load generator, the server's
// Node process (asked over IPC), the embedded PostgreSQL (postmaster and its backends) and the
// kernel threads (journal commits and writeback of the fsyncs), the last two from /proc (Linux only,
// else reported as unknown). What is left is other processes: someone else's work on the machine.
// On a 2-core machine throughput is bounded by 2 CPU-seconds per second divided by the CPU each
// document costs, all processes summed.
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';

export interface CpuSnapshot {
  machineBusyMs: number;
  machineTotalMs: number;
  clientMs: number;
  serverMs: number;
  postgresMs: number | undefined;
  kernelMs: number | undefined;
}

export async function snapshot(serverCpu: () => Promise<NodeJS.CpuUsage>, pgPid: number): Promise<CpuSnapshot> {
  let busy = 0;
  let total = 0;
  for (const { times: t } of cpus()) {
    total += t.user + t.nice + t.sys + t.irq + t.idle;
    busy += t.user + t.nice + t.sys + t.irq;
  }
  const client = process.cpuUsage();
  const server = await serverCpu();
  const proc = procCpuMs(pgPid);
  return {
    machineBusyMs: busy,
    machineTotalMs: total,
    clientMs: (client.user + client.system) / 1000,
    serverMs: (server.user + server.system) / 1000,
    postgresMs: proc?.postgresMs,
    kernelMs: proc?.kernelMs,
  };
}

export interface CpuDelta {
  /** Share of all cores busy, 0..1. */
  machineBusy: number;
  /** Busy CPU time of the whole machine, ms; the others are parts of it. */
  machineMs: number;
  clientMs: number;
  serverMs: number;
  postgresMs: number | undefined;
  kernelMs: number | undefined;
  /** What no process above accounts for: other processes, interrupts. */
  otherMs: number | undefined;
}

export function delta(a: CpuSnapshot, b: CpuSnapshot): CpuDelta {
  const diff = (k: 'postgresMs' | 'kernelMs') => (a[k] === undefined || b[k] === undefined ? undefined : b[k]! - a[k]!);
  const machineMs = b.machineBusyMs - a.machineBusyMs;
  const clientMs = b.clientMs - a.clientMs;
  const serverMs = b.serverMs - a.serverMs;
  const postgresMs = diff('postgresMs');
  const kernelMs = diff('kernelMs');
  return {
    machineBusy: machineMs / Math.max(1, b.machineTotalMs - a.machineTotalMs),
    machineMs,
    clientMs,
    serverMs,
    postgresMs,
    kernelMs,
    otherMs: postgresMs === undefined || kernelMs === undefined ? undefined : machineMs - clientMs - serverMs - postgresMs - kernelMs,
  };
}

/**
 * CPU of the postmaster and its children (backends, WAL writer, checkpointer…): its own time, the
 * time of children it has already reaped (cutime/cstime: the pool closes idle connections, and
 * their backends exit), and the time of the live ones. And of the kernel threads (children of
 * kthreadd, pid 2).
 */
function procCpuMs(pgPid: number): { postgresMs: number; kernelMs: number } | undefined {
  try {
    // USER_HZ is 100 on every mainstream Linux build.
    const TICK_MS = 10;
    let pgTicks = 0;
    let kernelTicks = 0;
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) {
        continue;
      }
      let stat: string;
      try {
        stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      } catch {
        continue; // exited meanwhile
      }
      // Fields after the parenthesised command name: state ppid … utime(14) stime(15) cutime cstime.
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const [ppid, utime, stime, cutime, cstime] = [f[1], f[11], f[12], f[13], f[14]].map(Number);
      if (Number(entry) === pgPid) {
        pgTicks += utime + stime + cutime + cstime;
      } else if (ppid === pgPid) {
        pgTicks += utime + stime;
      } else if (ppid === 2) {
        kernelTicks += utime + stime;
      }
    }
    return { postgresMs: pgTicks * TICK_MS, kernelMs: kernelTicks * TICK_MS };
  } catch {
    return undefined;
  }
}

/**
 * A child's CPU time (every thread), asked over IPC: bench/server.ts, watch-floor.ts and
 * sustained-server.ts answer {type:'cpu'} with process.cpuUsage().
 */
export function childCpu(child: ChildProcess): Promise<NodeJS.CpuUsage> {
  return new Promise((resolveCpu) => {
    const onMessage = (m: { type: string; usage: NodeJS.CpuUsage }) => {
      if (m.type === 'cpu') {
        child.off('message', onMessage);
        resolveCpu(m.usage);
      }
    };
    child.on('message', onMessage);
    child.send({ type: 'cpu' });
  });
}
