import { deviceToken } from '../support/gateways/gateway-fixtures.ts';
import { NoAnswerError, type ApiClient } from './api-client.ts';

/** One installation of the fleet, and the address its gateway knows it by. */
export interface FleetDevice {
  n: number;
  platform: 'ios' | 'android';
  /** The APNs device token (iOS) or the FCM registration token (Android). */
  address: string;
  /** Android: the installationId a device-list push names it by. */
  installationId: string | undefined;
  channels: string[];
}

/** Every device of one fleet and how to narrow it to a push's audience. */
export interface Audience {
  apns: ReadonlySet<string>;
  fcm: ReadonlySet<string>;
}

/**
 * `count` devices, alternately iOS and Android, on channels that make
 * audiences of known size: `news` a quarter of them (both platforms),
 * `sports` a fifth.
 */
export function makeFleet(count: number, offset = 0): FleetDevice[] {
  return Array.from({ length: count }, (_, index) => {
    const n = offset + index;
    const channels = [...(n % 8 < 2 ? ['news'] : []), ...(n % 5 === 0 ? ['sports'] : [])];
    return n % 2 === 0
      ? { n, platform: 'ios', address: deviceToken(n), installationId: undefined, channels }
      : { n, platform: 'android', address: `fcm-token-${n}`, installationId: `android-${n}`, channels };
  });
}

/** The addresses of `devices`, per gateway. */
export function audienceOf(devices: Iterable<FleetDevice>): Audience {
  const apns = new Set<string>();
  const fcm = new Set<string>();
  for (const device of devices) (device.platform === 'ios' ? apns : fcm).add(device.address);
  return { apns, fcm };
}

/** The body an SDK would save for `device`. */
export function installationBody(device: FleetDevice, channels = device.channels): Record<string, unknown> {
  const common = { channels, appVersion: '4.12.0', localeIdentifier: 'en-GB', timeZone: 'Europe/London' };
  return device.platform === 'ios'
    ? { deviceType: 'ios', deviceToken: device.address, ...common }
    : { deviceType: 'android', installationId: device.installationId, registrationId: device.address, vendor: 'fcm', ...common };
}

export interface SaveReport {
  saved: number;
  /** Saves that were answered 503 or not at all and sent again, as an SDK does. */
  resent: number;
  seconds: number;
}

/**
 * Saves every device through the API nodes, round robin, `inFlight` at a
 * time. A save answered 503 or not answered is sent again (up to 3 times in
 * all, as an SDK retries); any other answer than 201 (or 200 for a resent
 * save) fails with what it was.
 */
export async function saveFleet(devices: readonly FleetDevice[], clients: readonly ApiClient[], inFlight: number): Promise<SaveReport> {
  const started = performance.now();
  let next = 0;
  let resent = 0;
  const worker = async (): Promise<void> => {
    while (next < devices.length) {
      const index = next++;
      const device = devices[index] as FleetDevice;
      for (let attempt = 1; ; attempt++) {
        const client = clients[(index + attempt - 1) % clients.length] as ApiClient;
        const answer = await client.request('POST', '/1.1/installations', { body: installationBody(device) }).catch((error: unknown) => {
          if (error instanceof NoAnswerError && attempt < 3) return null;
          throw error;
        });
        // A resent save may find the device the first one stored: 200, as for any re-save.
        if (answer !== null && (answer.status === 201 || (attempt > 1 && answer.status === 200))) break;
        if (attempt >= 3 || (answer !== null && answer.status !== 503)) {
          throw new Error(`saving device ${device.n} answered ${answer?.status ?? 'nothing'}: ${JSON.stringify(answer?.body)}`);
        }
        resent++;
      }
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return { saved: devices.length, resent, seconds: (performance.now() - started) / 1000 };
}
