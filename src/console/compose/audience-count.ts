import type { InstallationStore } from '../../core/ports/installation-store.ts';
import { findDevice } from '../../devices/device-token-case.ts';
import { withTokenCaseInWhere } from '../../devices/device-token-case.ts';
import { planInstallationScan, scanInstallations } from '../../devices/installation-scan.ts';
import { targetPlatform } from '../../push/audience/target-platform.ts';
import type { PushRequest } from '../../push/requests/push-request.ts';

/** How many devices a push would reach, counted without sending. */
export interface AudienceCount {
  ios: number;
  android: number;
  /** True when counting stopped at the cap: the figures are a lower bound. */
  capped: boolean;
  /** For a device list: ids listed that no installation holds (iOS tokens are still sent to). */
  unknown: number;
}

/** Most installations one dry run reads. */
export const audienceCountCap = 500_000;

/**
 * The dry run of a push: the installations it would target now, by the
 * rules the fan-out and senders apply (`targetPlatform`: the `where` and
 * channels, iOS or Android, saved within the idle window), read through
 * the same scan plan. A device list counts the installations its ids name.
 */
export async function countAudience(installations: InstallationStore, appId: string, request: PushRequest, activeSince: number): Promise<AudienceCount> {
  const count: AudienceCount = { ios: 0, android: 0, capped: false, unknown: 0 };
  const { target } = request;
  if (target.kind === 'devices') {
    const field = target.deviceType === 'ios' ? 'deviceToken' : target.vendor === undefined ? 'installationId' : null;
    for (const id of target.ids) {
      // Ids of a vendor are registrationIds, which have no index: each is counted as listed.
      const found = field === null ? true : (await findDevice(installations, appId, { field, value: id })) !== null;
      if (found) count[target.deviceType] += 1;
      else count.unknown += 1;
    }
    return count;
  }
  const where = withTokenCaseInWhere(target.where);
  let read = 0;
  for await (const installation of scanInstallations(installations, appId, planInstallationScan(where), 1000)) {
    if ((read += 1) > audienceCountCap) {
      count.capped = true;
      break;
    }
    const platform = targetPlatform(installation, { where, skip: [], activeSince });
    if (platform !== null && target.platforms.has(platform)) count[platform] += 1;
  }
  return count;
}
