import type { Clock } from '../core/clock.ts';
import { ErrorCode, HeraldError } from '../core/errors.ts';
import { appKey, type Coordination } from '../core/ports/coordination.ts';

/** SPEC.md: more than 6 failures within 15 minutes lock the account. */
export const maxFailures = 6;
export const failureWindowMs = 15 * 60 * 1000;
/** Locked until 15 minutes after the last failed login. */
export const lockDurationMs = 15 * 60 * 1000;

export function lockedError(): HeraldError {
  return new HeraldError(ErrorCode.loginLocked, 'Too many failed login attempts. Try again later, or reset your password.');
}

/**
 * Failed-login counting and the account lock, shared by every API node through
 * the coordination port. Attempts made while locked are refused without being
 * checked, so they neither count nor extend the lock.
 */
export class LoginLock {
  private readonly coord: Coordination;
  private readonly clock: Clock;

  constructor(deps: { coord: Coordination; clock: Clock }) {
    this.coord = deps.coord;
    this.clock = deps.clock;
  }

  /**
   * Checks one credential under the lock: 219 while locked (the credential is
   * not even looked at), `rejection()` for a wrong one, which counts as a
   * failure (219 instead when it locks the account), and a clean count on success.
   */
  async attempt(appId: string, subject: string, check: () => Promise<boolean>, rejection: () => HeraldError): Promise<void> {
    await this.assertUnlocked(appId, subject);
    if (!(await check())) {
      if (await this.recordFailure(appId, subject)) throw lockedError();
      throw rejection();
    }
    await this.clearFailures(appId, subject);
  }

  /** Throws 219 while the account is locked. */
  private async assertUnlocked(appId: string, subject: string): Promise<void> {
    const until = await this.coord.get(lockKey(appId, subject));
    if (until !== null && Number(until) > this.clock.now()) throw lockedError();
  }

  /** Records a failure; answers true when this failure locked the account. */
  private async recordFailure(appId: string, subject: string): Promise<boolean> {
    const now = this.clock.now();
    const failures = await this.coord.recordEvent(failureKey(appId, subject), now, failureWindowMs);
    if (failures <= maxFailures) return false;
    await this.coord.set(lockKey(appId, subject), String(now + lockDurationMs), lockDurationMs);
    return true;
  }

  /** A successful login starts the count again. */
  private async clearFailures(appId: string, subject: string): Promise<void> {
    await this.coord.delete(failureKey(appId, subject));
  }
}

function failureKey(appId: string, subject: string): string {
  return appKey(appId, 'login-failures', subject);
}

function lockKey(appId: string, subject: string): string {
  return appKey(appId, 'login-lock', subject);
}
