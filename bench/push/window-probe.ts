import type { BenchGateways } from './bench-gateways.ts';
import type { RunProbe } from './measured-run.ts';
import { readWindow } from './window-sampler.ts';

/**
 * Reports the most streams the fake APNs saw open at once during the
 * broadcast and the APNs delivery window Herald ended with
 * (`herald_push_delivery_window{gateway="apns"}`). With `--gateway-latency` the fake answers
 * every request of the broadcast `latencyMs` late, as a gateway across a
 * network does, and the report adds the rate a fixed window of the configured
 * minimum would allow at that latency (in flight ÷ latency).
 */
export function windowProbe(gateways: BenchGateways, latencyMs: number | undefined, windowMin: number, label: string, out: (line: string) => void): RunProbe {
  return {
    async beforeBroadcast() {
      // Forgets the ceiling's streams, so the peak is the broadcast's own; the broadcast counts from here.
      await gateways.reset();
      if (latencyMs !== undefined) await gateways.apns.setDefaultAnswer({ status: 200, delayMs: latencyMs });
    },
    async afterBroadcast(herald) {
      const { stats } = await gateways.apns.counts();
      const windowAtEnd = await readWindow(herald.port, 'apns');
      const streams = `at most ${stats.peakStreams} streams were open at the fake APNs at once; Herald's APNs delivery window ended at ${windowAtEnd}`;
      if (latencyMs === undefined) {
        out(`${label}: ${streams}`);
        return { peakStreamsAtFake: stats.peakStreams, windowAtEnd };
      }
      const fixedWindowCap = Math.round((windowMin * 1000) / latencyMs);
      out(`${label}: the fake APNs answered ${latencyMs} ms late; ${streams}; a fixed window of ${windowMin} would cap the rate at ${fixedWindowCap.toLocaleString('en-US')}/s`);
      return { gatewayLatencyMs: latencyMs, peakStreamsAtFake: stats.peakStreams, windowAtEnd, fixedWindowCap };
    },
  };
}
