import type { InstallationStore } from '../../core/ports/installation-store.ts';
import { scanInstallations, type ScanPlan } from '../../devices/installation-scan.ts';
import { targetPlatform, type AudienceRules } from '../audience/target-platform.ts';

/** SPEC.md: a development-certificate push matching more than 20,000 devices is rejected whole. */
export const devPushDeviceLimit = 20_000;

export const devPushLimitMessage = 'dev profile disabled for massive push';

/**
 * Whether a development push reaches more than the limit of iOS devices,
 * counted before anything is sent. It reads what the plan reads (only the
 * iOS rows when the plan reads everything) and stops at the first device over
 * the limit, so its cost is at most the audience or the limit.
 */
export async function exceedsDevPushLimit(
  installations: InstallationStore,
  appId: string,
  plan: ScanPlan,
  rules: Omit<AudienceRules, 'skip'>,
  pageSize: number,
): Promise<boolean> {
  const read: ScanPlan = plan.kind === 'all' ? { kind: 'indexes', indexes: [{ kind: 'deviceType', deviceType: 'ios' }] } : plan;
  let count = 0;
  for await (const installation of scanInstallations(installations, appId, read, pageSize)) {
    if (targetPlatform(installation, { ...rules, skip: [] }) === 'ios') count += 1;
    if (count > devPushDeviceLimit) return true;
  }
  return false;
}
