import type { KeyObject } from 'node:crypto';
import { systemClock, type Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import { noopGatewayMetrics, type GatewayMetrics } from './gateway-metrics.ts';
import type { GatewayTls, GatewayTransportKind } from './gateway-transport.ts';

export type ApnsEnvironment = 'production' | 'development';

/** Apple's endpoints per environment. */
export const apnsEndpoints: Readonly<Record<ApnsEnvironment, string>> = {
  production: 'https://api.push.apple.com',
  development: 'https://api.sandbox.push.apple.com',
};

/** Token auth: an ES256 key from a `.p8` file. */
export interface ApnsTokenAuth {
  kind: 'token';
  key: KeyObject;
  keyId: string;
  teamId: string;
}

/** Certificate auth: a TLS client certificate, PEM or PKCS#12. */
export type ApnsCertificateAuth =
  | { kind: 'certificate'; cert: string | Buffer; key: string | Buffer; passphrase?: string }
  | { kind: 'certificate'; pfx: Buffer; passphrase?: string };

export interface ApnsClientOptions {
  /** Chooses the default endpoint; default production. */
  environment?: ApnsEnvironment;
  /** `https://host[:port]`; default Apple's endpoint of `environment`. */
  endpoint?: string;
  auth: ApnsTokenAuth | ApnsCertificateAuth;
  /** The topic to use when a delivery's caller has none (config, or the certificate's bundle id). */
  defaultTopic?: string;
  /** PEM CAs trusted instead of the system roots. */
  ca?: string | Buffer;
  /** Herald's own HTTP/2 connections, or node:http2 under http2-wrapper; default `herald`. */
  transport?: GatewayTransportKind;
  /** Most HTTP/2 sessions open at once; default 2. */
  sessions?: number;
  /** Longest wait for an answer before the delivery is given up as `retry`/Timeout; default 10 s. */
  requestTimeoutMs?: number;
  /** Interval of keep-alive PINGs; a session that misses one is dropped; default 60 s. */
  pingIntervalMs?: number;
  /** Age at which the provider token is signed again, 20 to 60 minutes; default 50 minutes. */
  tokenRefreshMs?: number;
  clock?: Clock;
  metrics?: GatewayMetrics;
  /** Session events only; nothing is logged per request. */
  logger?: Logger;
}

export interface CompiledApnsClientOptions {
  environment: ApnsEnvironment;
  endpoint: string;
  auth: ApnsTokenAuth | ApnsCertificateAuth;
  defaultTopic: string | undefined;
  tls: GatewayTls;
  transport: GatewayTransportKind;
  sessions: number;
  requestTimeoutMs: number;
  pingIntervalMs: number;
  tokenRefreshMs: number;
  clock: Clock;
  metrics: GatewayMetrics;
  logger: Logger | undefined;
}

const minute = 60_000;

/** Resolves defaults and checks ranges; throws RangeError naming the option. */
export function compileApnsClientOptions(options: ApnsClientOptions): CompiledApnsClientOptions {
  const environment = options.environment ?? 'production';
  const tls: GatewayTls = options.ca === undefined ? {} : { ca: options.ca };
  if (options.auth.kind === 'certificate') {
    if ('pfx' in options.auth) Object.assign(tls, { pfx: options.auth.pfx, passphrase: options.auth.passphrase });
    else Object.assign(tls, { cert: options.auth.cert, key: options.auth.key, passphrase: options.auth.passphrase });
  }
  return {
    environment,
    endpoint: options.endpoint ?? apnsEndpoints[environment],
    auth: options.auth,
    defaultTopic: options.defaultTopic,
    tls,
    transport: options.transport ?? 'herald',
    sessions: integerIn('sessions', options.sessions ?? 2, 1, 64),
    requestTimeoutMs: integerIn('requestTimeoutMs', options.requestTimeoutMs ?? 10_000, 10, 300_000),
    pingIntervalMs: integerIn('pingIntervalMs', options.pingIntervalMs ?? minute, 10, 3_600_000),
    tokenRefreshMs: integerIn('tokenRefreshMs', options.tokenRefreshMs ?? 50 * minute, 20 * minute, 60 * minute),
    clock: options.clock ?? systemClock,
    metrics: options.metrics ?? noopGatewayMetrics,
    logger: options.logger,
  };
}

export function integerIn(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) throw new RangeError(`${name} must be an integer from ${min} to ${max}, got ${value}`);
  return value;
}
