import type { BenchHerald } from './bench-herald.ts';
import type { RunProbe } from './measured-run.ts';
import { median, type PushRun } from './push-report.ts';

/** Garbage collections of one kind (prom-client's `kind` label: minor, major, incremental, weakcb) over a broadcast. */
export interface GcFigures {
  count: number;
  seconds: number;
}

/**
 * Reads the first Herald process's garbage collections from its /metrics
 * (`herald_nodejs_gc_duration_seconds`) before and after each broadcast:
 * how many of each kind ran and the main-thread pause they took. Put it
 * before probes that read much after the broadcast, so their collections are
 * not counted.
 */
export function gcProbe(): RunProbe {
  let before: Record<string, GcFigures> = {};
  return {
    beforeBroadcast: async (herald: BenchHerald) => {
      before = await gcTotals(herald.port);
    },
    afterBroadcast: async (herald: BenchHerald) => {
      const after = await gcTotals(herald.port);
      const gc: Record<string, GcFigures> = {};
      for (const [kind, figures] of Object.entries(after)) {
        const then = before[kind] ?? { count: 0, seconds: 0 };
        gc[kind] = { count: figures.count - then.count, seconds: Math.round((figures.seconds - then.seconds) * 1000) / 1000 };
      }
      return { gc };
    },
  };
}

async function gcTotals(port: number): Promise<Record<string, GcFigures>> {
  const response = await fetch(`http://127.0.0.1:${port}/metrics`);
  if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}`);
  return parseGcTotals(await response.text());
}

/** The collections so far by kind, from the text of Herald's /metrics. */
export function parseGcTotals(metrics: string): Record<string, GcFigures> {
  const totals: Record<string, GcFigures> = {};
  for (const line of metrics.split('\n')) {
    const match = /^herald_nodejs_gc_duration_seconds_(sum|count)\{kind="([a-z]+)"\} ([0-9.e+-]+)$/.exec(line);
    if (match === null) continue;
    const [, field, kind, value] = match as unknown as [string, 'sum' | 'count', string, string];
    const figures = (totals[kind] ??= { count: 0, seconds: 0 });
    if (field === 'sum') figures.seconds = Number(value);
    else figures.count = Number(value);
  }
  return totals;
}

/** Medians over runs probed by `gcProbe`: young-generation collections and their pause per delivery, and full collections; none when no run was probed. */
export function gcFigures(runs: readonly PushRun[]): { gc?: { minorCollections: number; minorPauseMicrosPerDelivery: number; majorCollections: number } } {
  const probed = runs.flatMap((run) => {
    const gc = run.checks?.gc as Record<string, GcFigures> | undefined;
    return gc === undefined ? [] : [{ gc, deliveries: Math.max(1, run.broadcast.deliveries) }];
  });
  if (probed.length === 0) return {};
  return {
    gc: {
      minorCollections: median(probed.map(({ gc }) => gc.minor?.count ?? 0)),
      minorPauseMicrosPerDelivery: Math.round(median(probed.map(({ gc, deliveries }) => ((gc.minor?.seconds ?? 0) * 1e6) / deliveries)) * 10) / 10,
      majorCollections: median(probed.map(({ gc }) => gc.major?.count ?? 0)),
    },
  };
}
