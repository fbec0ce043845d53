import { cpus, loadavg } from 'node:os';

/** What a benchmark's results say of the machine they were measured on, with its load average at the end (shared machines are noisy). */
export function machineDescription(): { cpus: number; cpuModel: string | undefined; node: string; loadAverageAtEnd: number[] } {
  return { cpus: cpus().length, cpuModel: cpus()[0]?.model, node: process.version, loadAverageAtEnd: loadavg().map((load) => Math.round(load * 100) / 100) };
}
