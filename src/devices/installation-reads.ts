import type { Caller } from '../accounts/account-deps.ts';
import type { DeviceDeps, DeviceResult } from './device-deps.ts';
import { CallerIdentity } from './installation-access.ts';
import { installationNotFound, loadInstallation } from './installation-records.ts';
import { protectedInstallationFields, viewInstallation } from './installation-view.ts';

/**
 * GET /1.1/installations/<id>: the installation's fields. An installation
 * whose ACL does not let the caller read it answers 101 like an unknown one,
 * so that its existence is not revealed.
 */
export async function getInstallation(deps: DeviceDeps, caller: Caller, objectId: string): Promise<DeviceResult> {
  const installation = await loadInstallation(deps, caller.app.config.id, objectId);
  if (!(await new CallerIdentity(deps.store, caller).may(installation, 'read'))) installationNotFound();
  return { status: 200, body: viewInstallation(installation, { master: caller.master, protectedFields: protectedInstallationFields(caller.app.config) }) };
}
