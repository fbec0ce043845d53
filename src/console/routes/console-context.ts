import type { NextFunction, Request, Response } from 'express';
import type { AppRuntime, Caller } from '../../accounts/account-deps.ts';
import type { LoginLock } from '../../accounts/login-lock.ts';
import type { ConsoleAccount } from '../../config/console-schema.ts';
import { appDisplayName } from '../../config/schema.ts';
import { isoTime } from '../../core/clock.ts';
import { ErrorCode, HeraldError } from '../../core/errors.ts';
import type { AuditLog } from '../audit/audit-log.ts';
import type { ConsoleDeps } from '../console-deps.ts';
import type { DeliveryInsight } from '../insight/delivery-insight.ts';
import type { AppOverviews } from '../overview/app-overview.ts';
import { roleAllows, type ConsoleAccounts, type ConsoleAction } from '../session/console-accounts.ts';
import type { ConsoleSession, ConsoleSessions } from '../session/console-sessions.ts';
import { secretsEqual } from '../../core/constant-time.ts';
import { fromSameOrigin } from '../security/same-origin.ts';
import { consoleHeaders } from '../security/console-headers.ts';
import { renderConsolePage, type AppSection, type PageFrame } from '../views/layout.ts';

/** What every console route shares: the dependencies and the console's own parts, built once. */
export interface ConsoleContext {
  deps: ConsoleDeps;
  accounts: ConsoleAccounts;
  sessions: ConsoleSessions;
  /** The accounts' login lock (`LoginLock`), here for console usernames. */
  lock: LoginLock;
  audit: AuditLog;
  insight: DeliveryInsight;
  overviews: AppOverviews;
  /** Aborted when the console closes: open event streams end. */
  closing: AbortSignal;
}

/** The signed-in account of a request and its session. */
export interface SignedIn {
  account: ConsoleAccount;
  session: ConsoleSession;
}

export function signedInOf(res: Response): SignedIn {
  const signedIn = res.locals.signedIn as SignedIn | undefined;
  if (signedIn === undefined) throw new HeraldError(ErrorCode.internal, 'console route reached without a session', { status: 500 });
  return signedIn;
}

/** The app of a request under `/apps/:appId`, once `requireApp` found the account may see it. */
export function appOf(res: Response): AppRuntime {
  const app = res.locals.app as AppRuntime | undefined;
  if (app === undefined) throw new HeraldError(ErrorCode.internal, 'console route reached without an app', { status: 500 });
  return app;
}

/**
 * The caller the console hands Herald's rules: master-key authority in the
 * app, on the server only. The console's own checks (the account sees the
 * app, its role allows the action) come first; no key leaves the server.
 */
export function consoleCaller(app: AppRuntime): Caller {
  return { app, master: true, sessionToken: null };
}

/** The app sections a role sees. */
export function sectionsFor(account: ConsoleAccount): AppSection[] {
  const sections: AppSection[] = ['overview', 'pushes'];
  if (roleAllows(account.role, 'send')) sections.push('compose');
  sections.push('scheduled', 'devices', 'users');
  if (roleAllows(account.role, 'settings')) sections.push('settings');
  return sections;
}

/** Whether the request wants JSON back (the console's script), rather than a page. */
export function wantsJson(req: Request): boolean {
  return req.accepts(['html', 'json']) === 'json';
}

/** Answers a console page: the frame filled in from the request's account and app. */
export function sendPage(res: Response, status: number, frame: Omit<PageFrame, 'signedIn' | 'app'> & { section?: AppSection }): void {
  const signedIn = res.locals.signedIn as SignedIn | undefined;
  const app = res.locals.app as AppRuntime | undefined;
  const page: PageFrame = { title: frame.title, body: frame.body, notice: frame.notice, error: frame.error };
  if (signedIn !== undefined) page.signedIn = { account: signedIn.account, csrf: signedIn.session.csrf };
  if (app !== undefined && signedIn !== undefined && frame.section !== undefined) {
    page.app = { id: app.config.id, name: appDisplayName(app.config), section: frame.section, sections: sectionsFor(signedIn.account) };
  }
  res.status(status).set(consoleHeaders).type('html').send(renderConsolePage(page));
}

/** Writes one audit entry; a failure to write is logged, never hidden from the log. */
export async function audit(
  ctx: ConsoleContext,
  entry: { actor: string; action: string; app: string | null; target?: string | null; outcome?: string; detail?: string },
): Promise<void> {
  try {
    await ctx.audit.record({
      at: isoTime(ctx.deps.accounts.clock.now()),
      actor: entry.actor,
      action: entry.action,
      app: entry.app,
      target: entry.target ?? null,
      outcome: entry.outcome ?? 'ok',
      detail: entry.detail ?? '',
    });
  } catch (error) {
    ctx.deps.accounts.logger.error({ err: error, action: entry.action, actor: entry.actor }, 'could not write the console audit log');
  }
}

/**
 * Guards a change: it comes from this console's own pages (`fromSameOrigin`),
 * carries the session's CSRF token (compared in constant time), and the
 * account's role allows `action`. A refusal is 403, and is written to the
 * audit log with what was tried.
 */
export function allowChange(ctx: ConsoleContext, action: ConsoleAction, what: string) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const { account, session } = signedInOf(res);
    const app = res.locals.app as AppRuntime | undefined;
    const refuse = async (why: string, message: string) => {
      await audit(ctx, { actor: account.username, action: what, app: app?.config.id ?? null, target: targetOf(req), outcome: 'refused', detail: why });
      next(new HeraldError(ErrorCode.forbidden, message, { status: 403 }));
    };
    if (!fromSameOrigin(req)) return refuse('cross-origin', 'This change did not come from a page of this console.');
    const body = (req.body ?? {}) as Record<string, unknown>;
    const token = typeof body._csrf === 'string' ? body._csrf : '';
    if (token === '' || !secretsEqual(token, session.csrf)) return refuse('csrf', 'This form has expired or was not made by this console. Reload the page and try again.');
    if (!roleAllows(account.role, action)) return refuse(`role ${account.role}`, `The ${account.role} role may not do this.`);
    next();
  };
}

/** Guards a page: the account's role allows `action` (403 otherwise). */
export function allowRead(action: ConsoleAction) {
  return (_req: Request, res: Response, next: NextFunction): void => {
    const { account } = signedInOf(res);
    if (!roleAllows(account.role, action)) return next(new HeraldError(ErrorCode.forbidden, `The ${account.role} role may not see this page.`, { status: 403 }));
    next();
  };
}

function targetOf(req: Request): string | null {
  const params = req.params as Record<string, string | undefined>;
  return params.pushId ?? params.scheduledId ?? params.objectId ?? null;
}
