import type { BenchGateways } from './bench-gateways.ts';
import type { RunProbe } from './measured-run.ts';

/**
 * `--gateway-latency`: the fake APNs answers every request of the broadcast
 * `latencyMs` late, as a gateway across a network does. Afterwards it reports
 * the most streams the fake saw open at once and the delivery window Herald
 * ended with (`herald_push_delivery_window`), and the rate a fixed window of
 * the configured minimum would allow at that latency (in flight ÷ latency).
 */
export function latencyProbe(gateways: BenchGateways, latencyMs: number, windowMin: number, label: string, out: (line: string) => void): RunProbe {
  return {
    async beforeBroadcast() {
      // Forgets the ceiling's streams, so the peak is the broadcast's own; the broadcast counts from here.
      await gateways.reset();
      await gateways.apns.setDefaultAnswer({ status: 200, delayMs: latencyMs });
    },
    async afterBroadcast(herald) {
      const { stats } = await gateways.apns.counts();
      const metrics = await (await fetch(`http://127.0.0.1:${herald.port}/metrics`)).text();
      const line = metrics.split('\n').find((row) => row.startsWith('herald_push_delivery_window '));
      if (line === undefined) throw new Error('Herald reports no herald_push_delivery_window');
      const windowAtEnd = Number(line.split(' ')[1]);
      const fixedWindowCap = Math.round((windowMin * 1000) / latencyMs);
      out(
        `${label}: the fake APNs answered ${latencyMs} ms late; at most ${stats.peakStreams} streams were open at it at once; ` +
          `Herald's delivery window ended at ${windowAtEnd}; a fixed window of ${windowMin} would cap the rate at ${fixedWindowCap.toLocaleString('en-US')}/s`,
      );
      return { gatewayLatencyMs: latencyMs, peakStreamsAtFake: stats.peakStreams, windowAtEnd, fixedWindowCap };
    },
  };
}
