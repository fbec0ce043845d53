import { Router } from 'express';
import { appDisplayName } from '../../config/schema.ts';
import { readGatewayHealth } from '../overview/gateway-health.ts';
import { seesApp } from '../session/console-accounts.ts';
import { renderAppOverview, renderAudit, renderHome } from '../views/overview-pages.ts';
import { renderSettings } from '../views/settings-page.ts';
import { allowRead, appOf, sendPage, signedInOf, type ConsoleContext } from './console-context.ts';

/** The console's start page and the audit log. */
export function homeRoutes(ctx: ConsoleContext): Router {
  const router = Router();
  router.get('/', async (_req, res) => {
    const { account } = signedInOf(res);
    const apps = ctx.deps.apps
      .all()
      .filter((app) => seesApp(account, app.config.id))
      .map((app) => ({ id: app.config.id, name: appDisplayName(app.config) }));
    sendPage(res, 200, { title: 'Apps', body: renderHome(apps, await readGatewayHealth(ctx.deps.metrics)) });
  });
  router.get('/audit', allowRead('audit'), async (_req, res) => {
    const { account } = signedInOf(res);
    const apps = account.apps.includes('*') ? '*' : account.apps;
    sendPage(res, 200, { title: 'Audit log', body: renderAudit(await ctx.audit.list({ apps, limit: 200 })) });
  });
  return router;
}

/** An app's overview and settings. */
export function appOverviewRoutes(ctx: ConsoleContext): Router {
  const router = Router({ mergeParams: true });
  router.get('/', async (_req, res) => {
    const app = appOf(res);
    const [overview, health] = await Promise.all([ctx.overviews.of(app.config.id), readGatewayHealth(ctx.deps.metrics)]);
    sendPage(res, 200, { title: 'Overview', section: 'overview', body: renderAppOverview(app.config.id, overview, health, ctx.deps.push.settings.idleInstallationDays) });
  });
  router.get('/settings', allowRead('settings'), (_req, res) => {
    const app = appOf(res);
    const accounts = ctx.accounts.all().filter((account) => seesApp(account, app.config.id));
    sendPage(res, 200, { title: 'Settings', section: 'settings', body: renderSettings(app.config, accounts) });
  });
  return router;
}
