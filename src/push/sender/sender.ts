import { setTimeout as wait } from 'node:timers/promises';
import type { PushTopics } from '../push-topics.ts';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import type { BusMessage, HandlerContext, OutgoingMessage } from '../../core/ports/bus.ts';
import { appKey } from '../../core/ports/coordination.ts';
import type { TokenBuckets } from '../../core/ports/token-buckets.ts';
import type { DeviceKey } from '../../core/ports/installation-store.ts';
import type { StoredObject, Store } from '../../core/ports/object-store.ts';
import type { SliceResult, UnregisteredInstallation } from '../../core/ports/push-store.ts';
import { registrationDevice } from '../audience/registration-device.ts';
import { iosTokenOf, listedAndroidId } from '../audience/device-route.ts';
import { targetPlatform, savedSince } from '../audience/target-platform.ts';
import { giveUpPush, worthRetrying } from '../give-up.ts';
import { decodeTask, encodeMessage, sliceKey, taskKey, type PushTaskMessage } from '../push-messages.ts';
import type { Platform } from '../requests/push-request.ts';
import { gatewayNames, type GatewayName } from '../gateways/delivery.ts';
import { androidRoute, type AndroidRoute } from '../gateways/makers/android-routes.ts';
import type { DeliveryLogWriter } from '../delivery-log/delivery-log-writer.ts';
import type { DeliveryEvents } from '../outcomes/delivery-events.ts';
import type { PushEnds } from '../outcomes/push-ends.ts';
import { SliceEvents, type EventDevice } from '../outcomes/slice-events.ts';
import type { DeviceDeliveries, SliceContext } from './device-deliveries.ts';
import { DeliveryTally } from './delivery-tally.ts';
import { DeliveryWindow, WindowedSends } from './delivery-window.ts';
import { WindowSizer, type WindowBounds } from './window-sizer.ts';
import { flowControlBurst, staleGrantMs } from './flow-control-burst.ts';
import { PreparedPushes } from './prepared-pushes.ts';
import type { SenderMetrics } from './sender-metrics.ts';
import { SliceCounts } from './slice-counts.ts';

export interface SenderDeps {
  store: Store;
  bus: { publish(topic: string, messages: readonly OutgoingMessage[]): Promise<void> };
  topics: PushTopics;
  buckets: TokenBuckets;
  deliveries: DeviceDeliveries;
  /** Where each slice's delivery log goes; absent: the log is off. */
  deliveryLog?: Pick<DeliveryLogWriter, 'open'>;
  /** Where each slice's delivery events go as objects (an outcome stream, webhooks); absent: none are kept. */
  events?: DeliveryEvents;
  /** Told when a push may have ended: a task's final slice recorded, a push given up (push.done webhooks). */
  pushEnds?: PushEnds;
  clock: Clock;
  logger: Logger;
  metrics: SenderMetrics;
  /** Installations read per slice. */
  sliceSize: number;
  /** Installations saved longer ago than this are not targeted. */
  idleMs: number;
  /** How long a slice waits for `flow_control` tokens before it hands the rest to its next slice. */
  maxPaceWaitMs?: number;
  /** Deliveries this process keeps in flight to each gateway over every slice in hand, sized between these by what they take. */
  deliveryWindow: WindowBounds;
}

/** How long a sender trusts that a push it saw is still wanted; a cancelled push stops within this. */
const livenessMs = 1000;

interface Target {
  installation: StoredObject | null;
  /** The device token (iOS), installationId or registrationId (Android) the target was named by. */
  id: string;
  platform: Platform;
  /** Android: the gateway the installation's vendor (or the request's) goes through; null for iOS. */
  route: AndroidRoute | null;
  /** The gateway whose delivery window the target takes a place in. */
  gateway: GatewayName;
}

/** The device a target is, as its delivery event names it: the token is the one sent to, or the id the request listed. */
function eventDevice(target: Target): EventDevice {
  const { installation, platform } = target;
  if (installation === null) return { installation, token: target.id, platform };
  return { installation, token: platform === 'ios' ? installation.deviceToken : installation.registrationId, platform };
}

/** A target with its route: iOS through APNs, Android by `vendor` (the installation's, or the request's). */
function targetOf(installation: StoredObject | null, id: string, platform: Platform, vendor: unknown): Target {
  if (platform === 'ios') return { installation, id, platform, route: null, gateway: 'apns' };
  const route = androidRoute(vendor);
  return { installation, id, platform, route, gateway: route.kind === 'maker' ? route.maker.gateway : 'fcm' };
}

