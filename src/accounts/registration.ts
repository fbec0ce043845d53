import { ErrorCode, fail } from '../core/errors.ts';
import type { AccountDeps, AccountResult, Caller } from './account-deps.ts';
import { linkOps } from './auth-data-link.ts';
import { requireObject } from './field-rules.ts';
import { createUser } from './new-user.ts';
import { hashPassword } from './passwords.ts';
import { readPassword, readUserInput, readUsername } from './user-input.ts';
import { UserField, userClass } from './user-fields.ts';
import { userLocation } from './user-records.ts';

/** POST /1.1/users with username and password (and optionally authData to link at once). */
export async function registerWithPassword(deps: AccountDeps, caller: Caller, body: unknown): Promise<AccountResult> {
  const fields = requireObject(body);
  const username = readUsername(fields.username);
  const password = readPassword(fields.password);
  const input = readUserInput(fields, { master: caller.master });
  if (input.unlink.length > 0) fail(ErrorCode.invalidFieldName, 'authData.<platform> cannot be used when registering');
  const ops = [...input.ops, ...(input.link === undefined ? [] : await linkOps(deps, caller.app.config, input.link))];
  const appId = caller.app.config.id;
  // Cheap early answer for the common case; the unique index still decides races.
  if (await deps.store.findByUnique(appId, userClass, { field: UserField.username, value: username })) {
    fail(ErrorCode.usernameTaken, 'Username has already been taken.');
  }
  const hashedPassword = await hashPassword(password);
  const user = await createUser(deps, caller.app, { ops, hashedPassword });
  return {
    status: 201,
    location: userLocation(deps, user.objectId),
    body: { objectId: user.objectId, createdAt: user.createdAt, sessionToken: user[UserField.sessionToken] },
  };
}
