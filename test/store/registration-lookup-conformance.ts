import { describe, expect, it } from 'vitest';
import { maxRegistrationHolders, type InstallationStore } from '../../src/core/ports/installation-store.ts';
import type { StoredObject } from '../../src/core/ports/object-store.ts';
import { newInstallation, nextTime, type PushDataContext } from './push-data-fixture.ts';
import { newAppId } from './store-conformance-fixture.ts';

const inIdOrder = (installations: StoredObject[]): StoredObject[] => [...installations].sort((a, b) => (a.objectId < b.objectId ? -1 : a.objectId > b.objectId ? 1 : 0));

/** Installations by registrationId: not a unique key, an index that follows every write. */
export function describeRegistrationLookupConformance(context: PushDataContext): void {
  const installations = (): InstallationStore => context.store().installations;

  describe('installations by registrationId', () => {
    it('finds every installation holding a registrationId, in objectId order, and none of another app or for an empty one', async () => {
      const store = installations();
      const appId = newAppId();
      const sharing = [0, 1, 2].map(() => newInstallation({ deviceType: 'android', installationId: `i-${nextTime()}`, registrationId: 'reg-shared', vendor: 'HMS' }));
      const alone = newInstallation({ deviceType: 'android', registrationId: 'CN_reg:alone', vendor: 'oppo', channels: ['news'] });
      const empty = newInstallation({ deviceType: 'android', registrationId: '' });
      const notText = newInstallation({ deviceType: 'android', registrationId: 7 });
      const ios = newInstallation({ deviceType: 'ios', deviceToken: 'reg-shared' });
      await store.insert(appId, sharing[0] as StoredObject);
      await store.insertMany(appId, [...sharing.slice(1), alone, empty, notText, ios]);

      expect(await store.findByRegistrationId(appId, 'reg-shared')).toEqual(inIdOrder(sharing));
      expect(await store.findByRegistrationId(appId, 'CN_reg:alone')).toEqual([alone]);
      expect(await store.findByRegistrationId(appId, '')).toEqual([]);
      expect(await store.findByRegistrationId(appId, '7')).toEqual([]);
      expect(await store.findByRegistrationId(appId, 'reg')).toEqual([]);
      expect(await store.findByRegistrationId(newAppId(), 'reg-shared')).toEqual([]);
    });

    it('follows updates that change, remove or keep the registrationId, and deletes', async () => {
      const store = installations();
      const appId = newAppId();
      const device = newInstallation({ deviceType: 'android', registrationId: 'reg-old', vendor: 'mi', channels: ['a'] });
      const other = newInstallation({ deviceType: 'android', registrationId: 'reg-other', vendor: 'mi' });
      await store.insert(appId, device);
      await store.insert(appId, other);

      const moved = await store.update(appId, device.objectId, [{ op: 'set', path: ['registrationId'], value: 'reg-new' }], { updatedAt: nextTime() });
      expect(await store.findByRegistrationId(appId, 'reg-old')).toEqual([]);
      expect(await store.findByRegistrationId(appId, 'reg-new')).toEqual([moved]);

      // A save that keeps it (a badge, a re-save on launch) answers the document as it is now.
      const badged = await store.update(appId, device.objectId, [{ op: 'set', path: ['badge'], value: 2 }], { updatedAt: nextTime() });
      expect(await store.findByRegistrationId(appId, 'reg-new')).toEqual([badged]);

      await store.update(appId, device.objectId, [{ op: 'delete', path: ['registrationId'] }], { updatedAt: nextTime() });
      expect(await store.findByRegistrationId(appId, 'reg-new')).toEqual([]);
      const back = await store.update(appId, device.objectId, [{ op: 'set', path: ['registrationId'], value: 'reg-other' }], { updatedAt: nextTime() });
      expect(await store.findByRegistrationId(appId, 'reg-other')).toEqual(inIdOrder([back as StoredObject, other]));

      expect(await store.delete(appId, other.objectId)).toBe(true);
      expect(await store.findByRegistrationId(appId, 'reg-other')).toEqual([back]);
      expect(await store.deleteIfUnchanged(appId, device.objectId, (back as StoredObject).updatedAt)).toBe(true);
      expect(await store.findByRegistrationId(appId, 'reg-other')).toEqual([]);
    });

    it(`answers at most ${maxRegistrationHolders} installations sharing one registrationId`, async () => {
      const store = installations();
      const appId = newAppId();
      const many = Array.from({ length: maxRegistrationHolders + 3 }, () => newInstallation({ deviceType: 'android', registrationId: 'reg-everywhere' }));
      await store.insertMany(appId, many);
      expect(await store.findByRegistrationId(appId, 'reg-everywhere')).toEqual(inIdOrder(many).slice(0, maxRegistrationHolders));
    });
  });
}
