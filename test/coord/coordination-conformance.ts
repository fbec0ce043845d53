import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock, type Clock } from '../../src/core/clock.ts';
import { appKey, type AttemptLimit, type Coordination } from '../../src/core/ports/coordination.ts';
import { ManualClock } from '../support/manual-clock.ts';

/** An adapter under test, with the time it expires keys by. */
export interface CoordinationUnderTest {
  coord: Coordination;
  /** The adapter's time; `recordEvent` is called with its `now()`. */
  clock: Clock;
  /** Lets `ms` pass on `clock`: moves a manual clock, or really waits for a real one. */
  advance(ms: number): Promise<void>;
  cleanup(): Promise<void>;
}

/** Time for adapters that take an injected clock: advancing is instant. */
export function manualTime(): { clock: ManualClock; advance(ms: number): Promise<void> } {
  const clock = new ManualClock();
  return {
    clock,
    advance: (ms) => {
      clock.advance(ms);
      return Promise.resolve();
    },
  };
}

/**
 * Time for adapters whose TTLs run on a server's clock (Redis leases):
 * advancing really waits `ms`, and no more. The server may expire a key a
 * little later than that, so a suite on real time awaits an expiry with a
 * deadline rather than expecting it at once.
 */
export function realTime(): { clock: Clock; advance(ms: number): Promise<void> } {
  return { clock: systemClock, advance: (ms) => sleep(ms) };
}

// Values expire by the adapter's clock, and every adapter runs this suite on a
// manual clock, so advancing is instant and expiry exact to the millisecond. The
// TTL is long because Redis is also given it and drops the key by its own clock:
// real time that passes while a loaded machine runs the test must not do that.
const ttl = 60_000;

/**
 * The behaviour every `Coordination` adapter must share. Each test uses its own
 * random key prefix, so adapters backed by a shared server need no flushing.
 */
