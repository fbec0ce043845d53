import { ErrorCode, fail } from '../../core/errors.ts';
import type { Platform, PushRequest } from '../requests/push-request.ts';
import { buildApnsTemplate } from './apns-template.ts';
import { buildFcmTemplate, fcmPayloadBytes } from './fcm-template.ts';
import { fcmLayers, iosLayers, platformData } from './platform-data.ts';

/** APNs payload limit for every push type but VoIP, in bytes. */
export const maxApnsPayloadBytes = 4096;
/** APNs payload limit for VoIP pushes, in bytes. */
export const maxApnsVoipPayloadBytes = 5120;
/** FCM message payload limit, in bytes. */
export const maxFcmPayloadBytes = 4096;

/** The widest badge an "Increment" push is sized for. */
const widestBadge = 99_999_999;

/**
 * Refuses (code 1) a request whose payload would be larger than APNs or FCM
 * accept when it can reach them, so an oversize push fails at request time
 * rather than on every device. A phone maker's message is measured by its
 * client when it is built (only the apps with that maker care): one too
 * large counts its devices `PayloadTooLarge` without a request. The readers call it; it is exported for callers
 * that build a `PushRequest` themselves.
 */
export function checkPayloadSize(request: PushRequest): void {
  const platforms: ReadonlySet<Platform> = request.target.kind === 'devices' ? new Set([request.target.deviceType]) : request.target.platforms;
  if (platforms.has('ios')) {
    const apns = buildApnsTemplate({ data: platformData(request.data, iosLayers).data, expiresAt: request.expiresAt });
    const bytes = apns.incrementBadge ? apns.withBadge(widestBadge).length : apns.body.length;
    const limit = apns.pushType === 'voip' ? maxApnsVoipPayloadBytes : maxApnsPayloadBytes;
    if (bytes > limit) fail(ErrorCode.internal, `data is too large for iOS devices: the APNs payload would be ${bytes} bytes, at most ${limit}`);
  }
  if (platforms.has('android')) {
    const bytes = fcmPayloadBytes(buildFcmTemplate({ data: platformData(request.data, fcmLayers).data, androidChannel: request.androidChannel }));
    if (bytes > maxFcmPayloadBytes) {
      fail(ErrorCode.internal, `data is too large for Android devices: the FCM payload would be ${bytes} bytes, at most ${maxFcmPayloadBytes}`);
    }
  }
}
