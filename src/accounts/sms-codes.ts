import { randomInt } from 'node:crypto';
import { appDisplayName, type AppSettings } from '../config/schema.ts';
import { ErrorCode, HeraldError, fail } from '../core/errors.ts';
import { appKey } from '../core/ports/coordination.ts';
import type { AccountDeps, AccountResult, Caller } from './account-deps.ts';
import type { SmsRefusal } from './account-metrics.ts';
import { checkMobilePhone, requireObject } from './field-rules.ts';

/** SPEC-NOTES.md: 6 digits, valid 10 minutes, at most one per number per minute. */
export const smsCodeTtlMs = 10 * 60 * 1000;
export const smsCodeIntervalMs = 60 * 1000;
const hourMs = 60 * 60 * 1000;
const dayMs = 24 * hourMs;

type SmsLimits = AppSettings['smsCodes'];

/**
 * POST /1.1/requestSmsCode. Besides one code per number per minute, a number
 * gets at most `perNumberPerDay` codes and the app sends at most
 * `perAppPerHour` and `perAppPerDay`, so that nobody can make Herald send
 * texts to many numbers at the app's expense (SMS pumping). Refusals answer
 * 429 and are counted in metrics.
 */
export async function requestSmsCode(deps: AccountDeps, caller: Caller, body: unknown): Promise<AccountResult> {
  const fields = requireObject(body);
  if (fields.mobilePhoneNumber === undefined || fields.mobilePhoneNumber === '') fail(ErrorCode.mobilePhoneMissing, 'The mobile phone number is missing.');
  const number = checkMobilePhone(fields.mobilePhoneNumber);
  const appId = caller.app.config.id;
  await reserveSend(deps, appId, number, caller.app.config.settings.smsCodes);
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  // A new code gets a fresh budget of tries.
  await deps.coord.delete(triesKey(appId, number));
  await deps.coord.set(codeKey(appId, number), code, smsCodeTtlMs);
  const text = `Your ${appDisplayName(caller.app.config)} verification code is ${code}. It is valid for 10 minutes.`;
  try {
    await caller.app.sms.send({ to: number, code, text });
  } catch (error) {
    // The code never reached the phone: let the person ask again at once.
    await deps.coord.delete(sentKey(appId, number));
    await deps.coord.delete(codeKey(appId, number));
    throw error;
  }
  return { status: 200, body: {} };
}

/**
 * Cheapest refusal first: a number asked again within the minute costs nothing
 * else; only requests that pass the per-number limits count against the app's.
 */
async function reserveSend(deps: AccountDeps, appId: string, number: string, limits: SmsLimits): Promise<void> {
  const refuse = (reason: SmsRefusal, message: string): never => {
    deps.metrics.smsRefused(appId, reason);
    throw new HeraldError(ErrorCode.tooManyRequests, message);
  };
  if (!(await deps.coord.setIfAbsent(sentKey(appId, number), '1', smsCodeIntervalMs))) {
    refuse('number-minute', 'An SMS code was sent to this number less than a minute ago; try again later.');
  }
  const now = deps.clock.now();
  const within = (key: string, windowMs: number, max: number) => deps.coord.reserveAttempt(key, null, { now, windowMs, max, lockMs: 0 });
  if (!(await within(appKey(appId, 'sms-day', number), dayMs, limits.perNumberPerDay)).allowed) {
    refuse('number-day', 'This number has been sent as many SMS codes as it may get in a day; try again tomorrow.');
  }
  if (!(await within(appKey(appId, 'sms-app-hour'), hourMs, limits.perAppPerHour)).allowed) {
    refuse('app-hour', 'This app has sent as many SMS codes as it may in an hour; try again later.');
  }
  if (!(await within(appKey(appId, 'sms-app-day'), dayMs, limits.perAppPerDay)).allowed) {
    refuse('app-day', 'This app has sent as many SMS codes as it may in a day; try again later.');
  }
}

/** A wrong, used up or expired code; SPEC-NOTES has no code of its own for it. */
export function wrongSmsCode(): HeraldError {
  return new HeraldError(ErrorCode.internal, 'The SMS code is wrong or has expired.');
}

export function readSmsCode(value: unknown): string {
  if (typeof value !== 'string' || !/^[0-9]{6}$/.test(value)) fail(ErrorCode.invalidType, 'smsCode must be a string of 6 digits');
  return value;
}

/**
 * Checks `code` against the one sent to `number` and uses it up when it is
 * right. Each try is reserved before the comparison, so a burst cannot compare
 * more often than allowed:
 * - the number: more than `numberFailuresPerHour` wrong codes within an hour
 *   refuse its codes for an hour (219), whatever else happens to the account —
 *   a successful password login does not reset this;
 * - the code: after `maxAttempts` tries it no longer works (a new one must be
 *   requested).
 * Answers false for a wrong, used or expired code.
 */
export async function consumeSmsCode(deps: AccountDeps, appId: string, limits: SmsLimits, number: string, code: string): Promise<boolean> {
  const now = deps.clock.now();
  const numberFailures = appKey(appId, 'sms-failures', number);
  const throttle = await deps.coord.reserveAttempt(numberFailures, appKey(appId, 'sms-throttle', number), {
    now,
    windowMs: hourMs,
    max: limits.numberFailuresPerHour,
    lockMs: hourMs,
  });
  if (!throttle.allowed) {
    throw new HeraldError(ErrorCode.loginLocked, 'Too many wrong SMS codes for this number. Try again later.');
  }
  const tries = await deps.coord.reserveAttempt(triesKey(appId, number), null, { now, windowMs: smsCodeTtlMs, max: limits.maxAttempts, lockMs: 0 });
  if (!tries.allowed) {
    // The code has had all its tries: it dies.
    await deps.coord.delete(codeKey(appId, number));
    return false;
  }
  const key = codeKey(appId, number);
  // Two callers may read the same code; only the one that takes it wins.
  if ((await deps.coord.get(key)) !== code || (await deps.coord.take(key)) !== code) return false;
  await deps.coord.delete(triesKey(appId, number));
  await deps.coord.delete(numberFailures);
  return true;
}

function sentKey(appId: string, number: string): string {
  return appKey(appId, 'sms-sent', number);
}

function codeKey(appId: string, number: string): string {
  return appKey(appId, 'sms-code', number);
}

function triesKey(appId: string, number: string): string {
  return appKey(appId, 'sms-tries', number);
}