interface SliceEnd {
  /** Cursor of the task's next slice, or null when this slice ends the task. */
  next: string | null;
}

/**
 * The sender: one handler per owned partition of `push.tasks`, working
 * through one slice of a task per message. A slice reads at most `sliceSize`
 * installations of its shard (or its listed devices), keeps the valid targets,
 * takes `flow_control` tokens shared by every sender, sends through the pooled
 * gateway clients, reports its counts in its own result row, and publishes
 * the task's next slice. So no handler holds a partition for long, and a crash
 * or rebalance repeats at most the slice in hand.
 *
 * Redelivered slices: a slice whose result row exists was done; it sends
 * nothing and makes sure its continuation was published. A push whose record
 * is gone (cancelled, expired from retention) sends nothing more.
 */
export class Sender {
  readonly #deps: SenderDeps;
  readonly #prepared = new PreparedPushes();
  readonly #liveness = new Map<string, { live: boolean; checkedAt: number }>();

  /**
   * One window per gateway: APNs, FCM and each phone maker answer at their
   * own latencies, and a gateway that slows down or stalls must not take the
   * others' places.
   */
  readonly #windows: Record<GatewayName, DeliveryWindow>;

  constructor(deps: SenderDeps) {
    this.#deps = deps;
    const window = (gateway: GatewayName): DeliveryWindow =>
      new DeliveryWindow(new WindowSizer({ bounds: deps.deliveryWindow, resized: (size) => deps.metrics.deliveryWindow(gateway, size) }));
    this.#windows = Object.fromEntries(gatewayNames.map((gateway) => [gateway, window(gateway)])) as Record<GatewayName, DeliveryWindow>;
  }

  async handle(message: BusMessage, context: HandlerContext): Promise<void> {
    const task = decodeTask(message.value);
    if (task === null) {
      this.#deps.logger.error({ topic: message.topic, offset: message.offset }, 'unreadable push task skipped');
      return;
    }
    this.#deps.metrics.sliceStarted();
    try {
      await this.#slice(task, context.signal);
    } catch (error) {
      // An outage or a rebalance: the bus offers the slice again. A fault: the push is settled as failed.
      if (worthRetrying(error, context.signal)) throw error;
      const { store, clock, logger } = this.#deps;
      await giveUpPush({ pushes: store.pushes, clock, logger }, { appId: task.appId, pushId: task.pushId, sliceKey: sliceKey(task) }, error);
      this.#deps.pushEnds?.mayHaveEnded(task.appId, task.pushId);
    } finally {
      this.#deps.metrics.sliceEnded();
    }
  }

