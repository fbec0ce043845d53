import { randomBytes } from 'node:crypto';
import express, { Router, type NextFunction, type Request, type Response } from 'express';
import { hashPassword, verifyPassword } from '../../accounts/passwords.ts';
import { consoleUsernamePattern } from '../../config/console-schema.ts';
import { secretsEqual } from '../../core/constant-time.ts';
import { ErrorCode, HeraldError } from '../../core/errors.ts';
import { consolePath, safeNext } from '../console-paths.ts';
import { fromSameOrigin } from '../security/same-origin.ts';
import { ConsoleSessions } from '../session/console-sessions.ts';
import { clearedCookie, readCookie, serializeCookie, sessionCookieName, signInCookieName } from '../session/session-cookie.ts';
import { renderSignIn } from '../views/sign-in-page.ts';
import { audit, sendPage, signedInOf, wantsJson, type ConsoleContext } from './console-context.ts';

/**
 * The lock's namespace for console usernames. A dot cannot be in an app id,
 * so a console username never shares a failure count with a user of an app.
 */
export const consoleLockNamespace = 'herald.console';

const maxPasswordChars = 1024;

/**
 * Signing in and out. Sign-in attempts go through the accounts' login lock
 * (`LoginLock`) per console username, counted before the password is
 * looked at, in the coordination store every node shares: at most 6
 * passwords of a username are checked per 15 minutes however many requests
 * arrive, and then the username is locked for 15 minutes. An unknown
 * username is checked against a throwaway hash, so both cost the same.
 */
export function sessionRoutes(ctx: ConsoleContext): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: 16 * 1024, parameterLimit: 20 });
  let throwaway: Promise<string> | undefined;

  const showForm = (req: Request, res: Response, status: number, error?: string) => {
    const secure = req.secure;
    let token = readCookie(req.get('cookie'), signInCookieName);
    if (token === undefined || !/^[A-Za-z0-9_-]{43}$/.test(token)) {
      token = randomBytes(32).toString('base64url');
      res.append('Set-Cookie', serializeCookie(signInCookieName, token, { secure }));
    }
    const next = safeNext(req.method === 'GET' ? req.query.next : (req.body as Record<string, unknown> | undefined)?.next);
    const typed = (req.body as Record<string, unknown> | undefined)?.username;
    const username = req.method === 'POST' && typeof typed === 'string' ? typed.slice(0, 64) : '';
    sendPage(res, status, { title: 'Sign in', error, body: renderSignIn({ csrf: token, next, username }) });
  };

  router.get('/sign-in', (req, res) => showForm(req, res, 200));

  router.post('/sign-in', form, async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const username = typeof body.username === 'string' ? body.username : '';
    const password = typeof body.password === 'string' ? body.password : '';
    const token = readCookie(req.get('cookie'), signInCookieName) ?? '';
    const given = typeof body._csrf === 'string' ? body._csrf : '';
    if (!fromSameOrigin(req) || token === '' || given === '' || !secretsEqual(given, token)) {
      return showForm(req, res, 403, 'This sign-in form has expired or did not come from this console. Try again.');
    }
    if (!consoleUsernamePattern.test(username) || password === '' || password.length > maxPasswordChars) {
      return showForm(req, res, 401, 'Wrong username or password.');
    }
    const account = ctx.accounts.get(username);
    try {
      await ctx.lock.attempt(
        consoleLockNamespace,
        username,
        'password',
        async () => {
          if (account !== undefined) return verifyPassword(account.passwordHash, password);
          throwaway ??= hashPassword(randomBytes(16).toString('hex'));
          await verifyPassword(await throwaway, password);
          return false;
        },
        () => new HeraldError(ErrorCode.passwordMismatch, 'Wrong username or password.', { status: 401 }),
      );
    } catch (error) {
      if (!(error instanceof HeraldError)) throw error;
      // Too many sign-ins of this username under way at once: nothing was checked or locked.
      if (error.code === ErrorCode.tooManyRequests) return showForm(req, res, 429, 'Too many sign-ins for this username at once. Try again in a moment.');
      const locked = error.code === ErrorCode.loginLocked;
      if (!locked) await audit(ctx, { actor: username, action: 'session.sign-in', app: null, outcome: 'failed', detail: account === undefined ? 'unknown username' : 'wrong password' });
      return showForm(req, res, locked ? 429 : 401, locked ? 'Too many failed sign-ins for this username. Try again in 15 minutes.' : 'Wrong username or password.');
    }
    if (account === undefined) return showForm(req, res, 401, 'Wrong username or password.');
    const { token: sessionToken } = await ctx.sessions.create(account.username, account.passwordHash);
    res.append('Set-Cookie', serializeCookie(sessionCookieName, sessionToken, { secure: req.secure }));
    res.append('Set-Cookie', clearedCookie(signInCookieName, req.secure));
    await audit(ctx, { actor: account.username, action: 'session.sign-in', app: null, detail: `role ${account.role}` });
    res.redirect(303, safeNext(body.next));
  });
  return router;
}

/**
 * Every route after it needs a live session of an account still configured
 * with the password it signed in with. Without one, a page request is sent
 * to the sign-in page (and back after), anything else answers 401.
 */
export function requireSession(ctx: ConsoleContext) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const token = readCookie(req.get('cookie'), sessionCookieName);
    const session = token === undefined ? null : await ctx.sessions.read(token);
    const account = session === null ? undefined : ctx.accounts.get(session.username);
    if (session !== null && account !== undefined && ConsoleSessions.sameCredential(session, account.passwordHash)) {
      res.locals.signedIn = { account, session };
      return next();
    }
    if (token !== undefined) res.append('Set-Cookie', clearedCookie(sessionCookieName, req.secure));
    if (req.method === 'GET' && !wantsJson(req) && req.get('accept') !== 'text/event-stream') {
      res.redirect(303, `${consolePath('/sign-in')}?next=${encodeURIComponent(req.originalUrl)}`);
      return;
    }
    next(new HeraldError(ErrorCode.unauthorized, 'Sign in to the console first.', { status: 401 }));
  };
}

/** Signing out of this browser, or out of every browser the account is signed in on. */
export function signOutRoutes(ctx: ConsoleContext): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: 4 * 1024, parameterLimit: 5 });
  const checked = (req: Request, res: Response): boolean => {
    const { session } = signedInOf(res);
    const given = (req.body as Record<string, unknown> | undefined)?._csrf;
    return fromSameOrigin(req) && typeof given === 'string' && given !== '' && secretsEqual(given, session.csrf);
  };
  router.post('/sign-out', form, async (req, res, next) => {
    if (!checked(req, res)) return next(new HeraldError(ErrorCode.forbidden, 'This form did not come from this console.', { status: 403 }));
    const { account, session } = signedInOf(res);
    await ctx.sessions.end(session);
    await audit(ctx, { actor: account.username, action: 'session.sign-out', app: null });
    res.append('Set-Cookie', clearedCookie(sessionCookieName, req.secure));
    res.redirect(303, consolePath('/sign-in'));
  });
  router.post('/sign-out-everywhere', form, async (req, res, next) => {
    if (!checked(req, res)) return next(new HeraldError(ErrorCode.forbidden, 'This form did not come from this console.', { status: 403 }));
    const { account } = signedInOf(res);
    await ctx.sessions.endAll(account.username);
    await audit(ctx, { actor: account.username, action: 'session.sign-out-everywhere', app: null });
    res.append('Set-Cookie', clearedCookie(sessionCookieName, req.secure));
    res.redirect(303, consolePath('/sign-in'));
  });
  return router;
}
