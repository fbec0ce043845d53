import { afterAll, beforeAll, describe } from 'vitest';
import type { Clock } from '../../src/core/clock.ts';
import type { ClassDescriptors, Store } from '../../src/core/ports/object-store.ts';
import { conformanceClasses, conformanceClock, type ConformanceContext, type StoreFixture } from './store-conformance-fixture.ts';
import { describeQueryConformance } from './store-conformance-queries.ts';
import { describeTokenConformance } from './store-conformance-tokens.ts';
import { describeWriteConformance } from './store-conformance-writes.ts';

export type { StoreFixture } from './store-conformance-fixture.ts';

/**
 * The behaviour every `Store` adapter must show, run unchanged against each
 * one. `makeStore` is called once per suite with the classes and the clock
 * the adapter must use; tests isolate themselves with random app ids, so the
 * backing data may be shared.
 */
export function describeStoreConformance(name: string, makeStore: (classes: ClassDescriptors, clock: Clock) => Promise<StoreFixture>): void {
  describe(`${name} store conformance`, () => {
    let fixture: StoreFixture | undefined;
    const others: Store[] = [];

    beforeAll(async () => {
      fixture = await makeStore(conformanceClasses, conformanceClock);
    });

    afterAll(async () => {
      for (const other of others) await other.close();
      await fixture?.cleanup();
    });

    const ready = (): StoreFixture => {
      if (fixture === undefined) throw new Error('store fixture is not ready');
      return fixture;
    };
    const context: ConformanceContext = {
      store: () => ready().store,
      openAnother: async () => {
        const other = await ready().openAnother();
        others.push(other);
        return other;
      },
    };

    describeWriteConformance(context);
    describeQueryConformance(context);
    describeTokenConformance(context);
  });
}
