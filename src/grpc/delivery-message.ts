import type { DeliveryEventJson } from '../push/outcomes/delivery-event.ts';

/** herald.v1.Delivery: a delivery event's JSON form with proto field names, nulls left unset. */
export interface DeliveryMessage {
  version: number;
  app_id: string;
  push_id: string;
  slice_key: string;
  installation?: string;
  token_suffix?: string;
  platform: string;
  gateway: string;
  outcome: string;
  reason?: string;
  unregistered: boolean;
  status?: number;
  message_id?: string;
  attempts: number;
  latency_ms: number;
  at: string;
}

/** The message of one delivery log entry, as ListDeliveries and WatchPush send it. */
export function deliveryMessage(entry: DeliveryEventJson): DeliveryMessage {
  const message: DeliveryMessage = {
    version: entry.version,
    app_id: entry.appId,
    push_id: entry.pushId,
    slice_key: entry.sliceKey,
    platform: entry.platform,
    gateway: entry.gateway,
    outcome: entry.outcome,
    unregistered: entry.unregistered,
    attempts: entry.attempts,
    latency_ms: entry.latencyMs,
    at: entry.at,
  };
  if (entry.installation !== null) message.installation = entry.installation;
  if (entry.tokenSuffix !== null) message.token_suffix = entry.tokenSuffix;
  if (entry.reason !== null) message.reason = entry.reason;
  if (entry.status !== null) message.status = entry.status;
  if (entry.messageId !== null) message.message_id = entry.messageId;
  return message;
}
