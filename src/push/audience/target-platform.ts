import type { StoredObject } from '../../core/ports/object-store.ts';
import { matches } from '../../query/match.ts';
import type { Condition } from '../../query/query.ts';
import type { Platform } from '../requests/push-request.ts';

export interface AudienceRules {
  where: Condition | null;
  /** Channels of earlier parts of the plan (see `planAudience`). */
  skipChannels: readonly string[];
  /** Installations saved before this time (ms) are idle: not targeted, not counted (SPEC.md, Limits). */
  activeSince: number;
}

/**
 * The platform an installation is pushed through when it is a valid target
 * of the push, or null: it must match `where`, have been saved within the
 * activity window, not belong to an earlier part of the plan, and be an iOS
 * or Android device.
 */
export function targetPlatform(installation: StoredObject, rules: AudienceRules): Platform | null {
  const type = installation.deviceType;
  if (type !== 'ios' && type !== 'android') return null;
  if (!(Date.parse(installation.updatedAt) >= rules.activeSince)) return null;
  if (coveredEarlier(installation, rules.skipChannels)) return null;
  return matches(rules.where, installation) ? type : null;
}

/** Whether an installation read through a part belongs to an earlier part of the same plan. */
export function coveredEarlier(installation: Readonly<Record<string, unknown>>, skipChannels: readonly string[]): boolean {
  if (skipChannels.length === 0) return false;
  const channels = installation.channels;
  return Array.isArray(channels) && channels.some((channel) => typeof channel === 'string' && skipChannels.includes(channel));
}
