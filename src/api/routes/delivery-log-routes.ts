import { Router, type Request } from 'express';
import type { DeliveryLogDeps } from '../../push/delivery-log/delivery-log-deps.ts';
import { explainDelivery } from '../../push/delivery-log/explain-delivery.ts';
import { listInstallationDeliveries } from '../../push/delivery-log/installation-deliveries.ts';
import { listPushDeliveries } from '../../push/delivery-log/push-deliveries.ts';
import { requireObjectId } from '../../push/records/record-ids.ts';
import { callerOf } from '../middleware/authenticate.ts';

/** The URL query as the delivery log's readers take it: a repeated parameter stays a list, which they refuse. */
function params(req: Request): Record<string, unknown> {
  return req.query;
}

/**
 * The delivery log over REST (docs/delivery-log.md), master key only: a
 * push's entries, an installation's, and why one device did or did not get
 * a push.
 */
export function deliveryLogRoutes(deps: DeliveryLogDeps): Router {
  const router = Router();
  router.get('/notifications/:notificationId/deliveries', async (req, res) => {
    res.json(await listPushDeliveries(deps, callerOf(res), requireObjectId(String(req.params.notificationId), 'push'), params(req)));
  });
  router.get('/notifications/:notificationId/explain', async (req, res) => {
    res.json(await explainDelivery(deps, callerOf(res), requireObjectId(String(req.params.notificationId), 'push'), params(req)));
  });
  router.get('/installations/:objectId/deliveries', async (req, res) => {
    res.json(await listInstallationDeliveries(deps, callerOf(res), String(req.params.objectId), params(req)));
  });
  return router;
}
