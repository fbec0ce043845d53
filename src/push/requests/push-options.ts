import { ErrorCode, fail } from '../../core/errors.ts';
import { optionalIdentifier, optionalNumber, optionalString, optionalTime, param, type Params } from './param-rules.ts';
import type { PushRequest, PushRequestContext } from './push-request.ts';

/** A `push_time` closer than this to the request time sends at once (SPEC: under one minute). */
export const immediateWindowMs = 60_000;

/** `flow_control` values below this are raised to it. */
export const minFlowControl = 1000;

/**
 * Largest `flow_control` accepted, in deliveries per second: far above what
 * any deployment sends, and small enough for the token buckets, whose rate
 * and burst are whole numbers (a larger value was accepted and then failed
 * every slice of the push in the senders).
 */
export const maxFlowControl = 10_000_000;

/**
 * The latest expiry a push may have: the end of year 9999, the last time the
 * ISO 8601 times of Herald's answers and records can hold (an
 * `expiration_interval` reaching past it failed the request with a 500).
 */
export const latestExpiry = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

export type PushOptions = Pick<
  PushRequest,
  'pushTime' | 'expiresAt' | 'notificationId' | 'reqId' | 'environment' | 'topic' | 'apnsTeamId' | 'flowControl'
>;

/** Reads the parameters both push endpoints share, besides `data` and the target. */
export function readPushOptions(params: Params, context: PushRequestContext): PushOptions {
  const pushTime = readPushTime(params, context.now);
  return {
    pushTime,
    expiresAt: readExpiry(params, pushTime ?? context.now),
    notificationId: optionalIdentifier(params, 'notification_id'),
    reqId: optionalIdentifier(params, 'req_id'),
    environment: readEnvironment(params, context.prodHeader),
    topic: optionalString(params, 'topic'),
    apnsTeamId: optionalString(params, 'apns_team_id'),
    flowControl: readFlowControl(params),
  };
}

/** Null (send now) when absent, in the past or less than a minute ahead. */
function readPushTime(params: Params, now: number): number | null {
  const time = optionalTime(params, 'push_time');
  return time === null || time - now < immediateWindowMs ? null : time;
}

/**
 * `expiration_time` is absolute; `expiration_interval` counts seconds from the
 * effective send time (push_time, or now when push_time is absent or ignored).
 * With both, the earlier one wins: the caller asked for both limits. An expiry
 * already past is accepted; the engine records such a push as expired and
 * sends nothing.
 */
function readExpiry(params: Params, sendAt: number): number | null {
  const absolute = optionalTime(params, 'expiration_time');
  const interval = optionalNumber(params, 'expiration_interval');
  if (interval === 0) fail(ErrorCode.internal, 'expiration_interval must be a positive number of seconds');
  const relative = interval === null ? null : sendAt + Math.round(interval * 1000);
  if (relative !== null && !(relative <= latestExpiry)) fail(ErrorCode.internal, 'expiration_interval reaches past the year 9999');
  if (absolute === null) return relative;
  return relative === null ? absolute : Math.min(absolute, relative);
}

/**
 * `prod` is `dev` or `prod`. Without it, an `X-SVC-Prod` header present with
 * any value but `1` selects dev; otherwise prod.
 */
function readEnvironment(params: Params, header: string | undefined): 'prod' | 'dev' {
  const value = param(params, 'prod');
  if (value === undefined) return header !== undefined && header !== '1' ? 'dev' : 'prod';
  if (typeof value !== 'string') fail(ErrorCode.invalidType, 'prod must be a string, "dev" or "prod"');
  if (value !== 'dev' && value !== 'prod') fail(ErrorCode.internal, 'prod must be "dev" or "prod"');
  return value;
}

/** 0 or absent disables smoothing; other values are whole deliveries per second, at least 1000 and at most `maxFlowControl`. */
function readFlowControl(params: Params): number | null {
  const value = optionalNumber(params, 'flow_control');
  if (value === null || value === 0) return null;
  if (value > maxFlowControl) fail(ErrorCode.internal, `flow_control must be at most ${maxFlowControl} deliveries per second`);
  return Math.max(minFlowControl, Math.floor(value));
}
