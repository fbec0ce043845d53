import type { Clock } from '../../core/clock.ts';
import type { Store } from '../../core/ports/object-store.ts';
import { isAccepted } from '../../push/records/push-record.ts';

const dayMs = 24 * 60 * 60 * 1000;

/** Installations of one platform by when they were last saved. */
export interface PlatformActivity {
  total: number;
  /** Saved within a day, 7 days, 30 days, and the idle window (the rest are idle: not targeted, soon removed). */
  day: number;
  week: number;
  month: number;
  active: number;
}

export interface PushDay {
  /** `YYYY-MM-DD` (UTC). */
  day: string;
  pushes: number;
  devices: number;
  successes: number;
  errors: number;
  invalidTokens: number;
}

export interface AppOverview {
  installations: { ios: PlatformActivity; android: PlatformActivity };
  /** True when the count stopped at `installationCap`: the figures are a lower bound. */
  installationsCapped: boolean;
  /** The last 7 days, newest first. */
  pushDays: PushDay[];
  /** Reasons of the last 7 days' failures, most frequent first. */
  reasons: { reason: string; count: number }[];
  computedAt: number;
}

/** Most installations one overview reads; an app with more shows "at least". */
export const installationCap = 200_000;
/** Most push records one overview reads. */
const recordCap = 10_000;
/** How long an app's overview is reused, so that reloading the page does not read the store again. */
const cacheMs = 60_000;

/**
 * The apps overview's figures, from the store: installations by platform and
 * activity (read through the device-type index, at most `installationCap`),
 * and the last 7 days of push records (records live `retentionDays`, 7 by
 * default). Each app's figures are kept for a minute.
 */
export class AppOverviews {
  readonly #store: Store;
  readonly #clock: Clock;
  readonly #idleMs: number;
  readonly #cache = new Map<string, { at: number; overview: Promise<AppOverview> }>();

  constructor(deps: { store: Store; clock: Clock }, settings: { idleInstallationDays: number }) {
    this.#store = deps.store;
    this.#clock = deps.clock;
    this.#idleMs = settings.idleInstallationDays * dayMs;
  }

  of(appId: string): Promise<AppOverview> {
    const now = this.#clock.now();
    const cached = this.#cache.get(appId);
    if (cached !== undefined && now - cached.at < cacheMs) return cached.overview;
    const overview = this.#compute(appId);
    const entry = { at: now, overview };
    this.#cache.set(appId, entry);
    overview.catch(() => {
      if (this.#cache.get(appId) === entry) this.#cache.delete(appId);
    });
    return overview;
  }

  async #compute(appId: string): Promise<AppOverview> {
    const now = this.#clock.now();
    const { counts, capped } = await this.#installations(appId, now);
    const { pushDays, reasons } = await this.#pushes(appId, now);
    return { installations: counts, installationsCapped: capped, pushDays, reasons, computedAt: now };
  }

  async #installations(appId: string, now: number): Promise<{ counts: AppOverview['installations']; capped: boolean }> {
    const store = this.#store.installations;
    const counts = { ios: emptyActivity(), android: emptyActivity() };
    let read = 0;
    for (const platform of ['ios', 'android'] as const) {
      for (let shard = 0; shard < store.shardCount; shard += 1) {
        let after: string | null = null;
        do {
          const page = await store.scanShard(appId, { shard, index: { kind: 'deviceType', deviceType: platform }, after, limit: 1000 });
          for (const installation of page.installations) {
            const age = now - Date.parse(installation.updatedAt);
            const activity = counts[platform];
            activity.total += 1;
            if (age <= dayMs) activity.day += 1;
            if (age <= 7 * dayMs) activity.week += 1;
            if (age <= 30 * dayMs) activity.month += 1;
            if (age <= this.#idleMs) activity.active += 1;
          }
          read += page.installations.length;
          if (read >= installationCap) return { counts, capped: true };
          after = page.next;
        } while (after !== null);
      }
    }
    return { counts, capped: false };
  }

  async #pushes(appId: string, now: number): Promise<{ pushDays: PushDay[]; reasons: AppOverview['reasons'] }> {
    const days = Array.from({ length: 7 }, (_, back): PushDay => ({ day: new Date(now - back * dayMs).toISOString().slice(0, 10), pushes: 0, devices: 0, successes: 0, errors: 0, invalidTokens: 0 }));
    const byDay = new Map(days.map((day) => [day.day, day]));
    const reasons = new Map<string, number>();
    const since = new Date(now - 7 * dayMs).toISOString();
    let read = 0;
    for await (const record of this.#store.pushes.scan(appId)) {
      if (record.createdAt < since || (read += 1) > recordCap) break;
      if (!isAccepted(record)) continue;
      const day = byDay.get(record.createdAt.slice(0, 10));
      if (day === undefined) continue;
      day.pushes += 1;
      day.devices += Number(record.devices ?? 0);
      day.successes += Number(record.successes ?? 0);
      day.errors += Number(record.errors ?? 0);
      day.invalidTokens += Number(record.invalidTokens ?? 0);
      for (const [reason, count] of Object.entries((record.errorReasons ?? {}) as Record<string, number>)) reasons.set(reason, (reasons.get(reason) ?? 0) + Number(count));
    }
    return { pushDays: days, reasons: [...reasons].map(([reason, count]) => ({ reason, count })).sort((a, b) => b.count - a.count) };
  }
}

function emptyActivity(): PlatformActivity {
  return { total: 0, day: 0, week: 0, month: 0, active: 0 };
}
