import type { AppPushConfig } from '../../config/push-gateways-schema.ts';
import type { ApnsEnvironment } from './apns-client-options.ts';
import { makerNames, type GatewayName, type MakerName } from './delivery.ts';

/**
 * The gateways an app's push config gives it, read from the config alone
 * (no credential file is opened): what the fan-out needs to tell a push that
 * can reach no device from one that can, and what a sender says of each app
 * at start. The credential files themselves are read, and checked, by the
 * senders (`loadPushCredentials`).
 */
export interface AppGateways {
  /** APNs environments some credential of the app serves: token auth serves both, a certificate (or a profile's) its own. */
  readonly apns: ReadonlySet<ApnsEnvironment>;
  readonly fcm: boolean;
  /** The phone makers the app has a block with profiles for. */
  readonly makers: ReadonlySet<MakerName>;
}

/** What `push` (an app's `push` section) configures. */
export function appGatewaysOf(push: AppPushConfig | undefined): AppGateways {
  const apns = new Set<ApnsEnvironment>();
  const config = push?.apns;
  if (config !== undefined) {
    const certificates = config.certificates;
    for (const environment of ['production', 'development'] as const) {
      const byProfile = Object.values(certificates?.profiles ?? {}).some((pair) => pair[environment] !== undefined);
      if (config.token !== undefined || certificates?.[environment] !== undefined || byProfile) apns.add(environment);
    }
  }
  const blocks = (push ?? {}) as Readonly<Partial<Record<MakerName, MakerBlock>>>;
  const makers = new Set<MakerName>(makerNames.filter((maker) => hasProfiles(blocks[maker])));
  return { apns, fcm: push?.fcm !== undefined, makers };
}

/** A maker's block as far as this needs it: each maker's schema has its own fields. */
interface MakerBlock {
  profiles?: Record<string, unknown>;
}

function hasProfiles(block: MakerBlock | undefined): boolean {
  return block !== undefined && (block.profiles === undefined || Object.keys(block.profiles).length > 0);
}

/** The gateways of `gateways`, by name, for a log line: `apns`, `fcm`, then the makers. */
export function gatewayList(gateways: AppGateways): GatewayName[] {
  return [...(gateways.apns.size > 0 ? (['apns'] as const) : []), ...(gateways.fcm ? (['fcm'] as const) : []), ...gateways.makers];
}
