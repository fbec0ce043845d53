import { systemClock, type Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import { integerIn } from './apns-client-options.ts';
import type { AuthorizationSource } from './authorization-source.ts';
import type { FcmServiceAccount } from './fcm-service-account.ts';
import { noopGatewayMetrics, type GatewayMetrics } from './gateway-metrics.ts';
import type { GatewayTransportKind } from './gateway-transport.ts';

export const fcmEndpoint = 'https://fcm.googleapis.com';

export interface FcmClientOptions {
  account: FcmServiceAccount;
  /** `https://host[:port]`; default FCM's. */
  endpoint?: string;
  /** PEM CAs trusted instead of the system roots, for the gateway and the token endpoint. */
  ca?: string | Buffer;
  /** Herald's own HTTP/2 connections, or node:http2 under http2-wrapper; default `herald`. */
  transport?: GatewayTransportKind;
  /** Most HTTP/2 sessions open at once; default 2. */
  sessions?: number;
  /** Longest wait for an answer before the delivery is given up as `retry`/Timeout; default 10 s. */
  requestTimeoutMs?: number;
  /** Interval of keep-alive PINGs; default 60 s. */
  pingIntervalMs?: number;
  clock?: Clock;
  metrics?: GatewayMetrics;
  logger?: Logger;
  /** The access token source; default an `FcmAccessToken` of `account`. */
  accessToken?: AuthorizationSource;
}

export interface CompiledFcmClientOptions {
  account: FcmServiceAccount;
  endpoint: string;
  ca: string | Buffer | undefined;
  transport: GatewayTransportKind;
  sessions: number;
  requestTimeoutMs: number;
  pingIntervalMs: number;
  clock: Clock;
  metrics: GatewayMetrics;
  logger: Logger | undefined;
  accessToken: AuthorizationSource | undefined;
}

/** Resolves defaults and checks ranges; throws RangeError naming the option. */
export function compileFcmClientOptions(options: FcmClientOptions): CompiledFcmClientOptions {
  return {
    account: options.account,
    endpoint: options.endpoint ?? fcmEndpoint,
    ca: options.ca,
    transport: options.transport ?? 'herald',
    sessions: integerIn('sessions', options.sessions ?? 2, 1, 64),
    requestTimeoutMs: integerIn('requestTimeoutMs', options.requestTimeoutMs ?? 10_000, 10, 300_000),
    pingIntervalMs: integerIn('pingIntervalMs', options.pingIntervalMs ?? 60_000, 10, 3_600_000),
    clock: options.clock ?? systemClock,
    metrics: options.metrics ?? noopGatewayMetrics,
    logger: options.logger,
    accessToken: options.accessToken,
  };
}
