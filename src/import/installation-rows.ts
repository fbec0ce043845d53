import { ErrorCode, fail } from '../core/errors.ts';
import type { StoredObject } from '../core/ports/object-store.ts';
import { withStoredTokenCase } from '../devices/device-token-case.ts';
import { checkInstallation } from '../devices/installation-checks.ts';
import { readInstallationInput } from '../devices/installation-input.ts';
import { applyOps } from '../query/apply-ops.ts';
import { readExportedAcl, readRowIdentity, rejectOperations } from './hosted-values.ts';

/**
 * An exported `_Installation` row as Herald stores it. Every field passes
 * the checks of a save through the API (device type, the device's identity
 * for its type, device token and installationId forms, channel names,
 * badge, field names, pointers), so the installation is one a save could
 * have made and pushes reach it; objectId, timestamps, ACL, channels,
 * device tokens (iOS ones in lower case) and custom fields are kept.
 * `user` must be a single Pointer to `_User`, and no field may hold a user
 * pointer inside an array, an object or an operation, as for an ordinary
 * key: the exporting service may have taken such rows from anyone holding
 * its app key. Throws a HeraldError naming the first problem.
 */
export function readInstallationRow(row: Record<string, unknown>): StoredObject {
  rejectOperations(row);
  const identity = readRowIdentity(row);
  const fields: Record<string, unknown> = { ...row };
  if (fields.ACL === null) delete fields.ACL;
  else if (fields.ACL !== undefined) fields.ACL = readExportedAcl(fields.ACL);
  const input = readInstallationInput(fields, { nestedUserPointers: false });
  if (input.deviceType === undefined) fail(ErrorCode.missingRequiredKey, 'deviceType is required: "ios" or "android"');
  const installation: StoredObject = { ...applyOps({ objectId: '', createdAt: '', updatedAt: '' }, input.ops), ...identity };
  checkInstallation(installation, input.touched);
  return withStoredTokenCase(installation);
}