  async #slice(task: PushTaskMessage, signal: AbortSignal): Promise<void> {
    const { appId, pushId } = task;
    if (!(await this.#live(appId, pushId))) return;
    const pushes = this.#deps.store.pushes;
    const key = sliceKey(task);
    const done = await pushes.getSlice(appId, pushId, key);
    if (done !== null) {
      // A sender that died after recording the slice, before it removed the installations found unregistered.
      await this.#forgetUnregistered(appId, pushId, { sliceKey: key, ...done });
      if (!done.final) await this.#continue(task, done.next, true);
      // A sender that died after recording its task's end, before it looked whether the push ended.
      else this.#deps.pushEnds?.mayHaveEnded(appId, pushId);
      return;
    }
    const counts = new SliceCounts();
    const tally = new DeliveryTally();
    const sink = this.#deps.events;
    const log = this.#deps.deliveryLog?.open({ appId, pushId, sliceKey: key }) ?? null;
    const events = sink === undefined && log === null ? null : new SliceEvents({ appId, pushId, sliceKey: key }, this.#deps.clock, { keep: sink !== undefined, log });
    const unregistered: UnregisteredInstallation[] = [];
    const slice: SliceContext = { appId, pushId, spec: task.spec, prepared: this.#prepared.get(pushId, task.spec), counts, tally, events, unregistered, signal };
    let end: SliceEnd;
    try {
      end =
        task.scope.kind === 'devices'
          ? await this.#deviceSlice(task, task.scope.ids, slice)
          : task.scope.kind === 'lookup'
            ? await this.#lookupSlice(task, task.scope.key, slice)
            : await this.#shardSlice(task, slice);
    } finally {
      // What reached a gateway is counted even when the slice stops short (its repeat counts again: metrics count sends).
      tally.report(this.#deps.metrics);
    }
    // Before the counts: a slice reported done has its events recorded, and one that dies in between is redone and records them again.
    if (events !== null) {
      const endedAt = this.#deps.clock.now();
      await Promise.all([log?.write(endedAt), sink?.record({ appId, pushId, sliceKey: key, endedAt }, events.events)]);
    }
    const result = { sliceKey: key, counts: counts.toCounts(), final: end.next === null, next: end.next, unregistered };
    await pushes.recordSlice(appId, pushId, result);
    // After the slice is recorded: one redone before this point still targets these devices, and one redone after removes them.
    await this.#forgetUnregistered(appId, pushId, result);
    if (end.next !== null) await this.#continue(task, end.next, false);
    else this.#deps.pushEnds?.mayHaveEnded(appId, pushId);
  }

  /**
   * Removes the installations a recorded slice found unregistered, then
   * records the slice again without them. Until then its record keeps them,
   * for a redo of the slice to remove.
   */
  async #forgetUnregistered(appId: string, pushId: string, result: SliceResult): Promise<void> {
    if (result.unregistered === undefined || result.unregistered.length === 0) return;
    await this.#deps.deliveries.forgetUnregistered(appId, result.unregistered);
    await this.#deps.store.pushes.recordSlice(appId, pushId, { ...result, unregistered: [] });
  }

  async #shardSlice(task: PushTaskMessage, slice: SliceContext): Promise<SliceEnd> {
    if (task.scope.kind !== 'shard') throw new Error('not a shard task');
    const { shard, index, skip } = task.scope;
    const page = await this.#deps.store.installations.scanShard(task.appId, { shard, index, after: task.cursor, limit: this.#deps.sliceSize });
    const rules = { where: slice.prepared.where, skip, activeSince: this.#activeSince() };
    const targets: Target[] = [];
    for (const installation of page.installations) {
      const platform = targetPlatform(installation, rules);
      if (platform !== null) targets.push(targetOf(installation, installation.objectId, platform, installation.vendor));
    }
    const sent = await this.#deliver(task, slice, targets);
    if (sent === targets.length) return { next: page.next };
    // Paced out: the next slice starts after the last installation handed to a gateway.
    return { next: sent === 0 ? (task.cursor ?? '') : (targets[sent - 1]?.id ?? null) };
  }

  /** A query that pins one device by its token or installationId: one read, and the same rules as a shard. */
  async #lookupSlice(task: PushTaskMessage, key: DeviceKey, slice: SliceContext): Promise<SliceEnd> {
    const installation = await this.#deps.store.installations.findByDevice(task.appId, key);
    const rules = { where: slice.prepared.where, skip: [], activeSince: this.#activeSince() };
    const platform = installation === null ? null : targetPlatform(installation, rules);
    if (installation === null || platform === null) return { next: null };
    const sent = await this.#deliver(task, slice, [targetOf(installation, installation.objectId, platform, installation.vendor)]);
    if (sent < 1) throw slice.signal.reason ?? new Error('lookup slice stopped before its end');
    return { next: null };
  }

  async #deviceSlice(task: PushTaskMessage, ids: string[], slice: SliceContext): Promise<SliceEnd> {
    const { target } = task.spec;
    if (target.kind !== 'devices') throw new Error('not a device push');
    const vendor = target.deviceType === 'android' ? (target.vendor ?? null) : null;
    if (vendor !== null) return this.#vendorSlice(task, ids, vendor, slice);
    const installations = this.#deps.store.installations;
    const field = target.deviceType === 'ios' ? 'deviceToken' : 'installationId';
    const found = await Promise.all(ids.map((value) => installations.findByDevice(task.appId, { field, value })));
    const activeSince = this.#activeSince();
    const targets: Target[] = [];
    found.forEach((installation, index) => {
      const id = ids[index] as string;
      // A listed device whose installation was not saved within the idle time is left out and not counted, as in a query push.
      if (installation !== null && !savedSince(installation, activeSince)) return;
      // An Android id names an installation, whose registration token FCM needs; an iOS token is the address itself.
      if (target.deviceType === 'android' && installation === null) {
        slice.counts.devices += 1;
        this.#deps.deliveries.notSent(slice, 'fcm', 'UnknownInstallation', { installation: null, token: id, platform: 'android' });
      } else {
        targets.push(targetOf(installation, id, target.deviceType, installation?.vendor));
      }
    });
    const sent = await this.#deliver(task, slice, targets);
    // A device list is at most 500 and never paced (flow_control is a /push parameter): only a rebalance stops it short.
    if (sent < targets.length) throw slice.signal.reason ?? new Error('device slice stopped before its end');
    return { next: null };
  }

  /**
   * `/push/devices` with a `vendor`: the ids are that vendor's registrationIds,
   * the addresses themselves. Each is looked up as an iOS token is: the
   * installation holding it (`registrationDevice`) is left out and not
   * counted when idle, lends its deviceProfile when the request names none,
   * and goes when the gateway says the token is gone; an id no installation
   * holds is sent to as given.
   */
  async #vendorSlice(task: PushTaskMessage, ids: string[], vendor: string, slice: SliceContext): Promise<SliceEnd> {
    const route = androidRoute(vendor);
    const installations = this.#deps.store.installations;
    const holders = await Promise.all(ids.map((id) => installations.findByRegistrationId(task.appId, id)));
    const activeSince = this.#activeSince();
    const targets: Target[] = [];
    holders.forEach((found, index) => {
      const installation = registrationDevice(found, route);
      if (installation !== null && !savedSince(installation, activeSince)) return;
      targets.push(targetOf(installation, ids[index] as string, 'android', vendor));
    });
    const sent = await this.#deliver(task, slice, targets);
    if (sent < targets.length) throw slice.signal.reason ?? new Error('device slice stopped before its end');
    return { next: null };
  }

  /**
   * Sends to the targets, paced by the push's `flow_control`: tokens come from
   * one bucket per push shared by every sender on every node. A slice waits
   * at most `maxPaceWaitMs` in all; then it stops handing out deliveries, so
   * that no partition is held for long; so too when the bucket cannot be read
   * after some deliveries went out. A grant is spent within `staleGrantMs` of
   * asking for it or not at all: what is left of it then (the sender waited
   * for its gateway's window, or did not run) goes back with the next take,
   * so that sends held up do not bunch with the next grant's. Answers how
   * many targets were sent to (in order); they are counted, and the rest is
   * left to the next slice.
   */
  async #deliver(task: PushTaskMessage, slice: SliceContext, targets: Target[]): Promise<number> {
    const expiresAt = task.spec.expiresAt;
    if (expiresAt !== null && expiresAt <= this.#deps.clock.now()) {
      slice.counts.devices += targets.length;
      for (const target of targets) this.#deps.deliveries.notSent(slice, target.gateway, 'Expired', eventDevice(target));
      return targets.length;
    }
    const rate = task.scope.kind === 'shard' ? task.spec.flowControl : null;
    const sends = new WindowedSends();
    let handed = 0;
    // On the process's monotonic timer, not the engine clock: this bounds how long the handler holds its
    // partition, which the bus counts in real time (a Kafka member fetches again only when its batches are done).
    const deadline = performance.now() + (this.#deps.maxPaceWaitMs ?? 2000);
    // A paced push takes its first tokens once its gateways can take the sends: a grant spent while a session
    // or a token is still coming would wait in the client's queue and then go out beside the next grant's.
    if (rate !== null && targets.length > 0) await this.#warm(slice, targets, deadline);
    let returned = 0;
    handing: while (handed < targets.length && !slice.signal.aborted) {
      let granted: number;
      let askedAt = Number.POSITIVE_INFINITY;
      try {
        if (rate === null) {
          granted = targets.length - handed;
        } else {
          ({ granted, askedAt } = await this.#tokens(task, rate, targets.length - handed, deadline, returned));
          returned = 0;
        }
      } catch (error) {
        // Nothing handed out yet: the slice fails whole and is offered again, with nothing sent twice.
        if (handed === 0) throw error;
        // Some deliveries are out (a bucket's store went away mid-slice, Redis restarting): failing now would
        // send them again with the redone slice. They are counted and the rest goes to the next slice instead.
        this.#deps.logger.debug({ err: error, app: task.appId, push: task.pushId, handed }, 'flow_control tokens unavailable; the next slice takes the rest');
        break;
      }
      if (granted === 0) break;
      // Each delivery waits for a place in its gateway's window; a rebalance meanwhile stops the handing out.
      for (const end = handed + granted; handed < end; handed += 1) {
        const target = targets[handed] as Target;
        const window = this.#windows[target.gateway];
        if (!window.tryTake()) {
          await window.take();
          if (slice.signal.aborted) {
            window.release();
            break handing;
          }
        }
        // Only a paced push reads the timer per delivery.
        if (rate !== null && performance.now() - askedAt > staleGrantMs) {
          window.release();
          returned = end - handed;
          continue handing;
        }
        sends.add(window, this.#send(slice, target));
      }
    }
    slice.counts.devices += handed;
    // A delivery stopped between retries by a rebalance was not sent: the whole slice goes to the next owner.
    await sends.settled();
    return handed;
  }

  /** Readies the targets' gateway clients, waiting until `deadline` (`performance.now()`) at most; the wait goes on without the slice. */
  async #warm(slice: SliceContext, targets: readonly Target[], deadline: number): Promise<void> {
    const done = new AbortController();
    try {
      // The race takes in the timer's rejection when the warm-up wins and `done` aborts it.
      await Promise.race([this.#deps.deliveries.warm(slice, targets), wait(Math.max(0, deadline - performance.now()), undefined, { signal: done.signal })]);
    } finally {
      done.abort();
    }
  }

  /** Installations saved before this time (ms) are idle: neither targeted nor counted. */
  #activeSince(): number {
    return this.#deps.clock.now() - this.#deps.idleMs;
  }

  /** Starts one target's delivery; undefined when it was counted without sending. */
  #send(slice: SliceContext, target: Target): Promise<void> | undefined {
    const { installation, route } = target;
    // An Android device named by an installation is sent to its registrationId; one named by a registrationId is sent to it.
    if (route !== null) return this.#deps.deliveries.toAndroid(slice, route, installation, listedAndroidId(installation, target.id));
    // Listed devices are named by their token; installations read from a shard carry it.
    return this.#deps.deliveries.toIos(slice, iosTokenOf(installation, target.id), installation);
  }

  /**
   * Tokens for up to `wanted` deliveries, waiting for the bucket until `deadline` (`performance.now()`),
   * `returned` tokens of a grant not spent in time given back with the first take; 0 when it did not refill
   * in time or the push was cancelled meanwhile. `askedAt` is when the take that granted them was sent.
   */
  async #tokens(task: PushTaskMessage, rate: number, wanted: number, deadline: number, returned: number): Promise<{ granted: number; askedAt: number }> {
    const key = appKey(task.appId, 'push-rate', task.pushId);
    let giveBack = returned;
    for (;;) {
      // A push cancelled while its slice waited for its turn sends nothing more (DELETE /1.1/notifications).
      // Asked before each take, so that a grant is spent as soon as it comes (`staleGrantMs`).
      if (!(await this.#live(task.appId, task.pushId))) return { granted: 0, askedAt: 0 };
      const now = this.#deps.clock.now();
      const askedAt = performance.now();
      const grant = await this.#deps.buckets.takeTokens(key, {
        ratePerSecond: rate,
        burst: flowControlBurst(rate),
        requested: wanted,
        now,
        ...(giveBack > 0 ? { returned: giveBack } : {}),
      });
      giveBack = 0;
      if (grant.granted > 0) return { granted: grant.granted, askedAt };
      const pause = Math.min(grant.retryAfterMs, deadline - performance.now());
      if (pause <= 0) return { granted: 0, askedAt };
      await wait(pause);
    }
  }

  /** Publishes the task's next slice, unless a redelivered slice finds that it has run already. */
  async #continue(task: PushTaskMessage, cursor: string | null, redelivered: boolean): Promise<void> {
    const next: PushTaskMessage = { ...task, slice: task.slice + 1, cursor };
    if (redelivered && (await this.#deps.store.pushes.getSlice(task.appId, task.pushId, sliceKey(next))) !== null) return;
    await this.#deps.bus.publish(this.#deps.topics.tasks, [{ key: taskKey(next), value: encodeMessage(next) }]);
  }

  /** Whether the push record still exists; read at most once a second per push. */
  async #live(appId: string, pushId: string): Promise<boolean> {
    const now = this.#deps.clock.now();
    const seen = this.#liveness.get(pushId);
    if (seen !== undefined && now - seen.checkedAt < livenessMs) return seen.live;
    const live = (await this.#deps.store.pushes.getRecord(appId, pushId)) !== null;
    if (this.#liveness.size > 10_000) this.#liveness.clear();
    this.#liveness.set(pushId, { live, checkedAt: now });
    return live;
  }
}
