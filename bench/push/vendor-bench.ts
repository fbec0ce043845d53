import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileConfig } from '../../src/config/load-config.ts';
import { benchBackends, type BenchStore } from './bench-backends.ts';
import { benchConfig, type EngineSettings } from './bench-config.ts';
import { BenchGateways } from './bench-gateways.ts';
import { startBenchHerald, type BenchApp, type BenchHeraldOptions } from './bench-herald.ts';
import { FakeMakersProcess } from './fake-makers-process.ts';
import { recordCounts } from './push-report.ts';
import { seedInstallations } from './seed-installations.ts';
import { followVendorBroadcast, vendorGateways, type VendorBroadcast } from './vendor-broadcast.ts';
import { vendorProblems, vendorReport } from './vendor-report.ts';
import { machineDescription } from '../machine.ts';
import { writeBenchResult } from '../bench-results.ts';

export interface VendorBenchOptions {
  devices: number;
  store: BenchStore;
  engine: EngineSettings;
  herald: BenchHeraldOptions;
  /** Where the JSON goes, and under which name. */
  outDir: string;
  resultName: string;
  out: (line: string) => void;
}

/**
 * The Android devices' vendors, one after another: each gateway the same
 * share (FCM, Huawei, Honor, Xiaomi with its China and global services, Meizu,
 * OPPO, vivo), spelled as the hosted service's SDK writes them.
 */
const vendors = ['fcm', 'fcm', 'HMS', 'HMS', 'honor', 'honor', 'mi', 'mi-intl', 'mz', 'mz', 'oppo', 'oppo', 'vivo', 'vivo'] as const;
/** iOS is one gateway of eight. */
const androidShare = 7 / 8;

/** What every device gets: a title, an alert and a custom key. */
const data = { alert: 'Your weekly summary is ready: 3 new messages and 2 updates.', title: 'Weekly summary', campaign: 'weekly-2026-47' };

/**
 * `bench:push --android-vendors`: one broadcast to a mixed audience of iOS,
 * FCM and the six phone makers' devices, each gateway a fake of its own
 * process (APNs, FCM, and the six makers together in a third), Herald as
 * `npm start` runs it. Prints the deliveries per second overall and per
 * gateway, Herald's CPU per delivery, and each maker's requests (how well
 * it batches); fails unless every device got exactly one notification and
 * the push record agrees with the fakes.
 */
export async function runVendorBench(options: VendorBenchOptions): Promise<void> {
  const { devices, store, engine, out } = options;
  const app: BenchApp = { id: 'bench', key: randomBytes(12).toString('hex'), masterKey: randomBytes(16).toString('hex') };
  const dataDir = mkdtempSync(join(tmpdir(), 'herald-vendor-bench-'));
  const backends = await benchBackends(store);
  const gateways = await BenchGateways.start({ fcm: true });
  let makers: FakeMakersProcess | undefined;
  try {
    makers = await FakeMakersProcess.start(gateways.pki);
    const raw = benchConfig({ app, dataDir, backends, gateways, engine });
    const [benchApp] = raw.apps ?? [];
    if (benchApp === undefined) throw new Error('the bench config has no app');
    benchApp.push = { ...gateways.appPush, ...makers.appPush(gateways.pki) };
    const config = compileConfig(raw);
    out(
      `push bench, Android vendors: ${devices.toLocaleString('en-US')} devices, an eighth each for APNs, FCM, Huawei, Honor, Xiaomi (mi and mi-intl), Meizu, OPPO and vivo, on ${store}; ` +
        `shards ${config.push.installationShards}, slice ${config.push.sliceSize}, sender concurrency ${config.push.senderConcurrency}, ` +
        `${config.push.gateways.makerConnections} connections per maker endpoint; ${cpus().length} cores, node ${process.version}`,
    );
    const seeded = await seedInstallations(config, app.id, { devices, androidShare, vendors });
    out(`seeded ${seeded.ios.toLocaleString('en-US')} iOS and ${seeded.android.toLocaleString('en-US')} Android installations (${vendorText(seeded.byVendor)}) in ${seeded.seconds.toFixed(1)} s`);

    const expected = vendorGateways(seeded);
    const herald = await startBenchHerald(raw, options.herald);
    let broadcast: VendorBroadcast;
    try {
      const settled = await herald.settle();
      if (settled > 2) out(`Herald was busy for ${settled.toFixed(1)} s after start (the scheduler's first sweep reads every installation)`);
      broadcast = await followVendorBroadcast(herald, app, { gateways, makers }, data, expected);
    } finally {
      await herald.stop();
    }

    out('');
    for (const line of vendorReport(broadcast)) out(line);
    const problems = vendorProblems(broadcast);
    const report = {
      bench: 'push-android-vendors',
      date: new Date().toISOString(),
      machine: machineDescription(),
      note: 'Herald and the fakes (APNs, FCM and the six makers, three processes) share this machine with other work; the makers are fakes on loopback, so the figures are what Herald spends, not what the makers allow',
      store,
      devices,
      seeded,
      settings: {
        installationShards: config.push.installationShards,
        sliceSize: config.push.sliceSize,
        senderConcurrency: config.push.senderConcurrency,
        deliveryWindow: config.push.deliveryWindow,
        makerConnections: config.push.gateways.makerConnections,
        heraldNodeOptions: options.herald.nodeOptions ?? null,
      },
      data,
      broadcast: { ...broadcast, record: recordCounts(broadcast.record) },
      problems,
    };
    writeBenchResult(options.outDir, options.resultName, report, out);
    if (problems.length > 0) throw new Error(`the run cannot be trusted: ${problems.join('; ')}`);
  } finally {
    await makers?.close();
    await gateways.close();
    await backends.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function vendorText(byVendor: Record<string, number>): string {
  return Object.entries(byVendor)
    .map(([vendor, count]) => `${vendor} ${count.toLocaleString('en-US')}`)
    .join(', ');
}
