import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { Store } from '../core/ports/object-store.ts';
import { unacceptedGraceMs, UnacceptedPushes } from './unaccepted-pushes.ts';

export interface HousekeepingDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  appIds(): string[];
  /** Installations not saved for this long are removed (SPEC.md: 90 days). */
  idleMs: number;
  /** Push records older than this are removed (SPEC-NOTES.md: 7 days unless configured). */
  retentionMs: number;
  /** Time between two sweeps. */
  sweepIntervalMs: number;
}

const pageSize = 1000;

/**
 * What the scheduler tidies on its sweep: installations whose app was not
 * opened for the idle time are removed (a device saved again meanwhile is
 * kept: `deleteIfUnchanged`), push records left unaccepted by a stopped API
 * node are removed (UnacceptedPushes), and push records past retention are
 * removed, and so are delivery log entries past their app's retention
 * (stores that expire them by themselves answer 0). It reads every
 * shard a page at a time, so its memory does not grow with the number of
 * installations.
 */
export class Housekeeping {
  readonly #deps: HousekeepingDeps;
  readonly #unaccepted: UnacceptedPushes;

  constructor(deps: HousekeepingDeps) {
    this.#deps = deps;
    const lookbackMs = Math.min(deps.retentionMs, unacceptedGraceMs + 2 * deps.sweepIntervalMs);
    this.#unaccepted = new UnacceptedPushes({ ...deps, lookbackMs });
  }

  async sweep(signal: AbortSignal): Promise<{ installations: number; records: number; unaccepted: number }> {
    const { store, clock, logger } = this.#deps;
    const cutoff = clock.now() - this.#deps.idleMs;
    let installations = 0;
    for (const appId of this.#deps.appIds()) {
      for (let shard = 0; shard < store.installations.shardCount && !signal.aborted; shard += 1) {
        let after: string | null = null;
        do {
          // Only ids and save times: the sweep reads every installation of every app and needs nothing else of them.
          const page = await store.installations.scanShardStamps(appId, { shard, after, limit: pageSize });
          for (const { objectId, updatedAt } of page.stamps) {
            if (Date.parse(updatedAt) < cutoff && (await store.installations.deleteIfUnchanged(appId, objectId, updatedAt))) installations += 1;
          }
          after = page.next;
        } while (after !== null && !signal.aborted);
      }
    }
    const unaccepted = signal.aborted ? 0 : await this.#unaccepted.remove(signal);
    const records = await store.pushes.purgeOlderThan(clock.now() - this.#deps.retentionMs);
    // Each slice's rows carry their own expiry: the app's delivery log retention when they were written.
    const deliverySlices = await store.deliveries.purgeExpired(clock.now());
    if (installations > 0 || records > 0 || deliverySlices > 0) logger.info({ installations, records, deliverySlices }, 'removed idle installations, old push records and expired delivery log entries');
    return { installations, records, unaccepted };
  }
}
