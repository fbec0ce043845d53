import type { InstallationStore } from '../../core/ports/installation-store.ts';
import type { StoredObject } from '../../core/ports/object-store.ts';
import { findDevice } from '../../devices/device-token-case.ts';

/**
 * The installation a person means by what they typed: its objectId, an iOS
 * device token or an Android installationId (looked up by their unique
 * keys, never by a scan).
 */
export async function findInstallation(installations: InstallationStore, appId: string, typed: string): Promise<StoredObject | null> {
  const value = typed.trim();
  if (value === '' || value.length > 4096) return null;
  if (/^[A-Za-z0-9]{1,64}$/.test(value)) {
    const byId = await installations.get(appId, value);
    if (byId !== null) return byId;
  }
  return (await findDevice(installations, appId, { field: 'deviceToken', value })) ?? (await findDevice(installations, appId, { field: 'installationId', value }));
}
