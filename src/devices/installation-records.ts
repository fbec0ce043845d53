import { isoTime, type Clock } from '../core/clock.ts';
import { DuplicateValueError, ErrorCode, HeraldError, fail } from '../core/errors.ts';
import type { StoredObject } from '../core/ports/object-store.ts';
import type { DeviceDeps } from './device-deps.ts';

/** 101, as for any unknown object; also for ids that cannot be object ids. */
export function installationNotFound(): never {
  return fail(ErrorCode.objectNotFound, 'Could not find the installation.');
}

/** Loads an installation or answers 101. */
export async function loadInstallation(deps: DeviceDeps, appId: string, objectId: string): Promise<StoredObject> {
  const installation = await deps.store.installations.get(appId, objectId);
  if (!installation) installationNotFound();
  return installation;
}

/**
 * The `updatedAt` of a save: now, and always later than the one it replaces.
 * Invalid-token cleanup and the idle sweep delete only while `updatedAt` is
 * the one they read, so a save in the same millisecond must still move it.
 */
export function nextUpdatedAt(clock: Clock, previous: string | null): string {
  const now = clock.now();
  const before = previous === null ? Number.NaN : Date.parse(previous);
  return isoTime(Number.isNaN(before) || now > before ? now : before + 1);
}

/** 137: a device key the write would take is held by another installation; nothing was written. */
export function deviceKeyTaken(error: DuplicateValueError): HeraldError {
  return new HeraldError(ErrorCode.duplicateValue, `${error.field} is already held by another installation of this app.`);
}

/** Runs a store write, answering a taken device key with 137. */
export async function withDeviceKeyErrors<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof DuplicateValueError) throw deviceKeyTaken(error);
    throw error;
  }
}
