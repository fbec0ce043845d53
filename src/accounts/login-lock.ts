import { setTimeout as delay } from 'node:timers/promises';
import type { Clock } from '../core/clock.ts';
import { ErrorCode, HeraldError } from '../core/errors.ts';
import { retryDelay } from '../core/retry-delay.ts';
import { appKey, type Coordination } from '../core/ports/coordination.ts';
import type { AccountMetrics, CredentialKind } from './account-metrics.ts';

/** SPEC.md: more than 6 failures within 15 minutes lock the account. */
export const maxFailures = 6;
export const failureWindowMs = 15 * 60 * 1000;
/** Locked until 15 minutes after the attempt that locked it. */
export const lockDurationMs = 15 * 60 * 1000;
/**
 * How long a credential check may be under way before its attempt is taken
 * as failed (a node that died mid-check), and how long an attempt waits for
 * the checks ahead of it when the window is full of them.
 */
export const checkPendingMs = 30_000;
export const busyWaitMs = 5_000;
/** How often a waiting attempt looks again: jittered, so that the attempts waiting on one account do not look in step. */
const busyPolling = { initialDelayMs: 10, maxDelayMs: 250 };

/** Too many of the account's credentials being checked at once to check another now. */
export function busyError(): HeraldError {
  return new HeraldError(ErrorCode.tooManyRequests, 'Too many login attempts for this account at once; try again in a moment.');
}

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
 *
 * Only failures lock: an attempt that finds the window full while some of
 * its attempts are still being checked waits for them (a correct one clears
 * the window and lets it in; failed ones lock it out), so that a burst of
 * correct logins, an app's retries for one user, never locks the account.
 * After `busyWaitMs` it is answered 429 instead, locking nothing.
 */
export class LoginLock {
  private readonly coord: Coordination;
  private readonly clock: Clock;
  private readonly metrics: AccountMetrics | undefined;

  private readonly busyWaitMs: number;

  constructor(deps: { coord: Coordination; clock: Clock; metrics?: AccountMetrics; busyWaitMs?: number }) {
    this.coord = deps.coord;
    this.clock = deps.clock;
    this.metrics = deps.metrics;
    this.busyWaitMs = deps.busyWaitMs ?? busyWaitMs;
  }

  /**
   * Checks one credential under the lock: 219 while locked or when this
   * attempt would exceed the limit (the credential is then not looked at);
   * `rejection()` for a wrong credential, which stays counted; success clears
   * the count. `subject` is the user's id (or, before a user exists, what the
   * credential names).
   */
  async attempt(appId: string, subject: string, kind: CredentialKind, check: () => Promise<boolean>, rejection: () => HeraldError): Promise<void> {
    const attempt = await this.#reserve(appId, subject);
    let correct: boolean;
    try {
      correct = await check();
    } finally {
      // Judged either way; a check that threw counts as failed, as one that answered false.
      await this.coord.settleAttempt(failureKey(appId, subject), attempt);
    }
    if (!correct) {
      this.metrics?.credentialRejected(appId, kind);
      throw rejection();
    }
    await this.coord.delete(failureKey(appId, subject));
  }

  /** Reserves an attempt, waiting while the window is full of attempts under way; answers the attempt. */
  async #reserve(appId: string, subject: string): Promise<string> {
    const deadline = Date.now() + this.busyWaitMs;
    for (let busy = 1; ; busy++) {
      const now = this.clock.now();
      const reservation = await this.coord.reserveAttempt(failureKey(appId, subject), lockKey(appId, subject), {
        now,
        windowMs: failureWindowMs,
        max: maxFailures,
        lockMs: lockDurationMs,
        pendingMs: checkPendingMs,
      });
      if (reservation.allowed) return reservation.attempt;
      if (!reservation.busy) {
        if (reservation.lockedUntil === now + lockDurationMs) this.metrics?.accountLocked(appId);
        throw lockedError();
      }
      const pauseMs = retryDelay(busy, busyPolling);
      if (Date.now() + pauseMs > deadline) throw busyError();
      await delay(pauseMs);
    }
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
