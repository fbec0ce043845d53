import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { RawConfig } from '../../../src/config/schema.ts';
import type { StoredObject } from '../../../src/core/ports/object-store.ts';
import { eventually } from '../../support/eventually.ts';
import { deviceToken } from '../../support/gateways/gateway-fixtures.ts';
import { ManualClock } from '../../support/manual-clock.ts';
import { startPushGatewayFakes, type PushGatewayFakes } from '../../support/push-gateways.ts';
import { startTestHerald, type RequestOptions, type TestHerald, type TestHeraldOptions, type TestResponse } from '../../support/test-herald.ts';

type RawApp = NonNullable<RawConfig['apps']>[number];
type EngineConfig = NonNullable<RawConfig['push']>;
// Records are untyped JSON on the wire; tests read the fields they expect.
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export const dayMs = 24 * 60 * 60 * 1000;

export interface PushHeraldOptions {
  /** Engine settings on top of the quick test defaults (4 shards, slices of 50, scheduler every 100 ms, fast retries). */
  engine?: Partial<EngineConfig>;
  settings?: TestHeraldOptions['settings'];
  /** The app's push credentials; default token auth at the fake APNs and the fake FCM. */
  appPush?: (fakes: PushGatewayFakes) => RawApp['push'];
  extraApps?: (fakes: PushGatewayFakes) => RawApp[];
  /** The app's webhook endpoints. */
  webhooks?: RawApp['webhooks'];
  /** The store; default the harness's (SQLite, or Cassandra in the distributed run). */
  store?: TestHeraldOptions['store'];
  /** Roles to run, e.g. `api,fanout,sender` for no scheduler; default all. */
  role?: string;
  /** Coordination; default the harness's (in memory, or Redis in the distributed run). */
  coordination?: TestHeraldOptions['coordination'];
  /** Herald's logger; default silent. */
  logger?: TestHeraldOptions['logger'];
}

/** A Herald on a manual clock, with a fake APNs, a fake FCM and the phone makers' fakes sharing that clock. */
export interface PushHerald {
  h: TestHerald;
  fakes: PushGatewayFakes;
  clock: ManualClock;
  /** `POST /1.1/push`, with the master key unless told otherwise. */
  send(body: unknown, options?: RequestOptions): Promise<TestResponse>;
  /** `POST /1.1/push/devices`, with the master key unless told otherwise. */
  sendToDevices(body: unknown, options?: RequestOptions): Promise<TestResponse>;
  /** `GET /1.1/tables/Notifications/<objectId>` with the app key; the body, or null when there is none. */
  record(objectId: string): Promise<Json | null>;
  /** Waits until the push's record reads `done` or `Error`, and answers it. */
  settled(objectId: string, timeoutMs?: number): Promise<Json>;
  /** How many push records `GET /1.1/notifications?count=1` reports. */
  recordCount(): Promise<number>;
  /** `POST /1.1/installations`; answers the objectId. */
  saveInstallation(body: Record<string, unknown>): Promise<string>;
  /** Writes installations straight into the store, for big audiences. */
  seed(installations: StoredObject[]): Promise<void>;
  close(): Promise<void>;
}

/** The engine settings of these tests: small, quick, and with retries that do not keep a test waiting. */
export function quickEngine(overrides: Partial<EngineConfig> = {}): Partial<EngineConfig> {
  return {
    installationShards: 4,
    sliceSize: 50,
    schedulerIntervalMs: 100,
    ...overrides,
    gateways: { requestTimeoutMs: 2000, retry: { maxAttempts: 4, baseDelayMs: 10, maxDelayMs: 50, maxRetryAfterMs: 2000 }, ...overrides.gateways },
  };
}

