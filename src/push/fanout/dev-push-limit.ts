import type { InstallationStore } from '../../core/ports/installation-store.ts';
import type { AudiencePart } from '../audience/audience-plan.ts';
import { targetPlatform, type AudienceRules } from '../audience/target-platform.ts';

/** SPEC.md: a development-certificate push matching more than 20,000 devices is rejected whole. */
export const devPushDeviceLimit = 20_000;

export const devPushLimitMessage = 'dev profile disabled for massive push';

/**
 * Whether a development push reaches more than the limit of iOS devices,
 * counted before anything is sent. It reads the plan's rows (or only the iOS
 * rows when the plan reads everything) and stops at the first device over the
 * limit, so its cost is at most the audience or the limit.
 */
export async function exceedsDevPushLimit(
  installations: InstallationStore,
  appId: string,
  plan: AudiencePart[],
  rules: Omit<AudienceRules, 'skipChannels'>,
  pageSize: number,
): Promise<boolean> {
  let count = 0;
  for (const part of plan) {
    const index = part.index.kind === 'all' ? { kind: 'deviceType' as const, deviceType: 'ios' } : part.index;
    for (let shard = 0; shard < installations.shardCount; shard += 1) {
      let after: string | null = null;
      do {
        const page = await installations.scanShard(appId, { shard, index, after, limit: pageSize });
        for (const installation of page.installations) {
          if (targetPlatform(installation, { ...rules, skipChannels: part.skipChannels }) === 'ios') count += 1;
          if (count > devPushDeviceLimit) return true;
        }
        after = page.next;
      } while (after !== null);
    }
  }
  return false;
}
