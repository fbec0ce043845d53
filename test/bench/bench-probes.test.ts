import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { parseGcTotals } from '../../bench/push/gc-probe.ts';
import { cpuSeconds, threadCpuSeconds } from '../../bench/push/process-stats.ts';
import { Metrics } from '../../src/core/metrics.ts';

describe('the push bench probes', () => {
  it('splits a process CPU by kind of thread, the main thread holding what its JavaScript burned', async () => {
    // Burns 600 ms of CPU on its main thread (by its own CPU clock: on a busy machine 600 ms of wall time may hold less), then says so and waits to be killed.
    const burn = 'const start = process.cpuUsage(); while (process.cpuUsage(start).user < 600_000); console.log("done"); setInterval(() => {}, 1000);';
    const child = spawn(process.execPath, ['-e', burn], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      await once(child.stdout, 'data');
      const pid = child.pid as number;
      const threads = threadCpuSeconds(pid);
      const whole = cpuSeconds(pid);
      expect(threads.main).toBeGreaterThanOrEqual(0.5);
      const summed = threads.main + threads.gc + threads.libuv + threads.other;
      // Read one after the other from /proc, in ticks of 10 ms.
      expect(Math.abs(summed - whole)).toBeLessThanOrEqual(0.05);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('reads the garbage collections by kind from Herald metrics', async () => {
    const metrics = new Metrics();
    // Young-generation garbage enough for several collections, observed by prom-client as they happen.
    let kept: unknown[] = [];
    for (let index = 0; index < 2_000_000; index += 1) {
      kept.push({ index });
      if (kept.length > 1000) kept = [];
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(parseGcTotals(await metrics.text()).minor?.count).toBeGreaterThan(0);
    const sample = [
      'herald_nodejs_gc_duration_seconds_sum{kind="minor"} 0.25',
      'herald_nodejs_gc_duration_seconds_count{kind="minor"} 100',
      'herald_nodejs_gc_duration_seconds_bucket{le="0.001",kind="minor"} 40',
      'herald_nodejs_gc_duration_seconds_sum{kind="major"} 0.012',
      'herald_nodejs_gc_duration_seconds_count{kind="major"} 2',
    ].join('\n');
    expect(parseGcTotals(sample)).toEqual({ minor: { count: 100, seconds: 0.25 }, major: { count: 2, seconds: 0.012 } });
  });

  it('gives no thread CPU for a process that is gone', () => {
    expect(threadCpuSeconds(2 ** 22 + 12_345)).toEqual({ main: 0, gc: 0, libuv: 0, other: 0 });
  });
});
