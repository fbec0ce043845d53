import type { Caller } from '../accounts/account-deps.ts';
import { requireObject } from '../accounts/field-rules.ts';
import { ErrorCode, fail } from '../core/errors.ts';
import type { FieldOp } from '../core/ports/object-store.ts';
import { applyOps } from '../query/apply-ops.ts';
import type { DeviceDeps, DeviceResult } from './device-deps.ts';
import { withIosTokenCase } from './device-token-case.ts';
import { CallerIdentity } from './installation-access.ts';
import { checkInstallation } from './installation-checks.ts';
import { InstallationField } from './installation-fields.ts';
import { readInstallationInput } from './installation-input.ts';
import { installationNotFound, loadInstallation, nextUpdatedAt, withDeviceKeyErrors } from './installation-records.ts';

/**
 * PUT /1.1/installations/<id>: changes the given fields (with the same rules
 * as a POST, channel operations included) and answers `{updatedAt}`. The
 * ACL must let the caller write; `deviceType` may be sent but not changed; a
 * device key held by another installation answers 137 and changes nothing.
 */
export async function updateInstallation(deps: DeviceDeps, caller: Caller, objectId: string, body: unknown): Promise<DeviceResult> {
  const read = readInstallationInput(requireObject(body), { nestedUserPointers: caller.master });
  const appId = caller.app.config.id;
  const current = await loadInstallation(deps, appId, objectId);
  const storedType = current[InstallationField.deviceType];
  const input = storedType === 'ios' ? withIosTokenCase(read) : read;
  if (input.deviceType !== undefined && typeof storedType === 'string' && storedType !== input.deviceType) {
    fail(ErrorCode.internal, `deviceType cannot change: this installation is ${storedType}`);
  }
  const identity = new CallerIdentity(deps.store, caller);
  await identity.requireWrite(current);
  await identity.requirePointersAllowed(input, current);
  const updatedAt = nextUpdatedAt(deps.clock, current.updatedAt);
  checkInstallation({ ...applyOps(current, input.ops), updatedAt }, input.touched);
  // The checks above hold only for the ACL and platform that were read.
  const ops: FieldOp[] = [
    { op: 'expect', path: [InstallationField.acl], value: current[InstallationField.acl] },
    { op: 'expect', path: [InstallationField.deviceType], value: storedType },
    ...input.ops,
  ];
  const updated = await withDeviceKeyErrors(() => deps.store.installations.update(appId, objectId, ops, { updatedAt }));
  if (updated === null) installationNotFound();
  return { status: 200, body: { updatedAt: updated.updatedAt } };
}
