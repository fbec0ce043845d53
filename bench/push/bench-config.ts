import type { RawConfig } from '../../src/config/schema.ts';
import type { GatewayTransportKind } from '../../src/push/gateways/gateway-transport.ts';
import type { BenchBackends } from './bench-backends.ts';
import type { BenchGateways } from './bench-gateways.ts';
import type { BenchApp } from './bench-herald.ts';

/** The push engine settings a benchmark may override; absent ones keep Herald's defaults. */
export interface EngineSettings {
  installationShards: number | undefined;
  sliceSize: number | undefined;
  senderConcurrency: number | undefined;
  /** APNs sessions per origin (`--sessions`); FCM keeps Herald's default. */
  apnsSessions: number | undefined;
  deliveryWindow?: { min: number; max: number } | undefined;
  /** `push.gateways.transport` (`--transport`). */
  transport?: GatewayTransportKind | undefined;
  /** An endpoint the app's webhooks go to, taking every event, delivery.succeeded included (`--webhook`). */
  webhook?: { url: string; secret: string } | undefined;
}

/**
 * The config of a benchmark's Herald: its backends, one app whose gateways are
 * the local fakes (trusted through the test CA), the engine settings given,
 * and a port the kernel picks.
 */
export function benchConfig(parts: { app: BenchApp; dataDir: string; backends: BenchBackends; gateways: BenchGateways; engine: EngineSettings }): RawConfig {
  const { app, dataDir, backends, gateways, engine } = parts;
  const push: NonNullable<RawConfig['push']> = {
    ...(engine.installationShards === undefined ? {} : { installationShards: engine.installationShards }),
    ...(engine.sliceSize === undefined ? {} : { sliceSize: engine.sliceSize }),
    ...(engine.senderConcurrency === undefined ? {} : { senderConcurrency: engine.senderConcurrency }),
    ...(engine.deliveryWindow === undefined ? {} : { deliveryWindow: engine.deliveryWindow }),
    gateways: {
      caFile: gateways.pki.ca.certFile,
      ...(engine.apnsSessions === undefined ? {} : { sessionsPerOrigin: { apns: engine.apnsSessions } }),
      ...(engine.transport === undefined ? {} : { transport: engine.transport }),
    },
  };
  return {
    port: 0,
    host: '127.0.0.1',
    dataDir,
    logLevel: 'info',
    store: backends.store,
    coordination: backends.coordination,
    bus: backends.bus,
    push,
    apps: [
      {
        ...app,
        name: 'Herald Bench',
        push: gateways.appPush,
        ...(engine.webhook === undefined ? {} : { webhooks: [{ name: 'bench', url: engine.webhook.url, secret: engine.webhook.secret, events: ['push.done', 'delivery.failed', 'installation.removed', 'delivery.succeeded'] }] }),
      },
    ],
  };
}

/** `apns 2, fcm 20`: the sessions per origin a run's Herald may open to each gateway. */
export function sessionsText(sessions: { apns: number; fcm: number }): string {
  return `apns ${sessions.apns}, fcm ${sessions.fcm}`;
}
