import { Router, type Request, type Response } from 'express';
import { ErrorCode, fail } from '../../core/errors.ts';
import type { PushDeps } from '../../push/push-deps.ts';
import { requireObjectId } from '../../push/records/record-ids.ts';
import { deleteNotification, getNotification, getPushRecord, listNotifications } from '../../push/records/notifications.ts';
import { cancelScheduledPush, listScheduledPushes } from '../../push/records/scheduled-messages.ts';
import { submitPush } from '../../push/submit/submit-push.ts';
import { parseQuery } from '../../query/parse-query.ts';
import { callerOf, prodHeaderOf } from '../middleware/authenticate.ts';

function pathId(req: Request, name: string, what: string): string {
  return requireObjectId(String(req.params[name]), what);
}

function send(res: Response, body: object, status = 200): void {
  res.status(status).json(body);
}

/** The push endpoints of SPEC.md under /1.1: sending, push records, scheduled pushes. */
export function pushRoutes(deps: PushDeps): Router {
  const router = Router();
  const submit = (target: 'query' | 'devices') => async (req: Request, res: Response) => {
    const bodyBytes = typeof res.locals.bodyBytes === 'number' ? res.locals.bodyBytes : 0;
    const result = await submitPush(deps, callerOf(res), { target, body: req.body, bodyBytes, prodHeader: prodHeaderOf(res) });
    // SPEC.md: a repeated req_id is answered with the first push, 200 rather than 201 Created.
    send(res, result.answer, result.repeated ? 200 : 201);
  };
  router.post('/push', submit('query'));
  router.post('/push/devices', submit('devices'));

  router.get('/notifications', async (req, res) => send(res, await listNotifications(deps, callerOf(res), parseQuery(req.query))));
  router.get('/notifications/:notificationId', async (req, res) =>
    send(res, await getNotification(deps, callerOf(res), pathId(req, 'notificationId', 'push'))),
  );
  router.delete('/notifications/:notificationId', async (req, res) => {
    await deleteNotification(deps, callerOf(res), pathId(req, 'notificationId', 'push'));
    send(res, {});
  });
  router.get('/tables/Notifications/:objectId', async (req, res) => send(res, await getPushRecord(deps, callerOf(res), pathId(req, 'objectId', 'push record'))));

  router.get('/scheduledPushMessages', async (_req, res) => send(res, { results: await listScheduledPushes(deps, callerOf(res)) }));
  router.delete('/scheduledPushMessages/:id', async (req, res) => {
    const id = String(req.params.id);
    if (!/^\d{1,16}$/.test(id)) fail(ErrorCode.objectNotFound, 'No scheduled push with this id.');
    await cancelScheduledPush(deps, callerOf(res), Number(id));
    send(res, {});
  });
  return router;
}
