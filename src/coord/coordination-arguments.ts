import type { AttemptLimit } from '../core/ports/coordination.ts';
import type { TokenRequest } from '../core/ports/token-buckets.ts';

/**
 * Argument checks shared by every coordination adapter, so that a bad call is
 * refused the same way whichever backend runs. They throw `RangeError`, a
 * programming error rather than an outage.
 */

export function checkTtl(ms: number): void {
  if (!Number.isFinite(ms) || ms <= 0) throw new RangeError(`TTL and window must be positive milliseconds, got ${ms}`);
}

export function checkLeaseName(name: string): void {
  if (name === '') throw new RangeError('a lease needs a name');
}

export function checkTokenRequest(request: TokenRequest): void {
  const { ratePerSecond, burst, requested, now } = request;
  if (!Number.isFinite(ratePerSecond) || ratePerSecond <= 0) throw new RangeError(`ratePerSecond must be positive, got ${ratePerSecond}`);
  if (!Number.isSafeInteger(burst) || burst < 1) throw new RangeError(`burst must be a whole number of at least 1, got ${burst}`);
  if (!Number.isSafeInteger(requested) || requested < 1) throw new RangeError(`requested must be a whole number of at least 1, got ${requested}`);
  if (!Number.isFinite(now)) throw new RangeError(`now must be a time in milliseconds, got ${now}`);
  const returned = request.returned ?? 0;
  if (!Number.isSafeInteger(returned) || returned < 0) throw new RangeError(`returned must be a whole number of at least 0, got ${returned}`);
}

export function checkAttemptLimit(limit: AttemptLimit): void {
  const { now, windowMs, max, lockMs } = limit;
  if (!Number.isFinite(now)) throw new RangeError(`now must be a time in milliseconds, got ${now}`);
  checkTtl(windowMs);
  if (!Number.isSafeInteger(max) || max < 1) throw new RangeError(`max must be a whole number of at least 1, got ${max}`);
  if (!Number.isFinite(lockMs) || lockMs < 0) throw new RangeError(`lockMs must be zero or more milliseconds, got ${lockMs}`);
  if (limit.pendingMs !== undefined) {
    checkTtl(limit.pendingMs);
    if (limit.pendingMs > windowMs) throw new RangeError(`pendingMs must be at most the window, got ${limit.pendingMs} over ${windowMs}`);
  }
}
