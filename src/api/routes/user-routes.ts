import { Router, type Request } from 'express';
import type { AccountDeps } from '../../accounts/account-deps.ts';
import { requestEmailVerify } from '../../accounts/email-verification.ts';
import { login } from '../../accounts/login.ts';
import { requestPasswordReset } from '../../accounts/password-reset.ts';
import { signUpOrLogInByPhone } from '../../accounts/phone-signup.ts';
import { registerWithPassword } from '../../accounts/registration.ts';
import { requestSmsCode } from '../../accounts/sms-codes.ts';
import { loginWithAuthData } from '../../accounts/third-party-login.ts';
import { currentUser, getUser, queryUsers } from '../../accounts/user-reads.ts';
import { changePassword, deleteUser, refreshSessionToken, updateUserFields } from '../../accounts/user-updates.ts';
import { ErrorCode, fail } from '../../core/errors.ts';
import { parseQuery } from '../../query/parse-query.ts';
import { callerOf } from '../middleware/authenticate.ts';
import { routeEach } from './route-aliases.ts';
import { readSaveOptions, withSavedObject } from './save-options.ts';
import { sendResult } from './send-result.ts';

const objectIdPattern = /^[A-Za-z0-9]{1,64}$/;

function userIdOf(req: Request): string {
  const id = String(req.params.objectId);
  if (!objectIdPattern.test(id)) fail(ErrorCode.userNotFound, 'Could not find user.');
  return id;
}

/** Where users are: `/users`, and `/classes/_User` as the hosted service's SDKs fetch, save, delete and query them (one implementation). */
const users = ['/users', '/classes/_User'];
const user = ['/users/:objectId', '/classes/_User/:objectId'];

/** The user endpoints of SPEC.md and SPEC-NOTES.md under /1.1. */
export function userRoutes(deps: AccountDeps): Router {
  const router = Router();

  routeEach(router, 'post', users, async (req, res) => {
    const caller = callerOf(res);
    readSaveOptions(req);
    const body: unknown = req.body;
    const viaAuthData = body !== null && typeof body === 'object' && 'authData' in body && !('username' in body);
    const failOnNotExist = req.query.failOnNotExist === 'true';
    sendResult(res, viaAuthData ? await loginWithAuthData(deps, caller, body, { failOnNotExist }) : await registerWithPassword(deps, caller, body));
  });
  router.post('/login', async (req, res) => sendResult(res, await login(deps, callerOf(res), req.body)));
  router.post('/usersByMobilePhone', async (req, res) => sendResult(res, await signUpOrLogInByPhone(deps, callerOf(res), req.body)));
  router.post('/requestSmsCode', async (req, res) => sendResult(res, await requestSmsCode(deps, callerOf(res), req.body)));
  router.post('/requestPasswordReset', async (req, res) => sendResult(res, await requestPasswordReset(deps, callerOf(res), req.body)));
  router.post('/requestEmailVerify', async (req, res) => sendResult(res, await requestEmailVerify(deps, callerOf(res), req.body)));

  router.get('/users/me', async (_req, res) => sendResult(res, await currentUser(deps, callerOf(res))));
  routeEach(router, 'get', users, async (req, res) => sendResult(res, await queryUsers(deps, callerOf(res), parseQuery(req.query))));
  routeEach(router, 'get', user, async (req, res) => sendResult(res, await getUser(deps, callerOf(res), userIdOf(req))));
  router.put('/users/:objectId/refreshSessionToken', async (req, res) =>
    sendResult(res, await refreshSessionToken(deps, callerOf(res), userIdOf(req))),
  );
  router.put('/users/:objectId/updatePassword', async (req, res) =>
    sendResult(res, await changePassword(deps, callerOf(res), userIdOf(req), req.body)),
  );
  routeEach(router, 'put', user, async (req, res) => {
    const caller = callerOf(res);
    const userId = userIdOf(req);
    const { answerObject } = readSaveOptions(req);
    const result = await updateUserFields(deps, caller, userId, req.body);
    if (!answerObject) return sendResult(res, result);
    // A password change may have replaced the session token: read as the session the answer hands out.
    const sessionToken = typeof result.body.sessionToken === 'string' ? result.body.sessionToken : caller.sessionToken;
    sendResult(res, await withSavedObject(result, () => getUser(deps, { ...caller, sessionToken }, userId)));
  });
  routeEach(router, 'delete', user, async (req, res) => sendResult(res, await deleteUser(deps, callerOf(res), userIdOf(req))));
  return router;
}
