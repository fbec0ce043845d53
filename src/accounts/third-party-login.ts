import { randomInt } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { ErrorCode, HeraldError, fail } from '../core/errors.ts';
import type { StoredObject } from '../core/ports/object-store.ts';
import type { AccountDeps, AccountResult, Caller } from './account-deps.ts';
import { authDataUniqueKeys } from './auth-data/auth-data-unique-keys.ts';
import { unionIdFieldName, unionIdUniqueKey } from './auth-data/union-id.ts';
import { validateAuthData, type NormalizedAuthData } from './auth-data/validate-auth-data.ts';
import { platformOps } from './auth-data-link.ts';
import { requireObject } from './field-rules.ts';
import { assertMayLogIn } from './login-rules.ts';
import { createUser } from './new-user.ts';
import { UserField, userClass } from './user-fields.ts';
import { readUserInput } from './user-input.ts';
import { updateUser, userLocation } from './user-records.ts';
import { protectedUserFields, viewUser } from './user-view.ts';

/**
 * POST /1.1/users with `authData` (SPEC.md, Third-party login): the user holding
 * one of the platform accounts logs in (200); else, for union-id logins, the
 * main account of the union gets this platform linked (200); else a user with a
 * random username is created (201), unless `failOnNotExist` asks for 211.
 */
export async function loginWithAuthData(deps: AccountDeps, caller: Caller, body: unknown, options: { failOnNotExist: boolean }): Promise<AccountResult> {
  const { authData, ...rest } = requireObject(body);
  const platforms = validateAuthData(authData);
  const extra = readUserInput(rest, { master: caller.master });
  if (extra.password !== undefined || extra.link !== undefined || extra.unlink.length > 0) {
    fail(ErrorCode.invalidFieldName, 'Only custom fields may accompany authData here.');
  }
  const appId = caller.app.config.id;
  await deps.platformTokens.verify(caller.app.config, platforms);

  const existing = (await findByIdentity(deps, appId, platforms)) ?? (await findByUnion(deps, appId, platforms));
  if (existing) return logIn(deps, caller, existing, platforms);
  if (options.failOnNotExist) fail(ErrorCode.userNotFound, 'Could not find a user linked to this authData.');

  let user: StoredObject;
  try {
    user = await createUser(deps, caller.app, { ops: [{ op: 'set', path: [UserField.username], value: randomUsername() }, ...extra.ops, ...platformOps(platforms)] });
  } catch (error) {
    // Another request is creating the same third-party user: log it in.
    if (error instanceof HeraldError && error.code === ErrorCode.authDataTaken) {
      const winner = await awaitWinner(deps, appId, platforms);
      if (winner) return logIn(deps, caller, winner, platforms);
    }
    throw error;
  }
  const answer: Record<string, unknown> = {
    objectId: user.objectId,
    createdAt: user.createdAt,
    sessionToken: user[UserField.sessionToken],
    username: user[UserField.username],
  };
  const unions = platforms.filter((platform) => platform.union !== null);
  if (unions.length > 0) {
    Object.assign(answer, { emailVerified: user[UserField.emailVerified], mobilePhoneVerified: user[UserField.mobilePhoneVerified] });
    for (const platform of unions) {
      const field = unionIdFieldName(platform.union?.platform ?? '');
      if (user[field] !== undefined) answer[field] = user[field];
    }
  }
  return { status: 201, location: userLocation(deps, user.objectId), body: answer };
}

/**
 * Waits between looks for the user of the request that took the platform
 * account first. A store may refuse the account before that user can be
 * read: Cassandra claims unique values before it writes the object.
 */
const winnerLookDelaysMs = [0, 25, 50, 100, 200, 400];

async function awaitWinner(deps: AccountDeps, appId: string, platforms: NormalizedAuthData): Promise<StoredObject | null> {
  for (const ms of winnerLookDelaysMs) {
    if (ms > 0) await delay(ms);
    const winner = await findByIdentity(deps, appId, platforms);
    if (winner) return winner;
  }
  return null;
}

async function findByIdentity(deps: AccountDeps, appId: string, platforms: NormalizedAuthData): Promise<StoredObject | null> {
  const found = new Map<string, StoredObject>();
  for (const key of authDataUniqueKeys(platforms)) {
    const user = await deps.store.findByUnique(appId, userClass, key);
    if (user) found.set(user.objectId, user);
  }
  if (found.size > 1) fail(ErrorCode.authDataTaken, 'These platform accounts are linked to different users.');
  return found.values().next().value ?? null;
}

/** Login by union id: the platform account is new, but the same person's union is known. */
async function findByUnion(deps: AccountDeps, appId: string, platforms: NormalizedAuthData): Promise<StoredObject | null> {
  for (const platform of platforms) {
    if (!platform.union) continue;
    const user = await deps.store.findByUnique(appId, userClass, unionIdUniqueKey(platform.union));
    if (user) return user;
  }
  return null;
}

/** Refreshes the stored platform objects (new access tokens) and answers the user like a login. */
async function logIn(deps: AccountDeps, caller: Caller, user: StoredObject, platforms: NormalizedAuthData): Promise<AccountResult> {
  const appId = caller.app.config.id;
  assertMayLogIn(caller.app.config, user);
  let current: StoredObject;
  try {
    current = await updateUser(deps, appId, user.objectId, platformOps(platforms));
  } catch (error) {
    // A union marker held by another user stays where it is; link the platform alone.
    if (!(error instanceof HeraldError && error.code === ErrorCode.duplicateValue)) throw error;
    const linkOnly = platformOps(platforms).filter((op) => op.path[0] === UserField.authData);
    current = await updateUser(deps, appId, user.objectId, linkOnly);
  }
  return { status: 200, location: userLocation(deps, user.objectId), body: viewUser(current, { self: true, master: caller.master, protectedFields: protectedUserFields(caller.app.config) }) };
}

/** Usernames of third-party users: 25 lowercase letters and digits, like the hosted service's. */
function randomUsername(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from({ length: 25 }, () => alphabet[randomInt(alphabet.length)]).join('');
}
