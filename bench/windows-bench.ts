/**
 * `npm run bench:windows [-- --devices 40000] [--fcm-latency 60] [--repeat 1]`
 *
 * The delivery windows when the gateway changes under a busy sender: Herald
 * (one process, embedded default) sends an iOS push to a fake APNs next door
 * and, as soon as that is done, an Android push to a fake FCM that answers
 * `--fcm-latency` ms late. The Android push is measured twice per round,
 * first with the window fixed at `push.deliveryWindow.min` and then sized
 * (Herald's default bounds); the ratio of the two rates shows what sizing
 * gains at that latency. Each run prints the largest and last FCM window
 * (`herald_push_delivery_window{gateway="fcm"}`) sampled during the Android
 * push. A window that kept APNs's latency as its base would read FCM's as a
 * queue and stay at `min`. Results go to bench/results/windows.json.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { compileConfig } from '../src/config/load-config.ts';
import type { RawConfig } from '../src/config/schema.ts';
import { benchBackends } from './push/bench-backends.ts';
import { benchConfig } from './push/bench-config.ts';
import { BenchGateways } from './push/bench-gateways.ts';
import type { FakeFcmCounts } from './push/fake-fcm-process.ts';
import { startBenchHerald, type BenchApp } from './push/bench-herald.ts';
import { followBroadcast, type BroadcastResult } from './push/follow-broadcast.ts';
import { seedInstallations } from './push/seed-installations.ts';
import { windowSampler } from './push/window-sampler.ts';
import { count, fail } from './bench-args.ts';
import { machineDescription } from './machine.ts';
import { benchResultsDir, writeBenchResult } from './bench-results.ts';

const { values } = parseArgs({
  options: {
    devices: { type: 'string', default: '40000' },
    'fcm-latency': { type: 'string', default: '60' },
    repeat: { type: 'string', default: '1' },
  },
});

/** iOS devices, and as many Android ones. */
const perPlatform = count('devices', values.devices, 1);
const fcmLatencyMs = count('fcm-latency', values['fcm-latency'], 1);
const repeat = count('repeat', values.repeat, 1);
const data = { alert: 'Your weekly summary is ready: 3 new messages and 2 updates.', sound: 'default', campaign: 'weekly-2026-47' };
const out = (line: string): boolean => process.stdout.write(`${line}\n`);

interface WindowRun {
  mode: 'fixed' | 'sized';
  window: { min: number; max: number };
  iosPerSecond: number;
  androidPerSecond: number;
  androidExactlyOnce: boolean;
  androidCpuMicrosPerDelivery: number;
  fcmWindowLargest: number;
  fcmWindowAtEnd: number;
  /** The most streams open at the fake FCM at once during the Android push, in all and on one session (its limit: 100). */
  fcmPeakStreams: number;
  fcmPeakStreamsPerSession: number;
}

/** One Herald: the iOS push next door, then at once the Android push to the far FCM, with the FCM window sampled. */
async function backToBack(raw: RawConfig, app: BenchApp, gateways: BenchGateways, mode: WindowRun['mode'], window: WindowRun['window']): Promise<WindowRun> {
  const herald = await startBenchHerald({ ...raw, push: { ...raw.push, deliveryWindow: window } });
  let ios: BroadcastResult;
  let android: BroadcastResult;
  let sampled: { largest: number; last: number };
  let fcmCounts: FakeFcmCounts | undefined;
  try {
    await herald.settle();
    ios = await followBroadcast(herald, app, gateways, data, perPlatform, { deviceType: 'ios' });
    await gateways.fcm?.setDefaultAnswer({ status: 200, delayMs: fcmLatencyMs });
    const sampler = windowSampler(herald.port, 'fcm');
    try {
      android = await followBroadcast(herald, app, gateways, data, perPlatform, { deviceType: 'android' });
    } finally {
      sampled = await sampler.stop();
    }
    fcmCounts = await gateways.fcm?.counts();
  } finally {
    await herald.stop();
    await gateways.fcm?.setDefaultAnswer({ status: 200 });
    await gateways.reset();
  }
  const run: WindowRun = {
    mode,
    window,
    iosPerSecond: ios.deliveriesPerSecond,
    androidPerSecond: android.deliveriesPerSecond,
    androidExactlyOnce: android.exactlyOnce.ok,
    androidCpuMicrosPerDelivery: android.cpuMicrosPerDelivery,
    fcmWindowLargest: sampled.largest,
    fcmWindowAtEnd: sampled.last,
    fcmPeakStreams: fcmCounts?.peakStreams ?? 0,
    fcmPeakStreamsPerSession: fcmCounts?.peakStreamsPerSession ?? 0,
  };
  out(
    `${mode} window ${window.min}..${window.max}: iOS push ${run.iosPerSecond.toLocaleString('en-US')}/s, then Android push ` +
      `${run.androidPerSecond.toLocaleString('en-US')}/s at ${run.androidCpuMicrosPerDelivery} µs per delivery; ` +
      `FCM window at most ${run.fcmWindowLargest}, ${run.fcmWindowAtEnd} at the end; ` +
      `at most ${run.fcmPeakStreams} streams open at the fake FCM, ${run.fcmPeakStreamsPerSession} on one session; exactly once: ${run.androidExactlyOnce ? 'yes' : 'NO'}`,
  );
  return run;
}

