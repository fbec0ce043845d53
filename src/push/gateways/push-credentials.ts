import type { ApnsCertificateAuth, ApnsEnvironment, ApnsTokenAuth } from './apns-client-options.ts';
import type { MakerName } from './delivery.ts';
import type { FcmServiceAccount } from './fcm-service-account.ts';
import type { MakerProfiles } from './makers/maker.ts';

/** An APNs client certificate read from its files. */
export interface ApnsCertificateCredential {
  auth: ApnsCertificateAuth;
  /** The bundle id in the certificate's subject (UID), the default topic of deliveries sent with it. */
  topic: string | undefined;
  /** When the certificate expires (ms). */
  expiresAt: number;
}

export type ApnsCertificatesByEnvironment = Partial<Record<ApnsEnvironment, ApnsCertificateCredential>>;

export interface ApnsCredentials {
  /** The configured default topic. */
  topic: string | undefined;
  token: ApnsTokenAuth | undefined;
  certificates: ApnsCertificatesByEnvironment;
  /** Named certificates, chosen by an installation's `deviceProfile`. */
  profiles: ReadonlyMap<string, ApnsCertificatesByEnvironment>;
  endpoints: Readonly<Record<ApnsEnvironment, string>>;
}

export interface FcmCredentials {
  account: FcmServiceAccount;
  endpoint: string;
}

export interface AppPushCredentials {
  apns: ApnsCredentials | undefined;
  fcm: FcmCredentials | undefined;
  /** The phone makers the app has a block for, each with its profiles. */
  makers: ReadonlyMap<MakerName, MakerProfiles>;
}

/** Every app's push credentials, read and checked at start-up by `loadPushCredentials`. */
export interface PushCredentials {
  /** The `caFile` setting's PEM, trusted instead of the system roots. */
  ca: Buffer | undefined;
  apps: ReadonlyMap<string, AppPushCredentials>;
}
