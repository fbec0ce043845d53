import type { ApnsCertificateConfig, AppPushConfig, PushGatewaysConfig } from '../../config/push-gateways-schema.ts';
import { apnsEndpoints, type ApnsEnvironment } from './apns-client-options.ts';
import { CredentialFiles, type CredentialFilesOptions } from './credential-files.ts';
import { fcmEndpoint } from './fcm-client-options.ts';
import type { MakerName } from './delivery.ts';
import type { MakerProfiles } from './makers/maker.ts';
import { makers } from './makers/maker-registry.ts';
import type {
  ApnsCertificatesByEnvironment,
  ApnsCredentials,
  AppPushCredentials,
  FcmCredentials,
  PushCredentials,
} from './push-credentials.ts';

/** An app as the loader needs it: its id and its `push` section. */
export interface PushApp {
  id: string;
  push?: AppPushConfig | undefined;
}

export type LoadPushCredentialsOptions = CredentialFilesOptions;

const environments: readonly ApnsEnvironment[] = ['production', 'development'];

/**
 * Reads and checks every credential file the config names, once, at
 * start-up: `.p8` keys, certificates (`.p12`/`.pfx` with passphrase, or PEM),
 * service-account JSON, the phone makers' secrets, the CA file. A bad file throws `ConfigError` naming
 * the config key and the file path, never the file's content, so secrets
 * cannot reach a log through an error.
 */
export function loadPushCredentials(
  apps: readonly PushApp[],
  gateways: Pick<PushGatewaysConfig, 'caFile'>,
  options: LoadPushCredentialsOptions = {},
): PushCredentials {
  const files = new CredentialFiles(options);
  const ca = gateways.caFile === undefined ? undefined : files.ca('push.gateways.caFile', gateways.caFile);
  const loaded = new Map<string, AppPushCredentials>();
  apps.forEach((app, index) => {
    const at = `apps[${index}].push`;
    loaded.set(app.id, {
      apns: app.push?.apns === undefined ? undefined : loadApns(files, `${at}.apns`, app.push.apns),
      fcm: app.push?.fcm === undefined ? undefined : loadFcm(files, `${at}.fcm`, app.push.fcm),
      makers: loadMakers(files, at, app.push),
    });
  });
  return { ca, apps: loaded };
}

function loadApns(files: CredentialFiles, at: string, config: NonNullable<AppPushConfig['apns']>): ApnsCredentials {
  const token =
    config.token === undefined
      ? undefined
      : { kind: 'token' as const, key: files.es256Key(`${at}.token.keyFile`, config.token.keyFile), keyId: config.token.keyId, teamId: config.token.teamId };
  const certificates = loadEnvironments(files, `${at}.certificates`, config.certificates ?? {});
  const profiles = new Map<string, ApnsCertificatesByEnvironment>();
  for (const [name, pair] of Object.entries(config.certificates?.profiles ?? {})) {
    profiles.set(name, loadEnvironments(files, `${at}.certificates.profiles.${name}`, pair));
  }
  return {
    topic: config.topic,
    token,
    certificates,
    profiles,
    endpoints: {
      production: config.endpoints?.production ?? apnsEndpoints.production,
      development: config.endpoints?.development ?? apnsEndpoints.development,
    },
  };
}

function loadEnvironments(files: CredentialFiles, at: string, pair: Partial<Record<ApnsEnvironment, ApnsCertificateConfig>>): ApnsCertificatesByEnvironment {
  const loaded: ApnsCertificatesByEnvironment = {};
  for (const environment of environments) {
    const config = pair[environment];
    if (config !== undefined) loaded[environment] = files.certificate(`${at}.${environment}`, config);
  }
  return loaded;
}

function loadFcm(files: CredentialFiles, at: string, config: NonNullable<AppPushConfig['fcm']>): FcmCredentials {
  return { account: files.serviceAccount(`${at}.serviceAccountFile`, config.serviceAccountFile), endpoint: config.endpoint ?? fcmEndpoint };
}

/** The app's profiles of each registered maker it has a block for. */
function loadMakers(files: CredentialFiles, at: string, push: AppPushConfig | undefined): ReadonlyMap<MakerName, MakerProfiles> {
  const loaded = new Map<MakerName, MakerProfiles>();
  const blocks = (push ?? {}) as Readonly<Partial<Record<MakerName, unknown>>>;
  for (const maker of makers) {
    const block = blocks[maker.gateway];
    if (block !== undefined) loaded.set(maker.gateway, maker.load(block, files, `${at}.${maker.gateway}`));
  }
  return loaded;
}
