import { setTimeout as wait } from 'node:timers/promises';
import type { Lease } from '../core/ports/leases.ts';
import type { Runtime } from '../runtime/create-runtime.ts';
import { DuePushes } from '../scheduler/due-pushes.ts';
import { Housekeeping } from '../scheduler/housekeeping.ts';
import { RoleLifecycle } from './role-lifecycle.ts';
import type { Role, RoleStatus } from './role.ts';

const dayMs = 24 * 60 * 60 * 1000;
/** The leader's lease lives this long unless renewed; it is renewed every round. */
const leaseTtlMs = 15_000;

/**
 * The scheduler: exactly one leads (a lease in the coordination port,
 * renewed every round). The leader moves due scheduled pushes to the fan-out
 * every `schedulerIntervalMs` and sweeps idle installations and old push
 * records every `sweepIntervalMs`. Work done twice around a change of leader
 * is harmless (see DuePushes). A node that loses the lease stops leading
 * until it wins it again.
 */
export class SchedulerRole implements Role {
  readonly name = 'scheduler';
  readonly #runtime: Runtime;
  readonly #lifecycle = new RoleLifecycle();
  readonly #stop = new AbortController();
  #loop: Promise<void> | undefined;
  #sweep: { promise: Promise<void>; abort: AbortController } | undefined;
  #lease: Lease | null = null;
  /** When the lease lapses unless extended, by this node's clock (counted from before the call that took or extended it). */
  #leaseUntil = 0;

  constructor(runtime: Runtime) {
    this.#runtime = runtime;
  }

  start(): Promise<void> {
    return this.#lifecycle.start(() => {
      this.#loop = this.#run();
      return Promise.resolve();
    });
  }

  /** Whether this node leads now. */
  get leading(): boolean {
    return this.#lease !== null;
  }

  /** A node that does not lead is ready too: it stands by to take the lease over. */
  status(): RoleStatus {
    return this.#lifecycle.status(() => ({ leading: this.leading }));
  }

  close(): Promise<void> {
    return this.#lifecycle.close(async () => {
      this.#stop.abort();
      await this.#loop;
      this.#sweep?.abort.abort();
      await this.#sweep?.promise;
      await this.#lease?.release().catch(() => undefined);
      this.#lease = null;
      this.#runtime.metrics.schedulerLeading.set(0);
    });
  }

  async #run(): Promise<void> {
    const { config, store, bus, topics, clock, logger, metrics } = this.#runtime;
    const log = logger.child({ role: this.name });
    const leaseName = `${config.bus.topicPrefix}scheduler`;
    const due = new DuePushes({ store, bus, topics, clock, logger: log, observeLateness: (seconds) => metrics.scheduledLatenessSeconds.observe(seconds) });
    const housekeeping = new Housekeeping({
      store,
      clock,
      logger: log,
      appIds: () => config.apps.map((app) => app.id),
      idleMs: config.push.idleInstallationDays * dayMs,
      retentionMs: config.push.retentionDays * dayMs,
      sweepIntervalMs: config.push.sweepIntervalMs,
    });
    let nextSweep = 0;
    let failing = false;
    while (!this.#stop.signal.aborted) {
      try {
        await this.#lead(leaseName);
        if (this.#lease !== null) {
          await due.moveDue();
          if (clock.now() >= nextSweep && this.#sweep === undefined) {
            nextSweep = clock.now() + config.push.sweepIntervalMs;
            this.#startSweep(housekeeping);
          }
        }
        if (failing) log.info('scheduler works again');
        failing = false;
      } catch (error) {
        // Logged once when it starts failing, not every round of an outage.
        if (!failing) log.warn({ err: error }, 'scheduler round failed; retrying every round until it works');
        failing = true;
      }
      await wait(config.push.schedulerIntervalMs, undefined, { signal: this.#stop.signal }).catch(() => undefined);
    }
  }

  async #lead(name: string): Promise<void> {
    const { coord, clock, logger } = this.#runtime;
    const askedAt = clock.now();
    if (this.#lease === null) {
      this.#lease = await coord.acquireLease(name, leaseTtlMs);
      this.#leaseUntil = askedAt + leaseTtlMs;
      if (this.#lease !== null) {
        this.#runtime.metrics.schedulerLeading.set(1);
        logger.info({ role: this.name }, 'this node leads the scheduler');
      }
      return;
    }
    let extended: boolean;
    try {
      extended = await this.#lease.extend(leaseTtlMs);
    } catch (error) {
      // Coordination is unreachable: once the lease may have lapsed, another node may lead, so this one stops.
      if (clock.now() >= this.#leaseUntil) this.#stopLeading('scheduler lease lapsed while coordination was unreachable; this node stops leading');
      throw error;
    }
    if (extended) this.#leaseUntil = askedAt + leaseTtlMs;
    else this.#stopLeading('scheduler lease lost; this node stops leading');
  }

  #stopLeading(why: string): void {
    this.#lease = null;
    this.#runtime.metrics.schedulerLeading.set(0);
    this.#sweep?.abort.abort();
    this.#runtime.logger.warn({ role: this.name }, why);
  }

  #startSweep(housekeeping: Housekeeping): void {
    const abort = new AbortController();
    const promise = housekeeping
      .sweep(abort.signal)
      .then(() => undefined)
      .catch((error: unknown) => this.#runtime.logger.warn({ err: error, role: this.name }, 'sweep failed'))
      .finally(() => {
        this.#sweep = undefined;
      });
    this.#sweep = { promise, abort };
  }
}
