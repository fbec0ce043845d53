import type { Caller } from '../accounts/account-deps.ts';
import { PreconditionFailedError } from '../core/errors.ts';
import type { DeviceDeps, DeviceResult } from './device-deps.ts';
import { CallerIdentity, requireClassPermission } from './installation-access.ts';
import { installationNotFound, loadInstallation } from './installation-records.ts';

/** Rounds of "check the ACL, delete if unchanged" before an ordinary-key delete gives up (409). */
const maxDeleteAttempts = 5;

/**
 * DELETE /1.1/installations/<id>: the master key, or the app's delete
 * permission on `_Installation` and then an ACL that lets the caller write
 * (judged on the very revision deleted). Answers `{}`; 101 when there is no
 * such installation.
 */
export async function deleteInstallation(deps: DeviceDeps, caller: Caller, objectId: string): Promise<DeviceResult> {
  requireClassPermission(caller, 'delete');
  const appId = caller.app.config.id;
  if (caller.master) {
    if (!(await deps.store.installations.delete(appId, objectId))) installationNotFound();
    return { status: 200, body: {} };
  }
  const identity = new CallerIdentity(deps.store, caller);
  for (let attempt = 1; attempt <= maxDeleteAttempts; attempt += 1) {
    const installation = await loadInstallation(deps, appId, objectId);
    await identity.requireWrite(installation);
    if (await deps.store.installations.deleteIfUnchanged(appId, objectId, installation.updatedAt)) return { status: 200, body: {} };
  }
  throw new PreconditionFailedError('updatedAt');
}
