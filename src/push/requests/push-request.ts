import type { Condition } from '../../query/query.ts';
import { checkPayloadSize } from '../payload/payload-size.ts';
import { readDeviceTarget } from './device-target.ts';
import { optionalString, param, readBody } from './param-rules.ts';
import { readPushData } from './push-data.ts';
import { readPushOptions } from './push-options.ts';
import { readQueryTarget } from './query-target.ts';

/** The device platforms a push can reach. */
export type Platform = 'ios' | 'android';

/** A push aimed by a query over installations (`POST /1.1/push`). */
export interface QueryTarget {
  kind: 'query';
  /** Parsed `where` with `channels` merged in; null targets every valid installation. */
  where: Condition | null;
  /** The same condition as JSON, channels merged in, as the push record stores it; null when neither was given. */
  whereJson: Record<string, unknown> | null;
  /** Platforms the query can reach: `{'ios'}` when `where` pins `deviceType` to ios, and so on. */
  platforms: ReadonlySet<Platform>;
}

/** A push aimed at listed devices (`POST /1.1/push/devices`). */
export interface DeviceTarget {
  kind: 'devices';
  deviceType: Platform;
  /** iOS deviceTokens, Android installationIds, or with `vendor` Android registrationIds; at most 500, duplicates removed, in the given order. */
  ids: string[];
  /** iOS: name of a custom push certificate; Android with `vendor`: the maker profile (`_default` when absent). */
  deviceProfile?: string;
  /** Android only: the ids are registrationIds of devices of this `vendor` (`HMS`, `mi`, `fcm`, …). */
  vendor?: string;
  /** Android only: notification channel (also in `PushRequest.androidChannel`). */
  channel?: string;
}

export type PushTarget = QueryTarget | DeviceTarget;

/** A validated push request, ready to be stored and sent. */
export interface PushRequest {
  /** The validated `data`, as given (stored in the record, shown to clients). */
  data: Record<string, unknown>;
  target: PushTarget;
  /** ms since epoch; null = send now (also when less than a minute ahead). */
  pushTime: number | null;
  /** Absolute expiry in ms, from expiration_time or expiration_interval (counted from push_time, else from now); null = none. */
  expiresAt: number | null;
  /** The caller's notification_id; the API generates one when null. */
  notificationId: string | null;
  reqId: string | null;
  /** Gateway or certificate environment after the `prod` / X-SVC-Prod rule. */
  environment: 'prod' | 'dev';
  topic: string | null;
  apnsTeamId: string | null;
  /** Deliveries per second; null = no smoothing; values below 1000 are raised to 1000. */
  flowControl: number | null;
  /** Android notification channel (`_notificationChannel` on /push, `channel` on /push/devices). */
  androidChannel: string | null;
}

/** What a reader needs besides the body. */
export interface PushRequestContext {
  /** The request time, ms since epoch. */
  now: number;
  /** The `X-SVC-Prod` header, undefined when absent. */
  prodHeader: string | undefined;
}

/**
 * Reads and validates the body of `POST /1.1/push`. Throws `HeraldError`
 * (107, 111, 112, 113, 105, 1) before anything is stored; unknown
 * parameters are ignored.
 */
export function readQueryPush(body: unknown, context: PushRequestContext): PushRequest {
  const params = readBody(body);
  const target = readQueryTarget(params);
  return checked({
    data: readPushData(param(params, 'data'), target.platforms),
    target,
    ...readPushOptions(params, context),
    androidChannel: optionalString(params, '_notificationChannel'),
  });
}

/**
 * Reads and validates the body of `POST /1.1/push/devices`. Throws
 * `HeraldError` (107, 111, 113, 114, 105, 1); unknown parameters are ignored.
 */
export function readDevicePush(body: unknown, context: PushRequestContext): PushRequest {
  const params = readBody(body);
  const target = readDeviceTarget(params);
  return checked({
    data: readPushData(param(params, 'data'), new Set([target.deviceType])),
    target,
    ...readPushOptions(params, context),
    androidChannel: target.channel ?? null,
  });
}

/** Refuses a request whose gateway payload would be too large, so nothing oversize is stored. */
function checked(request: PushRequest): PushRequest {
  checkPayloadSize(request);
  return request;
}
