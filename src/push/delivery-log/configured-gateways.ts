import type { AppPushConfig } from '../../config/push-gateways-schema.ts';
import type { GatewayDirectory } from '../audience/device-route.ts';
import type { ApnsEnvironment } from '../gateways/apns-client-options.ts';
import { chooseApnsCredential } from '../gateways/apns-credential-choice.ts';
import type { MakerName } from '../gateways/delivery.ts';

/** The APNs credential the config gives a device, as explain describes it. */
export interface ConfiguredApns {
  readonly defaultTopic: string | undefined;
  /** `token auth`, `the production certificate`, `the production certificate of profile kids`. */
  readonly credential: string;
}

/** What explain calls a certificate's own topic, which only the senders read (from the certificate's subject). */
export const certificateTopic = "the certificate's bundle id";

/**
 * The gateways an app's config gives it, as routing asks for them: the same
 * choices the senders' `PushGateways` make from the credentials they load
 * (`chooseApnsCredential`, FCM when a service account is configured, a maker
 * profile by name), without opening a credential file. A certificate's own
 * topic is in its file: where the config names no topic, explain says the
 * certificate's is used.
 */
export function configuredGateways(push: AppPushConfig | undefined): GatewayDirectory<ConfiguredApns, object, object> {
  const apns = push?.apns;
  const set =
    apns === undefined
      ? undefined
      : {
          token: apns.token,
          certificates: { production: apns.certificates?.production, development: apns.certificates?.development },
          profiles: new Map(Object.entries(apns.certificates?.profiles ?? {})),
        };
  return {
    apns: (_appId: string, environment: ApnsEnvironment, profile?: string) => {
      if (set === undefined) return null;
      const choice = chooseApnsCredential(set, environment, profile);
      if (choice === null) return null;
      if (choice.kind === 'token') return { defaultTopic: apns?.topic, credential: 'token auth' };
      const credential = choice.kind === 'profile' ? `the ${environment} certificate of profile ${choice.profile}` : `the ${environment} certificate`;
      return { defaultTopic: apns?.topic ?? certificateTopic, credential };
    },
    fcm: () => (push?.fcm === undefined ? null : {}),
    maker: (_appId: string, maker: MakerName, profile: string) => {
      const block = (push as Partial<Record<MakerName, { profiles?: Record<string, unknown> }>> | undefined)?.[maker];
      return block?.profiles !== undefined && Object.hasOwn(block.profiles, profile) ? {} : null;
    },
  };
}
