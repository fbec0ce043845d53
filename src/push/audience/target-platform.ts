import type { StoredObject } from '../../core/ports/object-store.ts';
import { holdsIndex, type IndexRead } from '../../devices/installation-scan.ts';
import { withoutStrayUser } from '../../devices/user-pointers.ts';
import { matches } from '../../query/match.ts';
import type { Condition } from '../../query/query.ts';
import type { Platform } from '../requests/push-request.ts';

export interface AudienceRules {
  where: Condition | null;
  /** Indexes of earlier parts of the plan: an installation in one of them was targeted there. */
  skip: readonly IndexRead[];
  /** Installations saved before this time (ms) are idle: not targeted, not counted (SPEC.md, Limits). */
  activeSince: number;
}

/**
 * The platform an installation is pushed through when it is a valid target
 * of the push, or null: it must match `where`, have been saved within the
 * activity window, not belong to an earlier part of the plan, and be an iOS
 * or Android device. A stored `user` that is not a single Pointer to `_User`
 * (written before that rule) is not matched: it names no owner.
 */
export function targetPlatform(installation: StoredObject, rules: AudienceRules): Platform | null {
  const type = pushPlatform(installation);
  if (type === null) return null;
  if (!savedSince(installation, rules.activeSince)) return null;
  if (rules.skip.some((index) => holdsIndex(installation, index))) return null;
  return matchesWhere(installation, rules.where) ? type : null;
}

/** The platform an installation is pushed through by its `deviceType`: `ios` or `android`, null for any other. */
export function pushPlatform(installation: StoredObject): Platform | null {
  const type = installation.deviceType;
  return type === 'ios' || type === 'android' ? type : null;
}

/** Whether the installation matches a push's `where` (channels merged in); a `user` that is not one Pointer to `_User` is not matched. */
export function matchesWhere(installation: StoredObject, where: Condition | null): boolean {
  return matches(where, withoutStrayUser(installation));
}

/** Whether the installation was saved at or after `activeSince` (ms): not idle. */
export function savedSince(installation: StoredObject, activeSince: number): boolean {
  return Date.parse(installation.updatedAt) >= activeSince;
}
