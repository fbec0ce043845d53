import { deliveryProblems } from './delivery-check.ts';
import type { ProcessFigures } from './follow-broadcast.ts';
import { median, medianOf, type PushRun, type RunMedians } from './push-report.ts';

/** The process kinds of a run, in the order they are shown. */
const kinds = ['all', 'api', 'fanout', 'scheduler', 'sender'] as const;

/** One setup's figures over its runs: the medians, and memory and CPU by process kind. */
export interface SetupSummary extends RunMedians {
  /** How many runs the figures are taken over. */
  runs: number;
  /** The processes of a run, e.g. `api, fanout, scheduler, 2 × sender`. */
  processes: string;
  /** By kind: the highest VmHWM of any one process of that kind over the runs, MB. */
  peakRssMbByKind: Record<string, number>;
  /** By kind: the median over the runs of that kind's CPU from the request to the record's `done`, summed over its processes, s. */
  cpuSecondsByKind: Record<string, number>;
  /** Whether every run's deliveries were exactly one per device and its record's counters matched the fakes'. */
  exact: boolean;
}

export function summarize(runs: readonly PushRun[]): SetupSummary {
  const processes = runs.map((run) => run.broadcast.processes);
  const present = kinds.filter((kind) => processes.some((list) => list.some((process) => process.role === kind)));
  const ofKind = (list: readonly ProcessFigures[], kind: string): ProcessFigures[] => list.filter((process) => process.role === kind);
  return {
    ...medianOf(runs),
    runs: runs.length,
    processes: describeProcesses(processes[0] ?? []),
    peakRssMbByKind: Object.fromEntries(present.map((kind) => [kind, Math.max(...processes.flatMap((list) => ofKind(list, kind).map((process) => process.peakRssMb)))])),
    cpuSecondsByKind: Object.fromEntries(
      present.map((kind) => [kind, round2(median(processes.map((list) => ofKind(list, kind).reduce((sum, process) => sum + (process.cpuSecondsToDone ?? process.cpuSeconds), 0))))]),
    ),
    exact: runs.every((run) => deliveryProblems(run.broadcast).length === 0),
  };
}

/** The two setups' figures in two columns, one figure a line. */
export function sideBySide(embedded: SetupSummary, distributed: SetupSummary): string {
  const number = (value: number | null): string => (value === null ? '-' : value.toLocaleString('en-US'));
  const byKind = (record: Record<string, number>, kind: string, format: (value: number) => string): string => {
    const value = record[kind];
    return value === undefined ? '-' : format(value);
  };
  const seconds = (value: number): string => value.toFixed(2);
  const megabytes = (value: number): string => `${value} MB`;
  const rows: [string, string, string][] = [
    ['Herald processes', embedded.processes, distributed.processes],
    ['deliveries/s', number(embedded.deliveriesPerSecond), number(distributed.deliveriesPerSecond)],
    ['h2load ceiling, req/s', number(embedded.ceiling), number(distributed.ceiling)],
    ['ratio to the ceiling', embedded.ratioToCeiling.toFixed(2), distributed.ratioToCeiling.toFixed(2)],
    ['Herald CPU s, request → record done', embedded.heraldCpuSecondsToDone?.toFixed(2) ?? '-', distributed.heraldCpuSecondsToDone?.toFixed(2) ?? '-'],
    ['deliveries per core-second', number(embedded.deliveriesPerCoreSecond), number(distributed.deliveriesPerCoreSecond)],
    ['CPU µs per delivery, to the last one', embedded.cpuMicrosPerDelivery.toFixed(1), distributed.cpuMicrosPerDelivery.toFixed(1)],
    ['node:http2 alone, req/s (one process)', number(embedded.floorRequestsPerSecond), number(distributed.floorRequestsPerSecond)],
    ['node:http2 alone, CPU µs per request', embedded.floorCpuMicrosPerRequest.toFixed(1), distributed.floorCpuMicrosPerRequest.toFixed(1)],
    ['ApnsClient alone, CPU µs per request', embedded.apnsClientCpuMicrosPerRequest.toFixed(1), distributed.apnsClientCpuMicrosPerRequest.toFixed(1)],
    ...kinds.map((kind): [string, string, string] => [`  CPU s of ${kind === 'all' ? 'the all-roles process' : `${kind} processes`}`, byKind(embedded.cpuSecondsByKind, kind, seconds), byKind(distributed.cpuSecondsByKind, kind, seconds)]),
    ['peak RSS, summed over processes', `${embedded.peakRssMb} MB`, `${distributed.peakRssMb} MB`],
    ...kinds.map((kind): [string, string, string] => [`  peak RSS of ${kind === 'all' ? 'the all-roles process' : `one ${kind} process`}`, byKind(embedded.peakRssMbByKind, kind, megabytes), byKind(distributed.peakRssMbByKind, kind, megabytes)]),
    ['exactly once, counters match the fakes', embedded.exact ? 'yes' : 'NO', distributed.exact ? 'yes' : 'NO'],
  ];
  const header: [string, string, string] = ['', 'embedded', 'distributed'];
  const widths = [0, 1, 2].map((column) => Math.max(...[header, ...rows].map((row) => row[column]?.length ?? 0)));
  const line = (row: [string, string, string]): string => `${row[0].padEnd(widths[0] as number)}  ${row[1].padStart(widths[1] as number)}  ${row[2].padStart(widths[2] as number)}`;
  const runs = embedded.runs === 1 ? '' : ` (medians of ${embedded.runs} runs each; peak RSS the highest)`;
  return [`embedded: SQLite, in-memory coordination and bus; distributed: Cassandra, Redis and Kafka${runs}`, line(header), ...rows.map(line)].join('\n');
}

/** `all`, or `api, fanout, scheduler, 2 × sender`. */
function describeProcesses(processes: readonly ProcessFigures[]): string {
  const counts = new Map<string, number>();
  for (const process of processes) counts.set(process.role, (counts.get(process.role) ?? 0) + 1);
  return [...counts].map(([role, count]) => (count === 1 ? role : `${count} × ${role}`)).join(', ');
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}
