import type { AppConfig } from '../../config/schema.ts';
import { buildApnsTemplate } from '../../push/payload/apns-template.ts';
import { buildFcmTemplate } from '../../push/payload/fcm-template.ts';
import { fcmLayers, iosLayers, platformData } from '../../push/payload/platform-data.ts';
import type { PushRequest } from '../../push/requests/push-request.ts';
import { previewMakerPayloads, type MakerPreview } from './maker-previews.ts';

/** What Herald will send for a push, per gateway: built by the sender's own payload builders. */
export interface PayloadPreview {
  /** The APNs request: its headers and body, byte for byte; null when the push reaches no iOS device. */
  apns: { headers: [string, string][]; body: string } | null;
  /** The FCM HTTP v1 request body, with a placeholder registration token; null when the push reaches no Android device. */
  fcm: { body: string } | null;
  /** Each phone maker's request, where the push reaches Android devices (one maker's alone for a push to a vendor's devices). */
  makers: MakerPreview[];
  notes: string[];
}

/** Stands for each device's own registration token in the FCM preview. */
export const fcmTokenPlaceholder = '<registration token of the device>';

/**
 * The exact APNs payload, FCM message and phone makers' requests of a
 * validated push, as a sender builds them (`buildApnsTemplate`,
 * `buildFcmTemplate` over each platform's view of `data`, the makers'
 * builders in `previewMakerPayloads`). Per device, a sender changes only what the notes say:
 * the badge of an `Increment`, the FCM token and TTL.
 */
export function previewPayloads(request: PushRequest, app: AppConfig, now: number): PayloadPreview {
  const platforms = request.target.kind === 'devices' ? new Set([request.target.deviceType]) : request.target.platforms;
  const notes: string[] = [];
  let apns: PayloadPreview['apns'] = null;
  let fcm: PayloadPreview['fcm'] = null;
  if (platforms.has('ios')) {
    const template = buildApnsTemplate({ data: platformData(request.data, iosLayers).data, expiresAt: request.expiresAt });
    const headers: [string, string][] = [
      ['apns-push-type', template.pushType],
      ['apns-priority', String(template.priority)],
    ];
    const topic = request.topic ?? app.push.apns?.topic;
    headers.push(['apns-topic', topic ?? "(the installation's apnsTopic)"]);
    if (template.expiration !== null) headers.push(['apns-expiration', String(template.expiration)]);
    if (template.collapseId !== null) headers.push(['apns-collapse-id', template.collapseId]);
    apns = { headers, body: template.body.toString('utf8') };
    if (template.incrementBadge) notes.push("badge Increment: each device gets its stored badge plus one (1 shown here, for a device without one).");
    notes.push(`APNs ${request.environment === 'prod' ? 'production' : 'development'} gateway.`);
  }
  if (platforms.has('android')) {
    const template = buildFcmTemplate({ data: platformData(request.data, fcmLayers).data, androidChannel: request.androidChannel });
    const sendAt = request.pushTime ?? now;
    const ttl = request.expiresAt === null ? null : Math.max(0, Math.ceil((request.expiresAt - sendAt) / 1000));
    fcm = { body: template.bodyFor(fcmTokenPlaceholder, ttl).toString('utf8') };
    notes.push("Android devices whose vendor names a phone maker get that maker's request instead, below.");
    if (ttl !== null) notes.push("The FCM ttl and the makers' time to live are the time left until expiry when each device is sent to.");
  }
  return { apns, fcm, makers: previewMakerPayloads(request, app, now), notes };
}
