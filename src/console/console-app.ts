import { readFileSync } from 'node:fs';
import express, { Router, type Express, type NextFunction, type Request, type Response } from 'express';
import { LoginLock } from '../accounts/login-lock.ts';
import { ErrorCode, HeraldError } from '../core/errors.ts';
import { StoreAuditLog } from './audit/store-audit-log.ts';
import type { ConsoleDeps } from './console-deps.ts';
import { LogDeliveryInsight } from './insight/log-delivery-insight.ts';
import { AppOverviews } from './overview/app-overview.ts';
import { composeRoutes } from './routes/compose-routes.ts';
import { sendPage, wantsJson, type ConsoleContext } from './routes/console-context.ts';
import { deviceRoutes } from './routes/device-routes.ts';
import { appOverviewRoutes, homeRoutes } from './routes/overview-routes.ts';
import { pushRoutes } from './routes/push-routes.ts';
import { requireSession, sessionRoutes, signOutRoutes } from './routes/session-routes.ts';
import { userRoutes } from './routes/user-routes.ts';
import { consoleHeaders } from './security/console-headers.ts';
import { ConsoleAccounts, seesApp } from './session/console-accounts.ts';
import { ConsoleSessions } from './session/console-sessions.ts';
import { renderErrorBody } from './views/error-page.ts';

/** The console, ready to be mounted at `/console`; `close` ends its open event streams. */
export interface HeraldConsole {
  app: Express;
  close(): void;
}

/** The console's three files, read once at start and served with the console's headers. */
const staticFiles: Record<string, { type: string; body: Buffer }> = {
  'console.css': { type: 'text/css; charset=utf-8', body: readFileSync(new URL('./static/console.css', import.meta.url)) },
  'console.js': { type: 'text/javascript; charset=utf-8', body: readFileSync(new URL('./static/console.js', import.meta.url)) },
  'favicon.svg': { type: 'image/svg+xml', body: readFileSync(new URL('./static/favicon.svg', import.meta.url)) },
};

/**
 * The web console (docs/console.md): server-rendered pages over Herald's
 * own rules, with the signed-in account's rights checked on the server.
 * Mounted at `/console` on the API port, or on a port of its own
 * (`ConsoleServer`).
 */
export function createConsole(deps: ConsoleDeps): HeraldConsole {
  const closing = new AbortController();
  const { accounts, push, config } = deps;
  const ctx: ConsoleContext = {
    deps,
    accounts: new ConsoleAccounts(config.accounts),
    sessions: new ConsoleSessions({ coord: accounts.coord, clock: accounts.clock }, { idleMs: config.sessionIdleMinutes * 60_000, maxMs: config.sessionMaxHours * 3_600_000 }),
    lock: new LoginLock({ coord: accounts.coord, clock: accounts.clock }),
    audit: deps.audit ?? new StoreAuditLog({ store: accounts.store, clock: accounts.clock, logger: accounts.logger }, config.auditRetentionDays),
    insight: deps.insight ?? new LogDeliveryInsight(push),
    overviews: new AppOverviews({ store: push.store, clock: push.clock }, push.settings),
    closing: closing.signal,
  };

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.set('trust proxy', config.trustProxy);
  app.use((_req, res, next) => {
    res.set(consoleHeaders);
    next();
  });
  app.get('/static/:file', (req, res, next) => {
    const file = staticFiles[String(req.params.file)];
    if (file === undefined) return next();
    // Cached for a minute: the files change only with Herald.
    res.set({ 'Content-Type': file.type, 'Cache-Control': 'public, max-age=60' }).send(file.body);
  });
  app.use(sessionRoutes(ctx));
  app.use(requireSession(ctx));
  app.use(signOutRoutes(ctx), homeRoutes(ctx));
  const appRoutes = Router({ mergeParams: true });
  appRoutes.use(appOverviewRoutes(ctx), pushRoutes(ctx), composeRoutes(ctx), deviceRoutes(ctx), userRoutes(ctx));
  app.use('/apps/:appId', requireApp(ctx), appRoutes);
  app.use((req, _res, next) => next(new HeraldError(ErrorCode.objectNotFound, `There is no console page at ${req.path}.`)));
  app.use(consoleErrors(ctx));
  return { app, close: () => closing.abort() };
}

/** Routes under `/apps/:appId` serve only an app that exists and that the account sees; any other answers 404 alike. */
function requireApp(ctx: ConsoleContext) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const appId = String(req.params.appId);
    const app = ctx.deps.apps.get(appId);
    const signedIn = res.locals.signedIn as { account: Parameters<typeof seesApp>[0] } | undefined;
    if (app === undefined || signedIn === undefined || !seesApp(signedIn.account, appId)) {
      return next(new HeraldError(ErrorCode.objectNotFound, 'There is no such app, or this account does not see it.'));
    }
    res.locals.app = app;
    next();
  };
}

/** Errors as a page (or `{code, error}` for the console's script); only faults of Herald's own are 5xx and logged. */
function consoleErrors(ctx: ConsoleContext) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction): void => {
    const herald = error instanceof HeraldError ? error : bodyError(error);
    if (herald.status >= 500 && herald.code !== ErrorCode.unavailable) ctx.deps.accounts.logger.error({ err: error, method: req.method, path: req.path }, 'console request failed');
    if (res.headersSent) return void res.end();
    if (wantsJson(req) || req.get('accept') === 'text/event-stream') return void res.status(herald.status).set(consoleHeaders).json(herald.toBody());
    const message = herald.status >= 500 && herald.code !== ErrorCode.unavailable ? 'Something went wrong in Herald; it has been logged.' : herald.message;
    const inApp = res.locals.app !== undefined;
    sendPage(res, herald.status, { title: titleFor(herald.status), error: message, body: renderErrorBody(herald.status), ...(inApp ? { section: 'overview' as const } : {}) });
  };
}

function bodyError(error: unknown): HeraldError {
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status === 'number' && status >= 400 && status < 500) return new HeraldError(ErrorCode.internal, 'The request could not be read.', { status });
  return new HeraldError(ErrorCode.internal, 'Internal error.', { status: 500, cause: error });
}

function titleFor(status: number): string {
  if (status === 401) return 'Signed out';
  if (status === 403) return 'Not allowed';
  if (status === 404) return 'Not found';
  if (status === 429) return 'Too many requests';
  if (status === 503) return 'Unavailable';
  return status >= 500 ? 'Error' : 'Could not do that';
}
