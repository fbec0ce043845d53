import type { Caller } from '../accounts/account-deps.ts';
import { aclAllows } from '../accounts/field-rules.ts';
import { sessionUser } from '../accounts/sessions.ts';
import { ErrorCode, HeraldError } from '../core/errors.ts';
import type { Store, StoredObject } from '../core/ports/object-store.ts';
import { isJsonObject } from '../query/json-value.ts';
import { InstallationField } from './installation-fields.ts';
import type { InstallationInput } from './installation-input.ts';

/**
 * Who an ordinary-key caller is, for ACLs and user pointers: the user of its
 * `X-SVC-Session`, looked up once and only when a rule needs it, so that an
 * SDK holding a stale token can still re-save its device.
 */
export class CallerIdentity {
  readonly caller: Caller;
  readonly #store: Store;
  #user: Promise<StoredObject | null> | undefined;

  constructor(store: Store, caller: Caller) {
    this.#store = store;
    this.caller = caller;
  }

  /** The session user's objectId, null without a session; 403 for an unknown or replaced token. */
  async userId(): Promise<string | null> {
    this.#user ??= sessionUser(this.#store, this.caller);
    return (await this.#user)?.objectId ?? null;
  }

  /** Whether the installation's ACL lets this caller read or write it; the master key may do anything. */
  async may(installation: Readonly<StoredObject>, permission: 'read' | 'write'): Promise<boolean> {
    const acl = installation[InstallationField.acl];
    if (this.caller.master || aclAllows(acl, null, permission)) return true;
    return aclAllows(acl, await this.userId(), permission);
  }

  async requireWrite(installation: Readonly<StoredObject>): Promise<void> {
    if (!(await this.may(installation, 'write'))) throw forbidden('The ACL of this installation does not allow the write.');
  }

  /**
   * An ordinary key may point an installation only at its own user: otherwise
   * anyone holding the app key could receive the pushes meant for someone
   * else's devices. A pointer the installation already holds may be sent again.
   */
  async requirePointersAllowed(input: InstallationInput, current: Readonly<StoredObject> | null): Promise<void> {
    if (this.caller.master) return;
    for (const pointer of input.userPointers) {
      const held = current?.[pointer.field];
      if (isJsonObject(held) && held.__type === 'Pointer' && held.className === '_User' && held.objectId === pointer.objectId) continue;
      if ((await this.userId()) !== pointer.objectId) {
        throw forbidden(`${pointer.field} may point only at the user of the session (X-SVC-Session), unless the master key is used.`);
      }
    }
  }
}

/** The app's switch for ordinary keys on `_Installation` queries and deletes (closed by default). */
export function requireClassPermission(caller: Caller, operation: 'find' | 'delete'): void {
  if (caller.master || caller.app.config.settings.classPermissions._Installation[operation]) return;
  const what = operation === 'find' ? 'Querying' : 'Deleting';
  throw forbidden(`${what} installations needs the master key or the ${operation} permission on _Installation.`);
}

function forbidden(message: string): HeraldError {
  return new HeraldError(ErrorCode.forbidden, message, { status: 403 });
}
