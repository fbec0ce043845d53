import { setTimeout as delay } from 'node:timers/promises';
import type { Caller } from '../accounts/account-deps.ts';
import { requireObject } from '../accounts/field-rules.ts';
import { isoTime } from '../core/clock.ts';
import { DuplicateValueError, ErrorCode, HeraldError, PreconditionFailedError, fail } from '../core/errors.ts';
import { newObjectId } from '../core/ids.ts';
import type { DeviceKey } from '../core/ports/installation-store.ts';
import type { FieldOp, StoredObject } from '../core/ports/object-store.ts';
import { applyOps } from '../query/apply-ops.ts';
import { installationLocation, type DeviceDeps, type DeviceResult } from './device-deps.ts';
import { findDevice, withIosTokenCase } from './device-token-case.ts';
import { CallerIdentity } from './installation-access.ts';
import { checkInstallation } from './installation-checks.ts';
import { InstallationField, identityField } from './installation-fields.ts';
import { readInstallationInput, type InstallationInput } from './installation-input.ts';
import { deviceKeyTaken, nextUpdatedAt } from './installation-records.ts';

/** Rounds of "insert, or find and update" before a save gives up with 503. */
const maxSaveAttempts = 20;

/**
 * POST /1.1/installations. A device the app already has (by `deviceToken`
 * for iOS, `installationId` for Android) is updated, answering 200
 * `{objectId, updatedAt}`, since the SDKs save again on every launch;
 * otherwise a new installation answers 201 `{objectId, createdAt}` with its
 * `Location`. Concurrent first saves of one device end as one installation:
 * the store's unique device key lets one insert win, and the others read it
 * back and update it. A save that would take a device key another
 * installation holds answers 137 and changes nothing.
 */
export async function saveInstallation(deps: DeviceDeps, caller: Caller, body: unknown): Promise<DeviceResult> {
  const read = readInstallationInput(requireObject(body), { nestedUserPointers: caller.master });
  const input = read.deviceType === 'ios' ? withIosTokenCase(read) : read;
  // A body that names its platform is judged on its own before anything is read.
  if (input.deviceType !== undefined) checkInstallation(applyOps(blank(), input.ops), input.touched);
  const key = deviceKeyOf(input);
  if (key === null) fail(ErrorCode.missingRequiredKey, 'deviceType is required, with deviceToken (iOS) or installationId (Android)');
  const identity = new CallerIdentity(deps.store, caller);
  const appId = caller.app.config.id;
  for (let attempt = 1; attempt <= maxSaveAttempts; attempt += 1) {
    const existing = await findDevice(deps.store.installations, appId, key);
    const result = existing === null ? await insertNew(deps, identity, input, key) : await updateExisting(deps, identity, input, key, existing);
    if (result !== null) return result;
    // Another save of this device is between its claim and its row: let it finish.
    await delay(Math.random() * Math.min(100, 2 ** attempt));
  }
  throw new HeraldError(ErrorCode.unavailable, 'This device is being saved by other requests right now; retry.', { retryable: true });
}

/** The key the device is known by: the one of its platform, or without a deviceType whichever the body sends. */
function deviceKeyOf(input: InstallationInput): DeviceKey | null {
  const field = input.deviceType === undefined ? (input.deviceToken !== undefined ? 'deviceToken' : 'installationId') : identityField[input.deviceType];
  const value = input[field];
  return value === undefined ? null : { field, value };
}

/** Answers null when the device key was taken meanwhile by another save, to be read again. */
async function insertNew(deps: DeviceDeps, identity: CallerIdentity, input: InstallationInput, key: DeviceKey): Promise<DeviceResult | null> {
  if (input.deviceType === undefined) fail(ErrorCode.missingRequiredKey, 'deviceType is required to create an installation: "ios" or "android"');
  const now = isoTime(deps.clock.now());
  const objectId = newObjectId();
  const installation: StoredObject = { ...applyOps(blank(), input.ops), objectId, createdAt: now, updatedAt: now };
  checkInstallation(installation, input.touched);
  await identity.requirePointersAllowed(input, null);
  try {
    await deps.store.installations.insert(identity.caller.app.config.id, installation);
  } catch (error) {
    if (!(error instanceof DuplicateValueError)) throw error;
    if (error.field === key.field || error.field === 'objectId') return null;
    throw deviceKeyTaken(error);
  }
  return { status: 201, location: installationLocation(deps, objectId), body: { objectId, createdAt: now } };
}

/** Answers null when the installation was deleted or lost the device key meanwhile, to be read again. */
async function updateExisting(
  deps: DeviceDeps,
  identity: CallerIdentity,
  given: InstallationInput,
  key: DeviceKey,
  existing: StoredObject,
): Promise<DeviceResult | null> {
  const storedType = existing[InstallationField.deviceType];
  if (given.deviceType !== undefined && typeof storedType === 'string' && storedType !== given.deviceType) {
    fail(ErrorCode.internal, `deviceType cannot change: this device is saved as ${storedType}`);
  }
  // Found by its token alone: an iOS device's token is kept in lower case, whatever case it was saved in before.
  const input = storedType === 'ios' ? withIosTokenCase(given) : given;
  await identity.requireWrite(existing);
  await identity.requirePointersAllowed(input, existing);
  const updatedAt = nextUpdatedAt(deps.clock, existing.updatedAt);
  checkInstallation({ ...applyOps(existing, input.ops), updatedAt }, input.touched);
  // Applied only while the installation still holds the device (as it spelled it) and the ACL that was checked.
  const ops: FieldOp[] = [
    { op: 'expect', path: [key.field], value: existing[key.field] },
    { op: 'expect', path: [InstallationField.acl], value: existing[InstallationField.acl] },
    ...input.ops,
  ];
  let updated: StoredObject | null;
  try {
    updated = await deps.store.installations.update(identity.caller.app.config.id, existing.objectId, ops, { updatedAt });
  } catch (error) {
    if (error instanceof PreconditionFailedError) return null;
    if (error instanceof DuplicateValueError) throw deviceKeyTaken(error);
    throw error;
  }
  if (updated === null) return null;
  return { status: 200, location: installationLocation(deps, updated.objectId), body: { objectId: updated.objectId, updatedAt: updated.updatedAt } };
}

function blank(): StoredObject {
  return { objectId: '', createdAt: '', updatedAt: '' };
}
