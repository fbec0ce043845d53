import { readFileSync } from 'node:fs';

/** A V8 CPU profile as `node --cpu-prof` writes it. */
interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string }; children?: number[] }[];
  /** µs on the system's monotonic clock, the one `process.hrtime` reads. */
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A span of the monotonic clock, µs (`process.hrtime.bigint() / 1000n`). */
export interface ProfileWindow {
  fromMicros: number;
  toMicros: number;
}

/** Where a process's CPU went by phase over a window: seconds, or samples. */
export type PhaseSeconds = Record<string, number>;

/**
 * The phases, in the order they are shown. A sample counts for the phase of
 * the innermost frame on its stack that names one: so `JSON.parse` called by
 * the installation rows counts for the page reads, and the driver's own row
 * decoding (on its socket's callbacks, with no Herald caller on the stack)
 * for the Cassandra driver.
 */
const phaseRules: readonly (readonly [phase: string, test: (url: string, name: string) => boolean])[] = [
  ['installation page reads', (url) => /src\/store\/(cassandra\/(installation-rows|cassandra-installation-store|paged-rows)|sqlite\/sqlite-installation-store|installation-shards)/.test(url)],
  ['push records and result rows', (url) => /src\/store\/(cassandra\/cassandra-push-store|sqlite\/sqlite-push-store|push-record-totals)/.test(url)],
  ['delivery log', (url) => /delivery-log/.test(url)],
  ['outcome stream', (url) => /src\/push\/outcomes\/stream\//.test(url)],
  ['delivery events, webhooks', (url) => /src\/push\/outcomes\//.test(url)],
  ['Cassandra driver', (url) => /node_modules\/cassandra-driver\//.test(url)],
  ['Kafka client', (url) => /node_modules\/kafkajs\//.test(url)],
  ['bus (Herald side)', (url) => /src\/bus\//.test(url)],
  ['SQLite (other)', (url) => /src\/store\/sqlite\//.test(url)],
  ['Redis client, flow control', (url) => /node_modules\/(ioredis|redis|@redis)\/|src\/coordination\//.test(url)],
  ['gateway clients, Herald\'s HTTP/2', (url) => /src\/(push\/gateways|http2)\//.test(url)],
  ['sender, fan-out', (url) => /src\/push\//.test(url)],
  ['logging, metrics', (url) => /node_modules\/(pino|prom-client)|src\/core\/(logger|metrics|labelled-histogram)/.test(url)],
  ['other Herald code', (url) => /\/src\//.test(url)],
  ['HTTP/2, TLS, sockets (Node)', (url) => /^node:(internal\/)?(http2|tls|net|stream|internal\/streams|_tls|internal\/tls)/.test(url)],
  ['other Node internals', (url) => url.startsWith('node:')],
  ['other libraries', (url) => url.includes('node_modules/')],
  ['garbage collection', (url, name) => url === '' && name === '(garbage collector)'],
];

const unattributed = 'unattributed (native, program)';

/** The phases a breakdown shows, in order, then the remainder. */
export const phases: readonly string[] = [...phaseRules.map(([phase]) => phase), unattributed];

/**
 * One `.cpuprofile`'s samples by phase, taken within `window` (the whole
 * profile without one), idle ones left out. Samples are counted, not timed:
 * on a busy machine a process waits for a core between two samples, and the
 * time between them is then mostly not its CPU. `scaledTo` turns the counts
 * into shares of a CPU figure measured otherwise (/proc).
 */
export function profileSamples(file: string, window?: ProfileWindow): PhaseSeconds {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const parent = new Map<number, number>();
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const phaseOf = new Map<number, string>();
  const resolve = (id: number): string => {
    const known = phaseOf.get(id);
    if (known !== undefined) return known;
    const node = byId.get(id);
    const own = node === undefined ? undefined : phaseRules.find(([, test]) => test(node.callFrame.url, node.callFrame.functionName))?.[0];
    const up = parent.get(id);
    const phase = own ?? (up === undefined ? unattributed : resolve(up));
    phaseOf.set(id, phase);
    return phase;
  };
  const counts: PhaseSeconds = {};
  let at = profile.startTime;
  profile.samples.forEach((id, index) => {
    at += profile.timeDeltas[index] ?? 0;
    if (window !== undefined && (at < window.fromMicros || at > window.toMicros)) return;
    if (byId.get(id)?.callFrame.functionName === '(idle)') return;
    const phase = resolve(id);
    counts[phase] = (counts[phase] ?? 0) + 1;
  });
  return counts;
}

/** Counts by phase as shares of `seconds`. */
export function scaledTo(counts: PhaseSeconds, seconds: number): PhaseSeconds {
  const total = Object.values(counts).reduce((sum, count) => sum + count, 0);
  if (total === 0) return {};
  return Object.fromEntries(Object.entries(counts).map(([phase, count]) => [phase, (count / total) * seconds]));
}

/** The phases of several profiles added together. */
export function addBreakdowns(parts: readonly PhaseSeconds[]): PhaseSeconds {
  const sum: PhaseSeconds = {};
  for (const part of parts) for (const [phase, value] of Object.entries(part)) sum[phase] = (sum[phase] ?? 0) + value;
  return sum;
}

/** The pid a `--cpu-prof` file name carries: `CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile`. */
export function profilePid(file: string): number | null {
  const match = /CPU\.\d+\.\d+\.(\d+)\.\d+\.\d+\.cpuprofile$/.exec(file);
  return match === null ? null : Number(match[1]);
}
