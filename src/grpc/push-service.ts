import type { Metadata, UntypedServiceImplementation } from '@grpc/grpc-js';
import type { Caller } from '../accounts/account-deps.ts';
import { Header } from '../api/resolve-caller.ts';
import { deleteNotification, getPushRecord } from '../push/records/notifications.ts';
import { cancelScheduledPush, listScheduledPushes } from '../push/records/scheduled-messages.ts';
import { submitPush, type PushSubmission } from '../push/submit/submit-push.ts';
import { unary, type GrpcCallDeps } from './call-context.ts';
import { metadataText } from './metadata-auth.ts';
import { pushRecordMessage, scheduledPushMessage } from './push-record-message.ts';
import { requireObjectId, requireScheduledId } from '../push/records/record-ids.ts';
import { devicePushBody, queryPushBody, type PushRequestMessage } from './push-request-body.ts';
import { watchPush, type WatchPushOptions } from './watch-push.ts';
import { listDeliveries } from './list-deliveries.ts';

/** Decoded request messages: unset fields are absent. */
type Message = Record<string, unknown>;

/**
 * herald.v1.PushService: each method turns its message into what the REST
 * route hands the push rules (`submitPush`, the record and scheduled-push
 * functions), so both transports share one implementation; only the shapes
 * of requests and answers differ.
 */
export function pushServiceHandlers(deps: GrpcCallDeps, watch: WatchPushOptions): UntypedServiceImplementation {
  const send = (target: PushSubmission['target']) => async (caller: Caller, request: PushRequestMessage, metadata: Metadata) => {
    const body = target === 'query' ? queryPushBody(request) : devicePushBody(request);
    // The 4096-byte limit of /1.1/push is on the JSON body; this is the body the request stands for.
    const bodyBytes = Buffer.byteLength(JSON.stringify(body));
    const result = await submitPush(deps.push, caller, { target, body, bodyBytes, prodHeader: metadataText(metadata, Header.prod) });
    return { object_id: result.answer.objectId, created_at: result.answer.createdAt, repeated: result.repeated };
  };
  return {
    SendPush: unary(deps, 'SendPush', send('query')),
    SendToDevices: unary(deps, 'SendToDevices', send('devices')),
    GetPush: unary(deps, 'GetPush', async (caller, request: Message) =>
      pushRecordMessage(await getPushRecord(deps.push, caller, requireObjectId(request.object_id, 'push record'))),
    ),
    ListScheduledPushes: unary(deps, 'ListScheduledPushes', async (caller) => ({
      results: (await listScheduledPushes(deps.push, caller)).map(scheduledPushMessage),
    })),
    CancelScheduledPush: unary(deps, 'CancelScheduledPush', async (caller, request: Message) => {
      await cancelScheduledPush(deps.push, caller, requireScheduledId(request.id));
      return {};
    }),
    DeleteNotification: unary(deps, 'DeleteNotification', async (caller, request: Message) => {
      await deleteNotification(deps.push, caller, requireObjectId(request.notification_id, 'push'));
      return {};
    }),
    WatchPush: watchPush(deps, watch),
    ListDeliveries: unary(deps, 'ListDeliveries', (caller, request: Message) => listDeliveries(deps.push, caller, request)),
  };
}
