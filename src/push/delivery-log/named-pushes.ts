import type { PushDoc } from '../../core/ports/push-store.ts';
import { ErrorCode, fail } from '../../core/errors.ts';
import { isAccepted } from '../records/push-record.ts';
import type { DeliveryLogDeps } from './delivery-log-deps.ts';

/** A push a listing or explain names: its record, or null when it is gone (cancelled, or past retention) but its log is not. */
export interface NamedPush {
  objectId: string;
  record: PushDoc | null;
}

/**
 * The pushes `id` names, newest first: those sharing it as their
 * notification_id (as `GET /1.1/notifications/<id>` reads them), else the
 * push whose objectId it is (what `POST /1.1/push` answered), else a push
 * whose record is gone but whose delivery log is still kept. 101 when none.
 */
export async function namedPushes(deps: DeliveryLogDeps, appId: string, id: string): Promise<NamedPush[]> {
  const { pushes, deliveries } = deps.store;
  const shared = (await pushes.findByNotificationId(appId, id)).filter(isAccepted);
  if (shared.length > 0) return shared.map((record) => ({ objectId: record.objectId, record }));
  const own = await pushes.get(appId, id);
  if (own !== null && isAccepted(own)) return [{ objectId: own.objectId, record: own }];
  if (own === null && (await deliveries.listSlices(appId, id, null, 1)).length > 0) return [{ objectId: id, record: null }];
  return fail(ErrorCode.objectNotFound, 'No push with this notification id or objectId.');
}
