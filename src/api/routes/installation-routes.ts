import { Router, type Request } from 'express';
import { deleteInstallation } from '../../devices/installation-deletion.ts';
import type { DeviceDeps } from '../../devices/device-deps.ts';
import { queryInstallations } from '../../devices/installation-query.ts';
import { getInstallation } from '../../devices/installation-reads.ts';
import { installationNotFound } from '../../devices/installation-records.ts';
import { updateInstallation } from '../../devices/installation-updates.ts';
import { saveInstallation } from '../../devices/save-installation.ts';
import { parseQuery } from '../../query/parse-query.ts';
import { callerOf } from '../middleware/authenticate.ts';
import { routeEach } from './route-aliases.ts';
import { readSaveOptions, withSavedObject } from './save-options.ts';
import { sendResult } from './send-result.ts';

const objectIdPattern = /^[A-Za-z0-9]{1,64}$/;

/** Ids that cannot be object ids answer as unknown installations (101). */
function installationIdOf(req: Request): string {
  const id = String(req.params.objectId);
  if (!objectIdPattern.test(id)) installationNotFound();
  return id;
}

/** Where installations are: `/installations`, and `/classes/_Installation` as the hosted service's SDKs save them (one implementation). */
const installations = ['/installations', '/classes/_Installation'];
const installation = ['/installations/:objectId', '/classes/_Installation/:objectId'];

/** The installation endpoints of SPEC.md and SPEC-NOTES.md under /1.1. */
export function installationRoutes(deps: DeviceDeps): Router {
  const router = Router();
  routeEach(router, 'post', installations, async (req, res) => {
    const caller = callerOf(res);
    const { answerObject } = readSaveOptions(req);
    const result = await saveInstallation(deps, caller, req.body);
    const objectId = String(result.body.objectId);
    sendResult(res, answerObject ? await withSavedObject(result, () => getInstallation(deps, caller, objectId)) : result);
  });
  routeEach(router, 'get', installations, async (req, res) => sendResult(res, await queryInstallations(deps, callerOf(res), parseQuery(req.query))));
  routeEach(router, 'get', installation, async (req, res) => sendResult(res, await getInstallation(deps, callerOf(res), installationIdOf(req))));
  routeEach(router, 'put', installation, async (req, res) => {
    const caller = callerOf(res);
    const objectId = installationIdOf(req);
    const { answerObject } = readSaveOptions(req);
    const result = await updateInstallation(deps, caller, objectId, req.body);
    sendResult(res, answerObject ? await withSavedObject(result, () => getInstallation(deps, caller, objectId)) : result);
  });
  routeEach(router, 'delete', installation, async (req, res) =>
    sendResult(res, await deleteInstallation(deps, callerOf(res), installationIdOf(req))),
  );
  return router;
}
