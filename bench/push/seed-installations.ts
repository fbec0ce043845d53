import { randomBytes, randomUUID } from 'node:crypto';
import { userClassDescriptor } from '../../src/accounts/user-class.ts';
import type { HeraldConfig } from '../../src/config/schema.ts';
import { isoTime, systemClock } from '../../src/core/clock.ts';
import { silentLogger } from '../../src/core/logger.ts';
import type { StoredObject } from '../../src/core/ports/object-store.ts';
import { openStore } from '../../src/runtime/open-store.ts';
import { ProgressBar } from './progress-bar.ts';

export interface SeedPlan {
  devices: number;
  /** Share of the devices that are Android, spread evenly among the iOS ones. */
  androidShare: number;
  /** The vendors of the Android devices, one after another in this order (a vendor twice gets twice the devices); default all FCM. */
  vendors?: readonly string[];
}

export interface Seeded {
  ios: number;
  android: number;
  /** Android devices by vendor. */
  byVendor: Record<string, number>;
  seconds: number;
}

const dayMs = 24 * 60 * 60 * 1000;

/**
 * Writes `plan.devices` installations of `appId` straight into the store the
 * Herald process will open — the same store settings, shard count included —
 * through `insertMany`, a batch at a time so that memory stays flat at a
 * million devices. Each looks like what the client SDKs save: iOS with a
 * 32-byte hex token, Android with an FCM registration token, app and locale
 * fields, one channel, saved within the last month (so targeted).
 */
export async function seedInstallations(config: HeraldConfig, appId: string, plan: SeedPlan): Promise<Seeded> {
  const store = await openStore(config.store, {
    dataDir: config.dataDir,
    classes: { _User: userClassDescriptor },
    clock: systemClock,
    logger: silentLogger(),
    installationShards: config.push.installationShards,
  });
  const bar = new ProgressBar('seeding', plan.devices);
  const started = performance.now();
  const batchSize = config.store.kind === 'sqlite' ? 10_000 : 2000;
  const topic = config.apps[0]?.push.apns?.topic ?? 'com.example.app';
  const vendors = plan.vendors ?? ['fcm'];
  const byVendor: Record<string, number> = {};
  let android = 0;
  try {
    for (let start = 0; start < plan.devices; start += batchSize) {
      const batch: StoredObject[] = [];
      const end = Math.min(plan.devices, start + batchSize);
      for (let n = start; n < end; n += 1) {
        const isAndroid = Math.floor((n + 1) * plan.androidShare) > Math.floor(n * plan.androidShare);
        if (!isAndroid) {
          batch.push(iosInstallation(topic));
          continue;
        }
        const vendor = vendors[android % vendors.length] as string;
        android += 1;
        byVendor[vendor] = (byVendor[vendor] ?? 0) + 1;
        batch.push(androidInstallation(topic, vendor));
      }
      await store.installations.insertMany(appId, batch);
      bar.update(end);
    }
    bar.finish();
  } finally {
    await store.close();
  }
  return { ios: plan.devices - android, android, byVendor, seconds: (performance.now() - started) / 1000 };
}

function common(topic: string): StoredObject {
  const now = Date.now();
  const updatedAt = now - Math.floor(Math.random() * 30 * dayMs);
  return {
    objectId: randomBytes(12).toString('hex'),
    createdAt: isoTime(updatedAt - Math.floor(Math.random() * 300 * dayMs)),
    updatedAt: isoTime(updatedAt),
    installationId: randomUUID(),
    appIdentifier: topic,
    appName: 'Herald Bench',
    appVersion: '4.12.0',
    localeIdentifier: 'en-GB',
    timeZone: 'Europe/London',
    channels: ['news'],
    badge: 0,
  };
}

function iosInstallation(topic: string): StoredObject {
  return { ...common(topic), deviceType: 'ios', deviceToken: randomBytes(32).toString('hex') };
}

function androidInstallation(topic: string, vendor: string): StoredObject {
  const make = registrationIds[vendor];
  if (make === undefined) throw new Error(`no registrationId shape for vendor ${vendor}`);
  const registrationId = make();
  return { ...common(topic), deviceType: 'android', registrationId, vendor, ...(vendor === 'fcm' ? { pushType: 'gcm' } : {}) };
}

/** A registrationId of the shape each service issues, by the vendor the hosted service's SDK writes. */
const registrationIds: Record<string, () => string> = {
  // FCM registration tokens: an instance id, a colon, then an opaque base64url blob of ~140 characters.
  fcm: () => `${randomBytes(16).toString('base64url').slice(0, 22)}:APA91b${randomBytes(102).toString('base64url')}`,
  HMS: () => `IQAAAACy0${randomBytes(96).toString('base64url')}`,
  honor: () => `BAEAAAAAB${randomBytes(48).toString('base64url')}`,
  mi: () => randomBytes(33).toString('base64'),
  'mi-intl': () => randomBytes(33).toString('base64'),
  mz: () => `ULY${randomBytes(19).toString('hex')}`,
  oppo: () => `CN_${randomBytes(16).toString('hex')}`,
  // vivo checks 23 characters.
  vivo: () => randomBytes(12).toString('hex').slice(0, 23),
};
