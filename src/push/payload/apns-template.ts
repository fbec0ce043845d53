import type { PushRequest } from '../requests/push-request.ts';
import { apnsPayload, incrementBadge } from './apns-payload.ts';

/** What an APNs request carries for one push, the same for every device. */
export interface ApnsTemplate {
  /**
   * The JSON body. With `incrementBadge` it carries badge 1, what a device
   * without a stored badge gets; use `withBadge` for the others.
   */
  readonly body: Buffer;
  /** True when `data` asked for `badge: "Increment"`: send `withBadge(nextBadge(installation.badge))`. */
  readonly incrementBadge: boolean;
  /** The body with `aps.badge` set to `badge` (a non-negative integer), spliced without re-serialising. */
  withBadge(badge: number): Buffer;
  /** `apns-push-type` header. */
  readonly pushType: string;
  /** `apns-priority` header. */
  readonly priority: 5 | 10;
  /** `apns-collapse-id` header, null when not given. */
  readonly collapseId: string | null;
  /** `apns-expiration` header in Unix seconds, null when the push does not expire. */
  readonly expiration: number | null;
}

const badgeHead = '{"aps":{"badge":';

/**
 * Builds the APNs body and headers for a request's `data` once, so that
 * sending to each device costs at most one splice.
 */
export function buildApnsTemplate(request: Pick<PushRequest, 'data' | 'expiresAt'>): ApnsTemplate {
  const { data } = request;
  const payload = apnsPayload(data);
  const { aps } = payload;
  const increment = aps.badge === incrementBadge;
  // Serialised once with a placeholder badge of 0; the body around it is reused.
  const placeholderAps: Record<string, unknown> = { badge: 0, ...aps };
  placeholderAps.badge = 0;
  const withPlaceholder = JSON.stringify({ ...payload, aps: placeholderAps });
  if (!withPlaceholder.startsWith(`${badgeHead}0`)) throw new Error('APNs payload must start with aps.badge');
  const head = Buffer.from(badgeHead);
  const tail = Buffer.from(withPlaceholder.slice(badgeHead.length + 1));
  const withBadge = (badge: number): Buffer => {
    if (!Number.isSafeInteger(badge) || badge < 0) throw new RangeError(`badge must be a non-negative integer, got ${badge}`);
    const digits = String(badge);
    const buffer = Buffer.allocUnsafe(head.length + digits.length + tail.length);
    head.copy(buffer, 0);
    buffer.write(digits, head.length, 'latin1');
    tail.copy(buffer, head.length + digits.length);
    return buffer;
  };
  let body: Buffer;
  if (increment) body = withBadge(1);
  else if (typeof aps.badge === 'number') body = withBadge(aps.badge);
  else body = Buffer.from(JSON.stringify(payload));
  const { pushType, priority } = apnsDelivery(data, aps);
  const collapseId = data['collapse-id'];
  return {
    body,
    incrementBadge: increment,
    withBadge,
    pushType,
    priority,
    collapseId: typeof collapseId === 'string' ? collapseId : null,
    expiration: request.expiresAt === null ? null : Math.floor(request.expiresAt / 1000),
  };
}

/**
 * The badge to send for `badge: "Increment"`: the installation's stored
 * badge plus one, counting a missing or malformed badge as 0.
 */
export function nextBadge(stored: unknown): number {
  return typeof stored === 'number' && Number.isSafeInteger(stored) && stored >= 0 ? stored + 1 : 1;
}

/**
 * Push type: as given, else `background` for a pure background push
 * (content-available 1 with no alert, badge or sound, and no priority 10
 * asked for), else `alert`. Priority: as given, else 5 for background
 * pushes (APNs requires it) and 10 for the rest.
 */
function apnsDelivery(data: Readonly<Record<string, unknown>>, aps: Readonly<Record<string, unknown>>): { pushType: string; priority: 5 | 10 } {
  const givenType = data['apns-push-type'];
  const givenPriority = data['apns-priority'];
  const background =
    aps['content-available'] === 1 && aps.alert === undefined && aps.badge === undefined && aps.sound === undefined && givenPriority !== 10;
  const pushType = typeof givenType === 'string' ? givenType : background ? 'background' : 'alert';
  const priority = givenPriority === 5 || givenPriority === 10 ? givenPriority : pushType === 'background' ? 5 : 10;
  return { pushType, priority };
}
