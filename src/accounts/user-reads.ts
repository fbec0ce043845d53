import { ErrorCode, HeraldError, fail } from '../core/errors.ts';
import type { Query } from '../query/query.ts';
import type { AccountDeps, AccountResult, Caller } from './account-deps.ts';
import { aclAllows } from './field-rules.ts';
import { requireSessionUser, sessionUser } from './sessions.ts';
import { UserField, unqueryableUserFields, userClass } from './user-fields.ts';
import { protectedUserFields, viewUser } from './user-view.ts';

/** GET /1.1/users/me. */
export async function currentUser(deps: AccountDeps, caller: Caller): Promise<AccountResult> {
  const user = await requireSessionUser(deps.store, caller);
  return { status: 200, body: viewUser(user, { self: true, master: caller.master, protectedFields: protectedUserFields(caller.app.config) }) };
}

/** GET /1.1/users/<id>: 211 for unknown users and for users whose ACL hides them from the caller. */
export async function getUser(deps: AccountDeps, caller: Caller, userId: string): Promise<AccountResult> {
  const viewer = caller.master ? null : await sessionUser(deps.store, caller);
  const user = await deps.store.get(caller.app.config.id, userClass, userId);
  if (!user || (!caller.master && !aclAllows(user[UserField.acl], viewer?.objectId ?? null, 'read'))) {
    fail(ErrorCode.userNotFound, 'Could not find user.');
  }
  return { status: 200, body: viewUser(user, { self: viewer?.objectId === user.objectId, master: caller.master, protectedFields: protectedUserFields(caller.app.config) }) };
}

/**
 * GET /1.1/users: master key, or the `_User` find permission; ordinary callers
 * see only users whose ACL lets them read.
 */
export async function queryUsers(deps: AccountDeps, caller: Caller, query: Query): Promise<AccountResult> {
  if (!caller.master && !caller.app.config.settings.classPermissions._User.find) {
    throw new HeraldError(ErrorCode.forbidden, 'Querying users needs the master key or the find permission on _User.', { status: 403 });
  }
  rejectSecretFields(query, caller.master, protectedUserFields(caller.app.config));
  const viewer = caller.master ? null : await sessionUser(deps.store, caller);
  const readableBy = caller.master ? null : ['*', ...(viewer ? [viewer.objectId] : [])];
  const found = await deps.store.find(caller.app.config.id, userClass, { ...query, readableBy });
  const results = found.results.map((user) => viewUser(user, { self: viewer?.objectId === user.objectId, master: caller.master, protectedFields: protectedUserFields(caller.app.config), fillDefaults: query.keys === null }));
  return { status: 200, body: found.count === undefined ? { results } : { results, count: found.count } };
}

/**
 * Secrets cannot be matched or sorted on, or a query could guess them a
 * character at a time; third-party tokens and protected fields (whether some
 * user has a given email, say) are off limits to ordinary keys.
 */
function rejectSecretFields(query: Query, master: boolean, protectedFields: readonly string[]): void {
  const paths: string[][] = query.order.map((key) => key.path);
  const visit = (condition: Query['where']): void => {
    if (!condition) return;
    if (condition.kind === 'field') paths.push(condition.path);
    else condition.conditions.forEach(visit);
  };
  visit(query.where);
  for (const path of paths) {
    const head = path[0] ?? '';
    if (unqueryableUserFields.has(head) || (head.startsWith('_') && !/_unionid$/.test(head))) {
      fail(ErrorCode.invalidFieldName, `cannot query or sort on ${head}`);
    }
    if (head === UserField.authData && !master) fail(ErrorCode.invalidFieldName, 'authData can only be queried with the master key');
    if (protectedFields.includes(head) && !master) {
      throw new HeraldError(ErrorCode.forbidden, `${head} is a protected field: only the master key may query or sort on it.`, { status: 403 });
    }
  }
}
