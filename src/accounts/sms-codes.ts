import { randomInt } from 'node:crypto';
import { appDisplayName } from '../config/schema.ts';
import { ErrorCode, HeraldError, fail } from '../core/errors.ts';
import { appKey } from '../core/ports/coordination.ts';
import type { AccountDeps, AccountResult, Caller } from './account-deps.ts';
import { checkMobilePhone, requireObject } from './field-rules.ts';

/** SPEC-NOTES.md: 6 digits, valid 10 minutes, at most one per number per minute. */
export const smsCodeTtlMs = 10 * 60 * 1000;
export const smsCodeIntervalMs = 60 * 1000;

/** POST /1.1/requestSmsCode. */
export async function requestSmsCode(deps: AccountDeps, caller: Caller, body: unknown): Promise<AccountResult> {
  const fields = requireObject(body);
  if (fields.mobilePhoneNumber === undefined || fields.mobilePhoneNumber === '') fail(ErrorCode.mobilePhoneMissing, 'The mobile phone number is missing.');
  const number = checkMobilePhone(fields.mobilePhoneNumber);
  const appId = caller.app.config.id;
  const allowed = await deps.coord.setIfAbsent(sentKey(appId, number), '1', smsCodeIntervalMs);
  if (!allowed) throw new HeraldError(ErrorCode.tooManyRequests, 'An SMS code was sent to this number less than a minute ago; try again later.');
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
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

/** A wrong or expired code; SPEC-NOTES has no code of its own for it. */
export function wrongSmsCode(): HeraldError {
  return new HeraldError(ErrorCode.internal, 'The SMS code is wrong or has expired.');
}

export function readSmsCode(value: unknown): string {
  if (typeof value !== 'string' || !/^[0-9]{6}$/.test(value)) fail(ErrorCode.invalidType, 'smsCode must be a string of 6 digits');
  return value;
}

/**
 * Uses up the code sent to `number` when `code` is it. A wrong guess leaves the
 * code in place; the caller counts it as a failed login.
 */
export async function consumeSmsCode(deps: AccountDeps, appId: string, number: string, code: string): Promise<boolean> {
  const key = codeKey(appId, number);
  if ((await deps.coord.get(key)) !== code) return false;
  // Two callers may read the same code; only the one that takes it wins.
  return (await deps.coord.take(key)) === code;
}

function sentKey(appId: string, number: string): string {
  return appKey(appId, 'sms-sent', number);
}

function codeKey(appId: string, number: string): string {
  return appKey(appId, 'sms-code', number);
}
