import express, { Router } from 'express';
import type { StoredObject } from '../../core/ports/object-store.ts';
import { ErrorCode, HeraldError } from '../../core/errors.ts';
import { userClass } from '../../accounts/user-fields.ts';
import { findDevice } from '../../devices/device-token-case.ts';
import { getInstallation } from '../../devices/installation-reads.ts';
import { deleteInstallation } from '../../devices/installation-deletion.ts';
import { queryInstallations } from '../../devices/installation-query.ts';
import { parseQuery } from '../../query/parse-query.ts';
import { roleAllows } from '../session/console-accounts.ts';
import { deviceSearches, renderDevicePage, renderDeviceSearch, type DeviceSearch } from '../views/device-pages.ts';
import { appPath } from '../views/layout.ts';
import { allowChange, appOf, audit, consoleCaller, sendPage, signedInOf, type ConsoleContext } from './console-context.ts';
import { noticeText } from './notices.ts';

/** Most devices one search shows. */
const searchLimit = 50;
/** Delivery-log entries a device's page shows at once, newest first; "Older outcomes" follows the log's cursor. */
const historyLimit = 20;

/**
 * Devices: found by token, Android registrationId, installation id,
 * channel or user through the installation rules (`queryInstallations`,
 * unique-key lookups, `findByRegistrationId`), shown with channels,
 * activity and their last outcomes from the delivery log, and deleted
 * (`deleteInstallation`).
 */
export function deviceRoutes(ctx: ConsoleContext): Router {
  const router = Router({ mergeParams: true });
  const form = express.urlencoded({ extended: false, limit: 4 * 1024, parameterLimit: 5 });
  const { accounts: deps } = ctx.deps;
  const idleDays = ctx.deps.push.settings.idleInstallationDays;

  router.get('/devices', async (req, res) => {
    const app = appOf(res);
    const by: DeviceSearch = typeof req.query.by === 'string' && Object.hasOwn(deviceSearches, req.query.by) ? (req.query.by as DeviceSearch) : 'token';
    const q = typeof req.query.q === 'string' ? req.query.q.trim().slice(0, 4096) : '';
    const appId = app.config.id;
    const caller = consoleCaller(app);
    const query = async (where: Record<string, unknown>): Promise<StoredObject[]> =>
      (await queryInstallations(deps, caller, parseQuery({ where: JSON.stringify(where), limit: String(searchLimit) }))).body.results as StoredObject[];
    let found: StoredObject[] | null = null;
    if (q !== '') {
      const installations = deps.store.installations;
      if (by === 'token') {
        const byToken = await findDevice(installations, appId, { field: 'deviceToken', value: q });
        found = byToken !== null ? [byToken] : await installations.findByRegistrationId(appId, q);
      } else if (by === 'registrationId') {
        // The store's registrationId lookup (the senders' own), never a scan; a token shared by several installations shows each.
        found = await installations.findByRegistrationId(appId, q);
      } else if (by === 'installationId') {
        const byId = (await findDevice(installations, appId, { field: 'installationId', value: q })) ?? (/^[A-Za-z0-9]{1,64}$/.test(q) ? await installations.get(appId, q) : null);
        found = byId === null ? [] : [byId];
      } else if (by === 'channel') {
        found = await query({ channels: q });
      } else {
        const user = (await deps.store.findByUnique(appId, userClass, { field: 'username', value: q })) ?? (/^[A-Za-z0-9]{1,64}$/.test(q) ? await deps.store.get(appId, userClass, q) : null);
        found = user === null ? [] : await query({ user: { __type: 'Pointer', className: userClass, objectId: user.objectId } });
      }
    }
    sendPage(res, 200, { title: 'Devices', section: 'devices', notice: noticeText(req.query.notice), body: renderDeviceSearch(appId, by, q, found, deps.clock.now(), idleDays) });
  });

  router.get('/devices/:objectId', async (req, res) => {
    const app = appOf(res);
    const { account, session } = signedInOf(res);
    const objectId = String(req.params.objectId);
    if (!/^[A-Za-z0-9]{1,64}$/.test(objectId)) throw new HeraldError(ErrorCode.objectNotFound, 'No installation with this objectId.');
    const device = (await getInstallation(deps, consoleCaller(app), objectId)).body;
    // The delivery log's own cursor (opaque, checked by the log: a bad one is 400).
    const cursor = typeof req.query.history === 'string' ? req.query.history.slice(0, 1024).trim() : '';
    const history = await ctx.insight.deviceHistory(app, objectId, { limit: historyLimit, cursor: cursor === '' ? null : cursor });
    sendPage(res, 200, {
      title: 'Device',
      section: 'devices',
      body: renderDevicePage({ appId: app.config.id, device, history, historyFrom: cursor, now: deps.clock.now(), idleDays, csrf: session.csrf, mayDelete: roleAllows(account.role, 'deleteDevice') }),
    });
  });

  router.post('/devices/:objectId/delete', form, allowChange(ctx, 'deleteDevice', 'device.delete'), async (req, res) => {
    const app = appOf(res);
    const { account } = signedInOf(res);
    const objectId = String(req.params.objectId);
    if (!/^[A-Za-z0-9]{1,64}$/.test(objectId)) throw new HeraldError(ErrorCode.objectNotFound, 'No installation with this objectId.');
    await deleteInstallation(deps, consoleCaller(app), objectId);
    await audit(ctx, { actor: account.username, action: 'device.delete', app: app.config.id, target: objectId });
    res.redirect(303, appPath(app.config.id, '/devices?notice=deleted'));
  });
  return router;
}
