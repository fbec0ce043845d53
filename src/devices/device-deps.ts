import type { AccountResult } from '../accounts/account-deps.ts';
import type { Clock } from '../core/clock.ts';
import type { Store } from '../core/ports/object-store.ts';

/** What the installation rules need from the rest of the service; `AccountDeps` carries all of it. */
export interface DeviceDeps {
  store: Store;
  clock: Clock;
  /** Base URL of `Location` headers, without a trailing slash; read at each request. */
  publicUrl: string;
}

/** The answer of an installation operation, mapped onto HTTP by the routes: `{status, body, location}`. */
export type DeviceResult = AccountResult;

/** `Location` of an installation resource. */
export function installationLocation(deps: Pick<DeviceDeps, 'publicUrl'>, objectId: string): string {
  return `${deps.publicUrl}/1.1/installations/${objectId}`;
}