async function main(): Promise<void> {
  const app: BenchApp = { id: 'bench', key: randomBytes(12).toString('hex'), masterKey: randomBytes(16).toString('hex') };
  const dataDir = mkdtempSync(join(tmpdir(), 'herald-windows-bench-'));
  const backends = await benchBackends('sqlite');
  const gateways = await BenchGateways.start({ fcm: true });
  try {
    const engine = { installationShards: undefined, sliceSize: undefined, senderConcurrency: undefined, apnsSessions: undefined };
    const raw = benchConfig({ app, dataDir, backends, gateways, engine });
    const config = compileConfig(raw);
    const sized = config.push.deliveryWindow;
    const fixed = { min: sized.min, max: sized.min };
    out(`windows bench: ${perPlatform.toLocaleString('en-US')} iOS then ${perPlatform.toLocaleString('en-US')} Android devices, FCM ${fcmLatencyMs} ms away; ${cpus().length} cores, node ${process.version}`);
    const seeded = await seedInstallations(config, app.id, { devices: 2 * perPlatform, androidShare: 0.5 });
    if (seeded.ios !== perPlatform || seeded.android !== perPlatform) fail(`seeded ${seeded.ios} iOS and ${seeded.android} Android installations, not ${perPlatform} of each`);
    out(`a fixed window of ${fixed.min} caps the Android push at ${Math.round((fixed.min * 1000) / fcmLatencyMs).toLocaleString('en-US')}/s; one of ${sized.max} at ${Math.round((sized.max * 1000) / fcmLatencyMs).toLocaleString('en-US')}/s`);
    const runs: WindowRun[] = [];
    for (let round = 0; round < repeat; round += 1) {
      runs.push(await backToBack(raw, app, gateways, 'fixed', fixed));
      runs.push(await backToBack(raw, app, gateways, 'sized', sized));
    }
    const median = (mode: WindowRun['mode']): number => {
      const rates = runs.filter((run) => run.mode === mode).map((run) => run.androidPerSecond).sort((a, b) => a - b);
      return rates[Math.floor(rates.length / 2)] as number;
    };
    const ratio = Math.round((median('sized') / median('fixed')) * 100) / 100;
    out(`Android push after the iOS one: sized window ${median('sized').toLocaleString('en-US')}/s against ${median('fixed').toLocaleString('en-US')}/s fixed at ${fixed.min}: ${ratio}×`);
    if (runs.some((run) => !run.androidExactlyOnce)) fail('some Android device did not get exactly one notification');
    const report = {
      bench: 'windows',
      date: new Date().toISOString(),
      machine: machineDescription(),
      devicesPerPlatform: perPlatform,
      fcmLatencyMs,
      windows: { fixed, sized },
      median: { sizedAndroidPerSecond: median('sized'), fixedAndroidPerSecond: median('fixed'), ratio },
      runs,
    };
    writeBenchResult(benchResultsDir, 'windows.json', report, out);
  } finally {
    await gateways.close();
    await backends.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
