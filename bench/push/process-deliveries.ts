import type { BenchProcess } from './bench-herald.ts';

/** What one Herald process reports in `/metrics` about a broadcast. */
export interface ProcessDeliveries {
  role: string;
  /** `herald_pushes_accepted_total`, every app and time. */
  accepted: number;
  /** `herald_push_deliveries_total{outcome="delivered"}`, both gateways. */
  delivered: number;
  /** Every other outcome (invalid-token, failed, not-sent). */
  notDelivered: number;
}

/**
 * Reads each process's own counters from its internal port. Each process of
 * a distributed run is started fresh for the run, so its counters are the
 * run's.
 */
export async function processDeliveries(processes: readonly BenchProcess[]): Promise<ProcessDeliveries[]> {
  return Promise.all(
    processes.map(async (process) => {
      if (process.internalPort === 0) throw new Error(`the ${process.role} process serves no internal port to read its metrics from`);
      const response = await fetch(`http://127.0.0.1:${process.internalPort}/metrics`);
      if (response.status !== 200) throw new Error(`GET /metrics of the ${process.role} process answered ${response.status}`);
      const samples = parseSamples(await response.text());
      const sum = (name: string, keep: (labels: string) => boolean = () => true): number =>
        samples.filter((sample) => sample.name === name && keep(sample.labels)).reduce((total, sample) => total + sample.value, 0);
      return {
        role: process.role,
        accepted: sum('herald_pushes_accepted_total'),
        delivered: sum('herald_push_deliveries_total', (labels) => labels.includes('outcome="delivered"')),
        notDelivered: sum('herald_push_deliveries_total', (labels) => !labels.includes('outcome="delivered"')),
      };
    }),
  );
}

/** Prometheus text format: `name{labels} value` lines; comments left out. */
function parseSamples(text: string): { name: string; labels: string; value: number }[] {
  return text.split('\n').flatMap((line) => {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)/.exec(line);
    return match === null ? [] : [{ name: match[1] as string, labels: match[2] ?? '', value: Number(match[3]) }];
  });
}
