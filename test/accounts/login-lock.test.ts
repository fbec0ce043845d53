import { afterEach, describe, expect, it } from 'vitest';
import { checkPendingMs, LoginLock } from '../../src/accounts/login-lock.ts';
import { ErrorCode, HeraldError } from '../../src/core/errors.ts';
import { MemoryCoordination } from '../../src/coord/memory/memory-coordination.ts';
import { ManualClock } from '../support/manual-clock.ts';

/** A credential check that answers when told to. */
function heldCheck(): { check: () => Promise<boolean>; answer: (correct: boolean) => void; fail: (error: Error) => void } {
  const held = Promise.withResolvers<boolean>();
  return { check: () => held.promise, answer: held.resolve, fail: held.reject };
}

const wrong = () => new HeraldError(ErrorCode.passwordMismatch, 'wrong');

describe('LoginLock', () => {
  const clock = new ManualClock();
  const coord = new MemoryCoordination({ clock });
  const locked: string[] = [];
  const lock = new LoginLock({ coord, clock, busyWaitMs: 300, metrics: { credentialRejected: () => undefined, accountLocked: (appId) => locked.push(appId), smsRefused: () => undefined } });
  let subject = 0;
  const attempt = (user: string, check: () => Promise<boolean>) => lock.attempt('app', user, 'password', check, wrong);
  afterEach(() => {
    locked.length = 0;
  });

  it('lets an attempt that finds six checks under way wait for them, and in when one of them is right', async () => {
    const user = `u${subject++}`;
    const checks = Array.from({ length: 6 }, () => heldCheck());
    const first = checks.map((held) => attempt(user, held.check));
    const seventh = attempt(user, () => Promise.resolve(true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    checks[0]?.answer(true);
    await expect(seventh).resolves.toBeUndefined();
    for (const held of checks.slice(1)) held.answer(true);
    await Promise.all(first);
    expect(await lock.lockedUntil('app', user)).toBeNull();
  });

  it('locks the attempt that finds six failed checks, once they are judged, and counts a check that threw as failed', async () => {
    const user = `u${subject++}`;
    const checks = Array.from({ length: 6 }, () => heldCheck());
    const first = checks.map((held) => attempt(user, held.check).catch((error: unknown) => error));
    const seventh = attempt(user, () => Promise.resolve(true)).catch((error: unknown) => error);
    for (const held of checks.slice(0, 5)) held.answer(false);
    checks[5]?.fail(new Error('the store went away'));
    expect((await Promise.all(first)).map((error) => (error instanceof HeraldError ? error.code : (error as Error).message))).toEqual([
      ErrorCode.passwordMismatch,
      ErrorCode.passwordMismatch,
      ErrorCode.passwordMismatch,
      ErrorCode.passwordMismatch,
      ErrorCode.passwordMismatch,
      'the store went away',
    ]);
    expect(await seventh).toMatchObject({ code: ErrorCode.loginLocked });
    expect(locked).toEqual(['app']);
    expect(await lock.lockedUntil('app', user)).toBe(clock.now() + 15 * 60_000);
  });

  it('answers 429, locking nothing, when the checks under way take longer than it waits', async () => {
    const user = `u${subject++}`;
    const checks = Array.from({ length: 6 }, () => heldCheck());
    const first = checks.map((held) => attempt(user, held.check));
    await expect(attempt(user, () => Promise.resolve(true))).rejects.toMatchObject({ code: ErrorCode.tooManyRequests, status: 429 });
    expect(await lock.lockedUntil('app', user)).toBeNull();
    for (const held of checks) held.answer(true);
    await Promise.all(first);
  });

  it(`takes a check under way for ${checkPendingMs / 1000} s as failed (its node died), so the next attempt locks`, async () => {
    const user = `u${subject++}`;
    const checks = Array.from({ length: 6 }, () => heldCheck());
    const first = checks.map((held) => attempt(user, held.check).catch(() => undefined));
    clock.advance(checkPendingMs);
    await expect(attempt(user, () => Promise.resolve(true))).rejects.toMatchObject({ code: ErrorCode.loginLocked });
    for (const held of checks) held.answer(false);
    await Promise.all(first);
  });
});
