import express, { Router, type Request, type Response } from 'express';
import type { StoredObject } from '../../core/ports/object-store.ts';
import { ErrorCode, HeraldError } from '../../core/errors.ts';
import { requestEmailVerify } from '../../accounts/email-verification.ts';
import { requestPasswordReset } from '../../accounts/password-reset.ts';
import { getUser } from '../../accounts/user-reads.ts';
import { UserField, userClass } from '../../accounts/user-fields.ts';
import { checkEmail, checkMobilePhone } from '../../accounts/field-rules.ts';
import { roleAllows } from '../session/console-accounts.ts';
import { appPath } from '../views/layout.ts';
import { renderUserPage, renderUserSearch, userSearches, type UserSearch } from '../views/user-pages.ts';
import { allowChange, appOf, audit, consoleCaller, sendPage, signedInOf, type ConsoleContext } from './console-context.ts';
import { noticeText } from './notices.ts';

const searchFields: Record<UserSearch, 'username' | 'email' | 'mobilePhoneNumber'> = { username: UserField.username, email: UserField.email, phone: UserField.mobilePhoneNumber };

/**
 * Users: found by username, email or phone (their unique keys), shown with
 * verification and lock state (`LoginLock`), unlocked, and sent a password
 * reset or verification mail through the account rules.
 */
export function userRoutes(ctx: ConsoleContext): Router {
  const router = Router({ mergeParams: true });
  const form = express.urlencoded({ extended: false, limit: 4 * 1024, parameterLimit: 5 });
  const { accounts: deps } = ctx.deps;

  const userIdOf = (req: Request): string => {
    const id = String(req.params.objectId);
    if (!/^[A-Za-z0-9]{1,64}$/.test(id)) throw new HeraldError(ErrorCode.userNotFound, 'Could not find user.', { status: 404 });
    return id;
  };
  const loadUser = async (res: Response, id: string) => {
    try {
      return (await getUser(deps, consoleCaller(appOf(res)), id)).body;
    } catch (error) {
      if (error instanceof HeraldError && error.code === ErrorCode.userNotFound) throw new HeraldError(ErrorCode.userNotFound, 'Could not find user.', { status: 404 });
      throw error;
    }
  };
  const showUser = async (res: Response, id: string, status: number, notice?: string, error?: string) => {
    const app = appOf(res);
    const { account, session } = signedInOf(res);
    const user = await loadUser(res, id);
    const lockedUntil = await ctx.lock.lockedUntil(app.config.id, id);
    sendPage(res, status, {
      title: 'User',
      section: 'users',
      notice,
      error,
      body: renderUserPage({ appId: app.config.id, user, lockedUntil, csrf: session.csrf, mayUnlock: roleAllows(account.role, 'unlock'), mayMail: roleAllows(account.role, 'mail') }),
    });
  };

  router.get('/users', async (req, res) => {
    const app = appOf(res);
    const by: UserSearch = typeof req.query.by === 'string' && Object.hasOwn(userSearches, req.query.by) ? (req.query.by as UserSearch) : 'username';
    const q = typeof req.query.q === 'string' ? req.query.q.trim().slice(0, 256) : '';
    let found: StoredObject[] | null = null;
    if (q !== '') {
      const value = by === 'email' ? readOr(() => checkEmail(q)) : by === 'phone' ? readOr(() => checkMobilePhone(q)) : q;
      const user = value === null ? null : await deps.store.findByUnique(app.config.id, userClass, { field: searchFields[by], value });
      found = user === null ? [] : [(await getUser(deps, consoleCaller(app), user.objectId)).body as StoredObject];
    }
    sendPage(res, 200, { title: 'Users', section: 'users', body: renderUserSearch(app.config.id, by, q, found) });
  });

  router.get('/users/:objectId', async (req, res) => showUser(res, userIdOf(req), 200, noticeText(req.query.notice)));

  router.post('/users/:objectId/unlock', form, allowChange(ctx, 'unlock', 'user.unlock'), async (req, res) => {
    const app = appOf(res);
    const { account } = signedInOf(res);
    const id = userIdOf(req);
    await loadUser(res, id);
    await ctx.lock.unlock(app.config.id, id);
    await audit(ctx, { actor: account.username, action: 'user.unlock', app: app.config.id, target: id });
    res.redirect(303, appPath(app.config.id, `/users/${id}?notice=unlocked`));
  });

  const mail = (kind: 'reset' | 'verify') => async (req: Request, res: Response) => {
    const app = appOf(res);
    const { account } = signedInOf(res);
    const id = userIdOf(req);
    const user = await loadUser(res, id);
    const action = kind === 'reset' ? 'user.password-reset-mail' : 'user.verification-mail';
    try {
      const body = { email: user.email };
      await (kind === 'reset' ? requestPasswordReset(deps, consoleCaller(app), body) : requestEmailVerify(deps, consoleCaller(app), body));
    } catch (error) {
      if (!(error instanceof HeraldError) || error.status >= 500) throw error;
      await audit(ctx, { actor: account.username, action, app: app.config.id, target: id, outcome: 'failed', detail: error.message });
      return showUser(res, id, error.status, undefined, error.message);
    }
    await audit(ctx, { actor: account.username, action, app: app.config.id, target: id });
    res.redirect(303, appPath(app.config.id, `/users/${id}?notice=${kind === 'reset' ? 'reset-sent' : 'verify-sent'}`));
  };
  router.post('/users/:objectId/reset-mail', form, allowChange(ctx, 'mail', 'user.password-reset-mail'), mail('reset'));
  router.post('/users/:objectId/verify-mail', form, allowChange(ctx, 'mail', 'user.verification-mail'), mail('verify'));
  return router;
}

function readOr(read: () => string): string | null {
  try {
    return read();
  } catch {
    return null;
  }
}
