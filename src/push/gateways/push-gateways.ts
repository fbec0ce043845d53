import { systemClock, type Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import type { PushGatewaysConfig } from '../../config/push-gateways-schema.ts';
import { ApnsClient } from './apns-client.ts';
import type { ApnsEnvironment } from './apns-client-options.ts';
import { chooseApnsCredential } from './apns-credential-choice.ts';
import { FcmClient } from './fcm-client.ts';
import type { MakerName } from './delivery.ts';
import { noopGatewayMetrics, type GatewayMetrics } from './gateway-metrics.ts';
import { MakerClient } from './makers/maker-client.ts';
import { MakerHttp } from './makers/maker-http.ts';
import type { MakerProfiles } from './makers/maker.ts';
import type { ApnsCertificateCredential, ApnsCredentials, AppPushCredentials, PushCredentials } from './push-credentials.ts';

export interface PushGatewaysOptions {
  /** From `loadPushCredentials`, at start-up. */
  credentials: PushCredentials;
  settings: Pick<PushGatewaysConfig, 'transport' | 'sessionsPerOrigin' | 'requestTimeoutMs' | 'pingIntervalMs' | 'tokenRefreshMinutes'> &
    Partial<Pick<PushGatewaysConfig, 'makerConnections'>>;
  metrics?: GatewayMetrics;
  /** Gets `{app, environment, profile}` bindings per client (the clients add `gateway`); clients log session events only. */
  logger?: Logger;
  clock?: Clock;
}

/** The clients of one app, built on first use. */
interface AppClients {
  apnsToken: Partial<Record<ApnsEnvironment, ApnsClient>>;
  apnsCertificate: Partial<Record<ApnsEnvironment, ApnsClient>>;
  apnsProfiles: Map<string, Partial<Record<ApnsEnvironment, ApnsClient>>>;
  fcm: FcmClient | undefined;
  /** By maker and profile; null when the app has no such profile. */
  makers: Map<string, MakerClient | null>;
}

/**
 * The gateway clients of every app, built lazily from the credentials loaded
 * at start-up: one APNs client per app, environment and credential (token
 * auth serves every profile; certificates are per profile), one FCM client
 * per app, one client per app, phone maker and profile. Each client keeps
 * its own pooled sessions or connections.
 */
export class PushGateways {
  readonly #options: PushGatewaysOptions;
  readonly #metrics: GatewayMetrics;
  readonly #clock: Clock;
  readonly #clients = new Map<string, AppClients>();
  readonly #all: (ApnsClient | FcmClient | MakerClient)[] = [];
  #closing: Promise<void> | undefined;

  constructor(options: PushGatewaysOptions) {
    this.#options = options;
    this.#metrics = options.metrics ?? noopGatewayMetrics;
    this.#clock = options.clock ?? systemClock;
  }

  /**
   * The APNs client for deliveries of `appId` to `environment`, or null when
   * the app has no credentials for it (`chooseApnsCredential`, which explain
   * asks too): a `profile` (an installation's `deviceProfile`) picks that
   * named certificate; without one, or for a profile the app does not define,
   * token auth serves, else the environment's certificate. An unknown
   * profile without token auth answers null rather than a certificate for
   * another bundle.
   */
  apns(appId: string, environment: ApnsEnvironment, profile?: string): ApnsClient | null {
    const credentials = this.#app(appId)?.apns;
    if (credentials === undefined) return null;
    const choice = chooseApnsCredential(credentials, environment, profile);
    if (choice === null) return null;
    const clients = this.#clientsOf(appId);
    switch (choice.kind) {
      case 'profile': {
        let byEnvironment = clients.apnsProfiles.get(choice.profile);
        if (byEnvironment === undefined) clients.apnsProfiles.set(choice.profile, (byEnvironment = {}));
        return (byEnvironment[environment] ??= this.#certificateClient(appId, environment, credentials, choice.certificate, choice.profile));
      }
      case 'token':
        return (clients.apnsToken[environment] ??= this.#tokenClient(appId, environment, credentials));
      case 'certificate':
        return (clients.apnsCertificate[environment] ??= this.#certificateClient(appId, environment, credentials, choice.certificate, undefined));
    }
  }

  /** The FCM client of `appId`, or null when the app has no service account. */
  fcm(appId: string): FcmClient | null {
    const credentials = this.#app(appId)?.fcm;
    if (credentials === undefined) return null;
    const clients = this.#clientsOf(appId);
    if (clients.fcm === undefined) {
      const { settings, logger } = this.#options;
      clients.fcm = this.#track(
        new FcmClient({
          account: credentials.account,
          endpoint: credentials.endpoint,
          ca: this.#options.credentials.ca,
          transport: settings.transport,
          sessions: settings.sessionsPerOrigin.fcm,
          requestTimeoutMs: settings.requestTimeoutMs,
          pingIntervalMs: settings.pingIntervalMs,
          clock: this.#clock,
          metrics: this.#metrics,
          logger: logger?.child({ app: appId }),
        }),
      );
    }
    return clients.fcm;
  }

  /**
   * The client of `appId`'s `profile` of `maker` (an installation's
   * `deviceProfile`, `_default` when it has none), or null when the app has
   * no such profile: such a device is not sent to (`NoVendorCredentials`).
   */
  maker(appId: string, maker: MakerName, profile: string): MakerClient | null {
    const profiles = this.#app(appId)?.makers.get(maker);
    if (profiles === undefined) return null;
    const clients = this.#clientsOf(appId);
    const key = `${maker}\u0000${profile}`;
    let client = clients.makers.get(key);
    if (client === undefined) {
      client = this.#makerClient(appId, maker, profile, profiles);
      clients.makers.set(key, client);
    }
    return client;
  }

  /**
   * Closes every client: new deliveries are refused, those in flight finish
   * (each within the request timeout), then the sessions close. Idempotent;
   * asking for a client afterwards throws.
   */
  close(): Promise<void> {
    this.#closing ??= Promise.all(this.#all.map((client) => client.close())).then(() => undefined);
    return this.#closing;
  }

  #app(appId: string): AppPushCredentials | undefined {
    if (this.#closing !== undefined) throw new Error('push gateways are closed');
    return this.#options.credentials.apps.get(appId);
  }

  #clientsOf(appId: string): AppClients {
    let clients = this.#clients.get(appId);
    if (clients === undefined) {
      clients = { apnsToken: {}, apnsCertificate: {}, apnsProfiles: new Map(), fcm: undefined, makers: new Map() };
      this.#clients.set(appId, clients);
    }
    return clients;
  }

  #tokenClient(appId: string, environment: ApnsEnvironment, credentials: ApnsCredentials): ApnsClient {
    const token = credentials.token;
    if (token === undefined) throw new Error('no token credentials');
    return this.#apnsClient(appId, environment, credentials, { auth: token, defaultTopic: credentials.topic });
  }

  #certificateClient(
    appId: string,
    environment: ApnsEnvironment,
    credentials: ApnsCredentials,
    certificate: ApnsCertificateCredential,
    profile: string | undefined,
  ): ApnsClient {
    // A profile's certificate belongs to its own bundle: its UID wins over the app's topic.
    const defaultTopic = profile === undefined ? (credentials.topic ?? certificate.topic) : (certificate.topic ?? credentials.topic);
    return this.#apnsClient(appId, environment, credentials, { auth: certificate.auth, defaultTopic }, profile);
  }

  #apnsClient(
    appId: string,
    environment: ApnsEnvironment,
    credentials: ApnsCredentials,
    choice: Pick<ConstructorParameters<typeof ApnsClient>[0], 'auth' | 'defaultTopic'>,
    profile?: string,
  ): ApnsClient {
    const { settings, logger } = this.#options;
    return this.#track(
      new ApnsClient({
        ...choice,
        environment,
        endpoint: credentials.endpoints[environment],
        ca: this.#options.credentials.ca,
        transport: settings.transport,
        sessions: settings.sessionsPerOrigin.apns,
        requestTimeoutMs: settings.requestTimeoutMs,
        pingIntervalMs: settings.pingIntervalMs,
        tokenRefreshMs: settings.tokenRefreshMinutes * 60_000,
        clock: this.#clock,
        metrics: this.#metrics,
        logger: logger?.child(profile === undefined ? { app: appId, environment } : { app: appId, environment, profile }),
      }),
    );
  }

  #makerClient(appId: string, maker: MakerName, profile: string, profiles: MakerProfiles): MakerClient | null {
    // Only the profiles the app names make clients: a deviceProfile is the installation's to choose.
    if (!profiles.names.includes(profile)) return null;
    const { settings, logger } = this.#options;
    const http = new MakerHttp({
      gateway: maker,
      ca: this.#options.credentials.ca,
      connections: settings.makerConnections ?? 8,
      requestTimeoutMs: settings.requestTimeoutMs,
      metrics: this.#metrics,
    });
    const protocol = profiles.protocol(profile, { http, clock: this.#clock });
    if (protocol === undefined) {
      void http.close();
      return null;
    }
    return this.#track(new MakerClient({ gateway: maker, profile, protocol, http, clock: this.#clock, logger: logger?.child({ app: appId, profile }) }));
  }

  #track<C extends ApnsClient | FcmClient | MakerClient>(client: C): C {
    this.#all.push(client);
    return client;
  }
}
