import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/core/ports/object-store.ts';
import { conformanceClock, newAppId, type ConformanceContext } from './store-conformance-fixture.ts';

const now = conformanceClock.now();
const hour = 3_600_000;

/** Single-use, expiring tokens. */
export function describeTokenConformance(context: ConformanceContext): void {
  describe('tokens', () => {
    it('answers a token once: the second take finds nothing', async () => {
      const store = context.store();
      const appId = newAppId();
      await store.putToken(appId, 'verifyEmail', 'hash1', { userId: 'u1', email: 'a@example.com' }, now + hour);
      expect(await store.peekToken(appId, 'verifyEmail', 'hash1', now)).toEqual({ userId: 'u1', email: 'a@example.com' });
      expect(await store.takeToken(appId, 'verifyEmail', 'hash1', now)).toEqual({ userId: 'u1', email: 'a@example.com' });
      expect(await store.takeToken(appId, 'verifyEmail', 'hash1', now)).toBeNull();
      expect(await store.peekToken(appId, 'verifyEmail', 'hash1', now)).toBeNull();
    });

    it('lets exactly one of many concurrent takes through two instances win', async () => {
      const stores = [context.store(), await context.openAnother()] as const;
      const storeFor = (index: number): Store => stores[index % 2 === 0 ? 0 : 1];
      const appId = newAppId();
      await stores[0].putToken(appId, 'resetPassword', 'hash', { userId: 'u1' }, now + hour);
      const taken = await Promise.all(
        Array.from({ length: 10 }, (_, index) => storeFor(index).takeToken(appId, 'resetPassword', 'hash', now)),
      );
      expect(taken.filter((payload) => payload !== null)).toEqual([{ userId: 'u1' }]);
    });

    it('treats a token as expired from its expiry time on', async () => {
      const store = context.store();
      const appId = newAppId();
      await store.putToken(appId, 'resetPassword', 'early', { userId: 'u1' }, now + hour);
      await store.putToken(appId, 'resetPassword', 'late', { userId: 'u2' }, now + hour);
      expect(await store.peekToken(appId, 'resetPassword', 'early', now + hour - 1)).toEqual({ userId: 'u1' });
      expect(await store.peekToken(appId, 'resetPassword', 'early', now + hour)).toBeNull();
      expect(await store.takeToken(appId, 'resetPassword', 'early', now + hour)).toBeNull();
      expect(await store.takeToken(appId, 'resetPassword', 'late', now + hour - 1)).toEqual({ userId: 'u2' });
    });

    it('keeps tokens apart by app and kind', async () => {
      const store = context.store();
      const appId = newAppId();
      await store.putToken(appId, 'verifyEmail', 'same', { userId: 'u1' }, now + hour);
      expect(await store.takeToken(newAppId(), 'verifyEmail', 'same', now)).toBeNull();
      expect(await store.takeToken(appId, 'resetPassword', 'same', now)).toBeNull();
      expect(await store.takeToken(appId, 'verifyEmail', 'unknown', now)).toBeNull();
      expect(await store.takeToken(appId, 'verifyEmail', 'same', now)).toEqual({ userId: 'u1' });
    });
  });
}
