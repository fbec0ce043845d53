import type { Clock } from '../core/clock.ts';
import { ErrorCode, HeraldError } from '../core/errors.ts';
import { appKey, type Coordination } from '../core/ports/coordination.ts';
import type { AccountMetrics, CredentialKind } from './account-metrics.ts';

/** SPEC.md: more than 6 failures within 15 minutes lock the account. */
export const maxFailures = 6;
export const failureWindowMs = 15 * 60 * 1000;
/** Locked until 15 minutes after the attempt that locked it. */
export const lockDurationMs = 15 * 60 * 1000;

export function lockedError(): HeraldError {
  return new HeraldError(ErrorCode.loginLocked, 'Too many failed login attempts. Try again later, or reset your password.');
}

/**
 * The account lock, shared by every API node through the coordination port.
 * Every credential check of a user (password login, SMS code, old password)
 * goes through `attempt`, which reserves the attempt in the failure window
 * *before* the credential is looked at, in one atomic step: however many
 * requests arrive at once, on however many nodes, at most `maxFailures`
 * credentials are checked per window. The attempt after them is refused and
 * locks the account; attempts made while locked are refused unchecked and
 * neither count nor extend the lock. A correct credential clears the window.
 */
export class LoginLock {
  private readonly coord: Coordination;
  private readonly clock: Clock;
  private readonly metrics: AccountMetrics | undefined;

  constructor(deps: { coord: Coordination; clock: Clock; metrics?: AccountMetrics }) {
    this.coord = deps.coord;
    this.clock = deps.clock;
    this.metrics = deps.metrics;
  }

  /**
   * Checks one credential under the lock: 219 while locked or when this
   * attempt would exceed the limit (the credential is then not looked at);
   * `rejection()` for a wrong credential, which stays counted; success clears
   * the count. `subject` is the user's id (or, before a user exists, what the
   * credential names).
   */
  async attempt(appId: string, subject: string, kind: CredentialKind, check: () => Promise<boolean>, rejection: () => HeraldError): Promise<void> {
    const now = this.clock.now();
    const reservation = await this.coord.reserveAttempt(failureKey(appId, subject), lockKey(appId, subject), {
      now,
      windowMs: failureWindowMs,
      max: maxFailures,
      lockMs: lockDurationMs,
    });
    if (!reservation.allowed) {
      if (reservation.lockedUntil === now + lockDurationMs) this.metrics?.accountLocked(appId);
      throw lockedError();
    }
    if (!(await check())) {
      this.metrics?.credentialRejected(appId, kind);
      throw rejection();
    }
    await this.coord.delete(failureKey(appId, subject));
  }

  /** When the lock on `subject` ends (ms), or null when it is not locked at `clock.now()`. */
  async lockedUntil(appId: string, subject: string): Promise<number | null> {
    const until = Number((await this.coord.get(lockKey(appId, subject))) ?? 0);
    return until > this.clock.now() ? until : null;
  }

  /** Lifts the lock on `subject` and forgets its failures, as a correct credential would (the console's unlock). */
  async unlock(appId: string, subject: string): Promise<void> {
    await this.coord.delete(lockKey(appId, subject));
    await this.coord.delete(failureKey(appId, subject));
  }
}

function failureKey(appId: string, subject: string): string {
  return appKey(appId, 'login-failures', subject);
}

function lockKey(appId: string, subject: string): string {
  return appKey(appId, 'login-lock', subject);
}