export async function startPushHerald(options: PushHeraldOptions = {}): Promise<PushHerald> {
  const clock = new ManualClock();
  const fakes = await startPushGatewayFakes({ apns: { clock }, fcm: { clock }, hms: { clock }, oppo: { clock }, vivo: { clock }, xiaomi: { clock }, honor: { clock }, meizu: { clock } });
  let h: TestHerald;
  try {
    h = await startTestHerald({
      clock,
      push: options.appPush?.(fakes) ?? fakes.appPush,
      engine: fakes.engine(quickEngine(options.engine)),
      ...(options.settings === undefined ? {} : { settings: options.settings }),
      ...(options.extraApps === undefined ? {} : { extraApps: options.extraApps(fakes) }),
      ...(options.webhooks === undefined ? {} : { webhooks: options.webhooks }),
      ...(options.store === undefined ? {} : { store: options.store }),
      ...(options.role === undefined ? {} : { role: options.role }),
      ...(options.coordination === undefined ? {} : { coordination: options.coordination }),
      ...(options.logger === undefined ? {} : { logger: options.logger }),
    });
  } catch (error) {
    await fakes.close();
    throw error;
  }
  const record = async (objectId: string): Promise<Json | null> => {
    const res = await h.request('GET', `/1.1/tables/Notifications/${objectId}`);
    if (res.status === 404) return null;
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };
  return {
    h,
    fakes,
    clock,
    send: (body, requestOptions = {}) => h.request('POST', '/1.1/push', { master: true, ...requestOptions, body }),
    sendToDevices: (body, requestOptions = {}) => h.request('POST', '/1.1/push/devices', { master: true, ...requestOptions, body }),
    record,
    settled: (objectId, timeoutMs = 15_000) =>
      eventually(
        `push ${objectId} to be done`,
        () => record(objectId),
        (read) => read?.status === 'done' || read?.status === 'Error',
        { timeoutMs },
      ) as Promise<Json>,
    recordCount: async () => {
      const res = await h.request('GET', '/1.1/notifications?count=1&limit=0', { master: true });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.count as number;
    },
    saveInstallation: async (body) => {
      const res = await h.request('POST', '/1.1/installations', { body });
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
      return res.body.objectId as string;
    },
    seed: async (installations) => {
      // A few batches at once: Cassandra writes each installation with lightweight transactions, one at a time per batch.
      const store = h.herald.runtime.store.installations;
      const batches: StoredObject[][] = [];
      for (let start = 0; start < installations.length; start += 2500) batches.push(installations.slice(start, start + 2500));
      const worker = async () => {
        for (let batch = batches.shift(); batch !== undefined; batch = batches.shift()) await store.insertMany(h.app.id, batch);
      };
      await Promise.all([worker(), worker(), worker(), worker()]);
    },
    close: async () => {
      await h.close();
      await fakes.close();
    },
  };
}

/** An iOS installation document for `seed`, saved at `savedAt` (ms), with device token `n`. */
export function iosInstallation(n: number, savedAt: number, fields: Record<string, unknown> = {}): StoredObject {
  const at = new Date(savedAt).toISOString();
  return { objectId: randomBytes(12).toString('hex'), createdAt: at, updatedAt: at, deviceType: 'ios', deviceToken: deviceToken(n), ...fields };
}

/** An Android installation document for `seed`, with installationId `android-<id>` and FCM token `fcm-<id>`. */
export function androidInstallation(id: string | number, savedAt: number, fields: Record<string, unknown> = {}): StoredObject {
  const at = new Date(savedAt).toISOString();
  return {
    objectId: randomBytes(12).toString('hex'),
    createdAt: at,
    updatedAt: at,
    deviceType: 'android',
    installationId: `android-${id}`,
    registrationId: `fcm-${id}`,
    vendor: 'fcm',
    ...fields,
  };
}

/** An Huawei (HMS) installation document for `seed`, with installationId `hms-<id>`, registrationId `hmstoken-<id>` and vendor `HMS` as the hosted service's SDK writes it. */
export function hmsInstallation(id: string | number, savedAt: number, fields: Record<string, unknown> = {}): StoredObject {
  return androidInstallation(id, savedAt, { installationId: `hms-${id}`, registrationId: `hmstoken-${id}`, vendor: 'HMS', ...fields });
}

/** A unique name for a test's channel or field value, so tests sharing one Herald do not see each other's devices. */
export function uniqueName(prefix: string): string {
  return `${prefix}${randomBytes(4).toString('hex')}`;
}
