import { afterAll, beforeAll, describe } from 'vitest';
import type { Store } from '../../src/core/ports/object-store.ts';
import { describeInstallationConformance } from './installation-store-conformance.ts';
import type { PushDataContext, PushDataFixture } from './push-data-fixture.ts';
import { describePushConformance } from './push-store-conformance.ts';
import { describeRegistrationLookupConformance } from './registration-lookup-conformance.ts';
import { describeScheduledPushConformance } from './scheduled-push-store-conformance.ts';

/**
 * The behaviour every adapter of the push-data ports (installations, push
 * records, scheduled pushes) must show, run unchanged against each one.
 * `makeFixture` is called once; tests isolate themselves with random app ids,
 * and the scheduled-push tests remove what they add.
 */
export function describePushDataConformance(name: string, makeFixture: () => Promise<PushDataFixture>): void {
  describe(`${name} push data conformance`, () => {
    let fixture: PushDataFixture | undefined;
    const others: Store[] = [];

    beforeAll(async () => {
      fixture = await makeFixture();
    });

    afterAll(async () => {
      for (const other of others) await other.close();
      await fixture?.cleanup();
    });

    const ready = (): PushDataFixture => {
      if (fixture === undefined) throw new Error('push data fixture is not ready');
      return fixture;
    };
    const context: PushDataContext = {
      store: () => ready().store,
      openAnother: async () => {
        const other = await ready().openAnother();
        others.push(other);
        return other;
      },
      fixture: ready,
    };

    describeInstallationConformance(context);
    describeRegistrationLookupConformance(context);
    describePushConformance(context);
    describeScheduledPushConformance(context);
  });
}