export function describeCoordinationConformance(name: string, make: () => Promise<CoordinationUnderTest>): void {
  describe(`${name} (Coordination conformance)`, () => {
    let subject: CoordinationUnderTest;
    let coord: Coordination;
    let prefix: string;
    const key = (suffix: string): string => `${prefix}:${suffix}`;

    beforeEach(async () => {
      subject = await make();
      coord = subject.coord;
      prefix = `conformance:${randomUUID()}`;
    });

    afterEach(async () => {
      await subject.cleanup();
    });

    it('answers ping', async () => {
      await expect(coord.ping()).resolves.toBeUndefined();
    });

    it('reads null for a key never set', async () => {
      expect(await coord.get(key('missing'))).toBeNull();
    });

    it('reads back what set wrote, and set replaces it', async () => {
      await coord.set(key('a'), 'one', ttl);
      expect(await coord.get(key('a'))).toBe('one');
      await coord.set(key('a'), 'two', ttl);
      expect(await coord.get(key('a'))).toBe('two');
    });

    it('sets with setIfAbsent only while the key is absent', async () => {
      expect(await coord.setIfAbsent(key('flag'), 'first', ttl)).toBe(true);
      expect(await coord.setIfAbsent(key('flag'), 'second', ttl)).toBe(false);
      expect(await coord.get(key('flag'))).toBe('first');
    });

    it('lets exactly one of many concurrent setIfAbsent calls win', async () => {
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, index) => coord.setIfAbsent(key('race'), `writer-${index}`, ttl)),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = results.indexOf(true);
      expect(await coord.get(key('race'))).toBe(`writer-${winner}`);
    });

    it('keeps a key until its TTL has passed, then reads it as absent', async () => {
      await coord.set(key('short'), 'value', ttl);
      await subject.advance(ttl - 1);
      expect(await coord.get(key('short'))).toBe('value');
      await subject.advance(1);
      expect(await coord.get(key('short'))).toBeNull();
    });

    it('lets setIfAbsent take a key again once it expired, and not a moment before', async () => {
      expect(await coord.setIfAbsent(key('lease'), 'old', ttl)).toBe(true);
      await subject.advance(ttl - 1);
      expect(await coord.setIfAbsent(key('lease'), 'early', ttl)).toBe(false);
      await subject.advance(1);
      expect(await coord.setIfAbsent(key('lease'), 'new', ttl)).toBe(true);
      expect(await coord.get(key('lease'))).toBe('new');
    });

    it('claims a push req_id once: a repeat within the TTL loses, one after it wins', async () => {
      const reqId = appKey(prefix, 'push-req-id', 'campaign-42');
      expect(await coord.setIfAbsent(reqId, 'push-1', ttl)).toBe(true);
      await subject.advance(ttl - 1);
      expect(await coord.setIfAbsent(reqId, 'push-2', ttl)).toBe(false);
      expect(await coord.get(reqId)).toBe('push-1');
      await subject.advance(1);
      expect(await coord.setIfAbsent(reqId, 'push-3', ttl)).toBe(true);
      expect(await coord.get(reqId)).toBe('push-3');
    });

    it('restarts the TTL when set overwrites a key', async () => {
      await coord.set(key('renewed'), 'old', ttl);
      await subject.advance(ttl - 1);
      await coord.set(key('renewed'), 'new', ttl);
      // The first TTL is over; the second runs from the overwrite.
      await subject.advance(1);
      expect(await coord.get(key('renewed'))).toBe('new');
      await subject.advance(ttl - 2);
      expect(await coord.get(key('renewed'))).toBe('new');
      await subject.advance(1);
      expect(await coord.get(key('renewed'))).toBeNull();
    });

    it('removes a key on take and answers its value once', async () => {
      await coord.set(key('code'), '123456', ttl);
      expect(await coord.take(key('code'))).toBe('123456');
      expect(await coord.take(key('code'))).toBeNull();
      expect(await coord.get(key('code'))).toBeNull();
    });

    it('gives a taken value to exactly one of many concurrent takers', async () => {
      await coord.set(key('once'), 'token', ttl);
      const results = await Promise.all(Array.from({ length: 20 }, () => coord.take(key('once'))));
      expect(results.filter((result) => result === 'token')).toHaveLength(1);
      expect(results.filter((result) => result === null)).toHaveLength(19);
    });

    it('answers null when taking an expired key', async () => {
      await coord.set(key('stale'), 'value', ttl);
      await subject.advance(ttl);
      expect(await coord.take(key('stale'))).toBeNull();
    });

    it('deletes a key, and deleting a missing key is harmless', async () => {
      await coord.set(key('gone'), 'value', ttl);
      await coord.delete(key('gone'));
      expect(await coord.get(key('gone'))).toBeNull();
      await expect(coord.delete(key('never'))).resolves.toBeUndefined();
    });

    it('counts events inside the window, this one included', async () => {
      const start = subject.clock.now();
      expect(await coord.recordEvent(key('failures'), start, 1000)).toBe(1);
      expect(await coord.recordEvent(key('failures'), start + 100, 1000)).toBe(2);
      expect(await coord.recordEvent(key('failures'), start + 200, 1000)).toBe(3);
    });

    it('counts two events recorded at the same instant as two', async () => {
      const now = subject.clock.now();
      expect(await coord.recordEvent(key('burst'), now, 1000)).toBe(1);
      expect(await coord.recordEvent(key('burst'), now, 1000)).toBe(2);
    });

    it('forgets events that fell out of the window', async () => {
      const start = subject.clock.now();
      await coord.recordEvent(key('sliding'), start, 1000);
      await coord.recordEvent(key('sliding'), start + 100, 1000);
      await coord.recordEvent(key('sliding'), start + 200, 1000);
      // The window ending at start + 1150 begins after start + 150: two events remain.
      expect(await coord.recordEvent(key('sliding'), start + 1150, 1000)).toBe(2);
      // An event exactly windowMs old is outside the window.
      expect(await coord.recordEvent(key('sliding'), start + 2150, 1000)).toBe(1);
    });

    it('forgets events once their window has passed on the adapter clock', async () => {
      await coord.recordEvent(key('idle'), subject.clock.now(), ttl);
      await coord.recordEvent(key('idle'), subject.clock.now(), ttl);
      await subject.advance(ttl - 1);
      expect(await coord.recordEvent(key('idle'), subject.clock.now(), ttl)).toBe(3);
      await subject.advance(1);
      // The first two are exactly a window old now; only the third and this one count.
      expect(await coord.recordEvent(key('idle'), subject.clock.now(), ttl)).toBe(2);
    });

    it('starts counting afresh after delete', async () => {
      const now = subject.clock.now();
      await coord.recordEvent(key('reset'), now, 1000);
      await coord.delete(key('reset'));
      expect(await coord.recordEvent(key('reset'), now + 1, 1000)).toBe(1);
    });

    describe('reserveAttempt', () => {
      const limit = (now: number, overrides: Partial<AttemptLimit> = {}): AttemptLimit => ({ now, windowMs: 1000, max: 3, lockMs: 5000, ...overrides });

      it('allows max attempts in a window and refuses the next without counting it', async () => {
        const now = subject.clock.now();
        const answers = [];
        for (let i = 0; i < 5; i++) answers.push(await coord.reserveAttempt(key('window'), null, limit(now + i)));
        expect(answers.map((answer) => answer.allowed)).toEqual([true, true, true, false, false]);
        expect(answers.map((answer) => answer.count)).toEqual([1, 2, 3, 3, 3]);
        expect(answers.every((answer) => answer.lockedUntil === 0)).toBe(true);
        // Refusals were not counted: once the first attempt leaves the window, one more fits.
        expect((await coord.reserveAttempt(key('window'), null, limit(now + 1000))).allowed).toBe(true);
        expect((await coord.reserveAttempt(key('window'), null, limit(now + 1000))).allowed).toBe(false);
      });

      it('lets exactly max of a burst of concurrent attempts through', async () => {
        const now = subject.clock.now();
        const answers = await Promise.all(
          Array.from({ length: 100 }, () => coord.reserveAttempt(key('burst'), key('burst-lock'), limit(now, { max: 6 }))),
        );
        expect(answers.filter((answer) => answer.allowed)).toHaveLength(6);
        expect(answers.filter((answer) => !answer.allowed).every((answer) => answer.lockedUntil === now + 5000)).toBe(true);
      });

      it('locks on the refusal of a full window, refuses everything while locked, and allows again when the lock ends', async () => {
        const start = subject.clock.now();
        for (let i = 0; i < 3; i++) expect((await coord.reserveAttempt(key('w'), key('lock'), limit(start))).allowed).toBe(true);
        const refused = await coord.reserveAttempt(key('w'), key('lock'), limit(start + 10));
        expect(refused).toEqual({ allowed: false, count: 3, lockedUntil: start + 5010, busy: false, attempt: '' });
        // The window has emptied, but the lock holds until its end on the caller's clock.
        const locked = await coord.reserveAttempt(key('w'), key('lock'), limit(start + 5009));
        expect(locked).toMatchObject({ allowed: false, lockedUntil: start + 5010 });
        const after = await coord.reserveAttempt(key('w'), key('lock'), limit(start + 5010));
        expect(after).toMatchObject({ allowed: true, count: 1, lockedUntil: 0, busy: false });
      });

      it('does not extend a lock with attempts made while locked', async () => {
        const start = subject.clock.now();
        for (let i = 0; i < 4; i++) await coord.reserveAttempt(key('w2'), key('lock2'), limit(start));
        await coord.reserveAttempt(key('w2'), key('lock2'), limit(start + 4000));
        expect((await coord.reserveAttempt(key('w2'), key('lock2'), limit(start + 5000))).allowed).toBe(true);
      });

      it('forgets the attempts of a deleted window', async () => {
        const now = subject.clock.now();
        for (let i = 0; i < 3; i++) await coord.reserveAttempt(key('cleared'), null, limit(now));
        await coord.delete(key('cleared'));
        expect(await coord.reserveAttempt(key('cleared'), null, limit(now))).toMatchObject({ allowed: true, count: 1, lockedUntil: 0 });
      });

      it('rejects a limit that makes no sense, counting nothing', async () => {
        const now = subject.clock.now();
        await expect(coord.reserveAttempt(key('bad'), null, limit(now, { max: 0 }))).rejects.toThrow(
          new RangeError('max must be a whole number of at least 1, got 0'),
        );
        await expect(coord.reserveAttempt(key('bad'), null, limit(now, { windowMs: 0 }))).rejects.toThrow(
          new RangeError('TTL and window must be positive milliseconds, got 0'),
        );
        await expect(coord.reserveAttempt(key('bad'), null, limit(Number.NaN))).rejects.toThrow(new RangeError('now must be a time in milliseconds, got NaN'));
        await expect(coord.reserveAttempt(key('bad'), key('bad-lock'), limit(now, { lockMs: -1 }))).rejects.toThrow(
          new RangeError('lockMs must be zero or more milliseconds, got -1'),
        );
        await expect(coord.reserveAttempt(key('bad'), key('bad-lock'), limit(now, { pendingMs: 0 }))).rejects.toThrow(
          new RangeError('TTL and window must be positive milliseconds, got 0'),
        );
        await expect(coord.reserveAttempt(key('bad'), key('bad-lock'), limit(now, { pendingMs: 1001 }))).rejects.toThrow(
          new RangeError('pendingMs must be at most the window, got 1001 over 1000'),
        );
        expect(await coord.reserveAttempt(key('bad'), null, limit(now))).toMatchObject({ allowed: true, count: 1, lockedUntil: 0 });
      });

      describe('with attempts pending until settled', () => {
        const pending = (now: number, overrides: Partial<AttemptLimit> = {}) => limit(now, { windowMs: 10_000, pendingMs: 2000, ...overrides });

        it('refuses a full window of attempts under way as busy, locking nothing, and locks once they are settled', async () => {
          const now = subject.clock.now();
          const allowed = [];
          for (let i = 0; i < 3; i++) allowed.push(await coord.reserveAttempt(key('p'), key('p-lock'), pending(now)));
          expect(allowed.map((answer) => answer.allowed)).toEqual([true, true, true]);
          expect(new Set(allowed.map((answer) => answer.attempt)).size).toBe(3);
          expect(allowed.every((answer) => answer.attempt !== '')).toBe(true);
          expect(await coord.reserveAttempt(key('p'), key('p-lock'), pending(now + 1))).toEqual({ allowed: false, count: 3, lockedUntil: 0, busy: true, attempt: '' });
          expect(await coord.get(key('p-lock'))).toBeNull();
          // Two judged, one still under way: still busy.
          for (const answer of allowed.slice(0, 2)) await coord.settleAttempt(key('p'), answer.attempt);
          expect(await coord.reserveAttempt(key('p'), key('p-lock'), pending(now + 2))).toMatchObject({ allowed: false, busy: true, lockedUntil: 0 });
          // All three judged (settling twice changes nothing): the next attempt locks.
          for (const answer of allowed) await coord.settleAttempt(key('p'), answer.attempt);
          expect(await coord.reserveAttempt(key('p'), key('p-lock'), pending(now + 3))).toEqual({
            allowed: false,
            count: 3,
            lockedUntil: now + 5003,
            busy: false,
            attempt: '',
          });
        });

        it('lets a correct attempt clear the window while others wait, so the waiting ones get in', async () => {
          const now = subject.clock.now();
          for (let i = 0; i < 3; i++) await coord.reserveAttempt(key('q'), key('q-lock'), pending(now));
          expect((await coord.reserveAttempt(key('q'), key('q-lock'), pending(now))).busy).toBe(true);
          await coord.delete(key('q'));
          expect(await coord.reserveAttempt(key('q'), key('q-lock'), pending(now + 1))).toMatchObject({ allowed: true, count: 1, busy: false });
        });

        it('takes an attempt left pending past pendingMs as judged', async () => {
          const now = subject.clock.now();
          for (let i = 0; i < 3; i++) await coord.reserveAttempt(key('r'), key('r-lock'), pending(now));
          expect((await coord.reserveAttempt(key('r'), key('r-lock'), pending(now + 1999))).busy).toBe(true);
          expect(await coord.reserveAttempt(key('r'), key('r-lock'), pending(now + 2000))).toMatchObject({ allowed: false, busy: false, lockedUntil: now + 7000 });
        });

        it('lets exactly max of a concurrent burst through and answers the rest busy, locking nothing', async () => {
          const now = subject.clock.now();
          const answers = await Promise.all(Array.from({ length: 100 }, () => coord.reserveAttempt(key('pb'), key('pb-lock'), pending(now, { max: 6 }))));
          expect(answers.filter((answer) => answer.allowed)).toHaveLength(6);
          expect(answers.filter((answer) => !answer.allowed).every((answer) => answer.busy && answer.lockedUntil === 0)).toBe(true);
          expect(await coord.get(key('pb-lock'))).toBeNull();
        });

        it('settles nothing for an attempt it does not hold', async () => {
          const now = subject.clock.now();
          await coord.settleAttempt(key('none'), 'no-such-attempt');
          const held = await coord.reserveAttempt(key('s'), key('s-lock'), pending(now, { max: 1 }));
          await coord.settleAttempt(key('s'), 'no-such-attempt');
          expect((await coord.reserveAttempt(key('s'), key('s-lock'), pending(now, { max: 1 }))).busy).toBe(true);
          await coord.settleAttempt(key('s'), held.attempt);
          expect((await coord.reserveAttempt(key('s'), key('s-lock'), pending(now, { max: 1 }))).lockedUntil).toBe(now + 5000);
        });
      });
    });

    it('keeps keys apart', async () => {
      await coord.set(key('left'), 'L', ttl);
      await coord.set(key('right'), 'R', ttl);
      expect(await coord.take(key('left'))).toBe('L');
      expect(await coord.get(key('right'))).toBe('R');
      await coord.delete(key('right'));
      expect(await coord.setIfAbsent(key('left'), 'L2', ttl)).toBe(true);

      const now = subject.clock.now();
      await coord.recordEvent(key('events-a'), now, 1000);
      await coord.recordEvent(key('events-a'), now + 1, 1000);
      expect(await coord.recordEvent(key('events-b'), now + 2, 1000)).toBe(1);
    });

    it('rejects a TTL that is not positive, writing nothing', async () => {
      await expect(coord.set(key('bad'), 'value', 0)).rejects.toThrow(new RangeError('TTL and window must be positive milliseconds, got 0'));
      await expect(coord.setIfAbsent(key('bad'), 'value', -1)).rejects.toThrow(new RangeError('TTL and window must be positive milliseconds, got -1'));
      await expect(coord.recordEvent(key('bad'), subject.clock.now(), Number.NaN)).rejects.toThrow(
        new RangeError('TTL and window must be positive milliseconds, got NaN'),
      );
      expect(await coord.get(key('bad'))).toBeNull();
      expect(await coord.recordEvent(key('bad'), subject.clock.now(), 1000)).toBe(1);
    });

    it('closes more than once without error', async () => {
      await coord.close();
      await expect(coord.close()).resolves.toBeUndefined();
    });
  });
}
