import type { Caller } from '../accounts/account-deps.ts';
import { ErrorCode, fail } from '../core/errors.ts';
import type { DeliveryLogDeps } from '../push/delivery-log/delivery-log-deps.ts';
import { listInstallationDeliveries } from '../push/delivery-log/installation-deliveries.ts';
import { listPushDeliveries } from '../push/delivery-log/push-deliveries.ts';
import { requireObjectId } from '../push/records/record-ids.ts';
import { deliveryMessage, type DeliveryMessage } from './delivery-message.ts';

/** herald.v1.ListDeliveriesResponse. */
export interface ListDeliveriesResponse {
  results: DeliveryMessage[];
  next_cursor?: string;
}

/**
 * herald.v1.PushService.ListDeliveries: the REST listings' readers, given
 * the message's `outcome`, `reason`, `limit` and `cursor` as REST's query
 * parameters, so a bad one is refused with the same message (code 1,
 * INVALID_ARGUMENT). `push_id` is REST's `/notifications/<id>`, an unknown
 * one NOT_FOUND (101); `installation` is `/installations/<objectId>`.
 */
export async function listDeliveries(deps: DeliveryLogDeps, caller: Caller, request: Readonly<Record<string, unknown>>): Promise<ListDeliveriesResponse> {
  const params = { outcome: request.outcome, reason: request.reason, limit: request.limit, cursor: request.cursor };
  const page =
    request.push_id !== undefined
      ? await listPushDeliveries(deps, caller, requireObjectId(request.push_id, 'push'), params)
      : typeof request.installation === 'string'
        ? await listInstallationDeliveries(deps, caller, request.installation, params)
        : fail(ErrorCode.internal, 'push_id or installation is required: whose deliveries to list');
  const response: ListDeliveriesResponse = { results: page.results.map(deliveryMessage) };
  if (page.nextCursor !== null) response.next_cursor = page.nextCursor;
  return response;
}
