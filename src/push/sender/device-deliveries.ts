import type { Clock } from '../../core/clock.ts';
import { PreconditionFailedError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import type { InstallationStore } from '../../core/ports/installation-store.ts';
import type { UnregisteredInstallation } from '../../core/ports/push-store.ts';
import type { StoredObject } from '../../core/ports/object-store.ts';
import { deliverWithRetry, type RetryPolicy } from '../gateways/deliver-with-retry.ts';
import type { DeliveryReason } from '../gateways/delivery-reasons.ts';
import type { ApnsDelivery, GatewayClient, GatewayName } from '../gateways/delivery.ts';
import { androidDeviceRoute, iosDeviceRoute, iosTokenOf, listedAndroidId, notSentCauses } from '../audience/device-route.ts';
import type { GatewayMetrics } from '../gateways/gateway-metrics.ts';
import type { AndroidRoute } from '../gateways/makers/android-routes.ts';
import type { PushGateways } from '../gateways/push-gateways.ts';
import { nextBadge } from '../payload/apns-template.ts';
import type { SliceEvents, EventDevice } from '../outcomes/slice-events.ts';
import type { PushSpec } from '../push-spec.ts';
import type { Platform } from '../requests/push-request.ts';
import type { PreparedPush } from './prepared-pushes.ts';
import type { DeliveryFailures } from './delivery-failure-log.ts';
import type { DeliveryTally, FailedOutcome } from './delivery-tally.ts';
import type { SliceCounts } from './slice-counts.ts';
import { TrackedSend } from './tracked-send.ts';

export interface DeviceDeliveriesDeps {
  gateways: Pick<PushGateways, 'apns' | 'fcm' | 'maker'>;
  installations: InstallationStore;
  retry: RetryPolicy;
  gatewayMetrics: Pick<GatewayMetrics, 'retried'>;
  /** Told of every device not delivered but for a token the gateway reports unregistered (routine: the installation goes). */
  failures: DeliveryFailures;
  clock: Clock;
  logger: Logger;
}

/** One slice's push, shared by its deliveries. */
export interface SliceContext {
  appId: string;
  pushId: string;
  spec: PushSpec;
  prepared: PreparedPush;
  counts: SliceCounts;
  /** Final outcomes for the deliveries metric, reported when the slice ends. */
  tally: DeliveryTally;
  /** Each targeted device's final outcome, handed to the delivery log and the outcome stream when the slice ends; null when nothing takes them. */
  events?: SliceEvents | null;
  /**
   * Installations the gateway reported unregistered, removed once the slice
   * is recorded (\`forgetUnregistered\`): a slice redone after its sender died
   * still targets them, so its delivery log entries and counts stay whole.
   * Absent, each is removed at once.
   */
  unregistered?: UnregisteredInstallation[];
  signal: AbortSignal;
}

/** A device to ready the gateway of (`DeviceDeliveries.warm`). */
export interface WarmedDevice {
  installation: StoredObject | null;
  /** The token (iOS) or registrationId (Android) the device was listed by, when it has no installation. */
  id: string;
  /** Android: the gateway its vendor goes through; null for iOS. */
  route: AndroidRoute | null;
}

/**
 * Sends one push to one device through its gateway, resending what the
 * gateway says may be resent (`deliverWithRetry`), counts the final outcome,
 * and removes an installation whose token the gateway reports unregistered —
 * unless the device saved it again after the gateway's timestamp.
 */
export class DeviceDeliveries {
  readonly #deps: DeviceDeliveriesDeps;

  constructor(deps: DeviceDeliveriesDeps) {
    this.#deps = deps;
  }

  /**
   * An iOS device by its token (the listed one, or the installation's);
   * `installation` when the token belongs to a stored one. Where it goes,
   * or why it does not, is `iosDeviceRoute`'s, which explain asks too.
   */
  async toIos(slice: SliceContext, token: unknown, installation: StoredObject | null): Promise<void> {
    const route = iosDeviceRoute(this.#deps.gateways, slice, token, installation);
    if (route.kind !== 'apns') {
      if (route.kind === 'not-sent') this.#notSent(slice, route.gateway, route.reason, { installation, token, platform: 'ios' });
      return;
    }
    const template = slice.prepared.apns();
    const payload = template.incrementBadge ? template.withBadge(await this.#incrementedBadge(slice, installation)) : template.body;
    const delivery: ApnsDelivery = { token: route.token, topic: route.topic, pushType: template.pushType, priority: template.priority, payload };
    if (template.expiration !== null) delivery.expiration = template.expiration;
    if (template.collapseId !== null) delivery.collapseId = template.collapseId;
    await this.#send(slice, 'ios', route.client, delivery, installation, route.token);
  }

  /**
   * An Android device through the gateway its vendor routes to: FCM, or a
   * phone maker with the installation's profile (`androidDeviceRoute`).
   * `listed` is the registrationId a `/push/devices` request named the
   * device by; otherwise the installation's is used. A maker's client
   * batches the deliveries it is handed together.
   */
  async toAndroid(slice: SliceContext, route: AndroidRoute, installation: StoredObject | null, listed?: string): Promise<void> {
    const routed = androidDeviceRoute(this.#deps.gateways, slice, route, installation, listed);
    switch (routed.kind) {
      case 'not-sent':
        return this.#notSent(slice, routed.gateway, routed.reason, { installation, token: routed.token, platform: 'android' });
      case 'fcm': {
        const { expiresAt } = slice.spec;
        const ttl = expiresAt === null ? null : Math.max(0, Math.ceil((expiresAt - this.#deps.clock.now()) / 1000));
        return this.#send(slice, 'android', routed.client, { body: slice.prepared.fcm().bodyFor(routed.token, ttl) }, installation, routed.token);
      }
      case 'maker':
        return this.#send(slice, 'android', routed.client, { token: routed.token, content: routed.content, variant: routed.variant }, installation, routed.token);
      case 'apns':
        throw new Error('an Android device routed to APNs');
    }
  }

  /**
   * Readies the gateway clients `devices` go through (`GatewayClient.warm`),
   * each once: a paced push asks for its first tokens only then, so that none
   * is spent queued behind a connect or a token fetch. A device is named as
   * for `toIos` and `toAndroid`: its installation, else the token or
   * registrationId listed, and its Android route (null for iOS).
   */
  async warm(slice: SliceContext, devices: readonly WarmedDevice[]): Promise<void> {
    const clients = new Set<GatewayClient<never>>();
    for (const { installation, id, route } of devices) {
      if (route === null) {
        const routed = iosDeviceRoute(this.#deps.gateways, slice, iosTokenOf(installation, id), installation);
        if (routed.kind === 'apns') clients.add(routed.client);
      } else {
        const routed = androidDeviceRoute(this.#deps.gateways, slice, route, installation, listedAndroidId(installation, id));
        if (routed.kind === 'fcm' || routed.kind === 'maker') clients.add(routed.client);
      }
    }
    await Promise.all([...clients].map(async (client) => client.warm?.()));
  }

  /** A device that could not be sent to: counted as an error with the reason. */
  notSent(slice: SliceContext, gateway: GatewayName, reason: DeliveryReason, device: EventDevice): void {
    this.#notSent(slice, gateway, reason, device);
  }

  async #send<D>(slice: SliceContext, platform: Platform, client: GatewayClient<D>, delivery: D, installation: StoredObject | null, token: string): Promise<void> {
    const send = new TrackedSend(client, slice.spec.expiresAt, this.#deps.clock);
    const outcome = await deliverWithRetry(send, delivery, {
      policy: this.#deps.retry,
      metrics: this.#deps.gatewayMetrics,
      signal: slice.signal,
    });
    slice.counts.add(platform, outcome);
    slice.events?.ended({ installation, token, platform }, client.gateway, outcome, send);
    if (outcome.kind === 'delivered') {
      slice.tally.add(client.gateway, 'delivered');
      return;
    }
    const { gateway } = client;
    if (outcome.kind !== 'invalid-token') {
      this.#failed(slice, gateway, 'failed', outcome.reason, outcome.cause);
      return;
    }
    // An unregistered token is routine (the app was removed from the device): counted, and its installation goes, without a log line.
    if (outcome.unregistered) slice.tally.fail(gateway, 'invalid-token', outcome.reason);
    else this.#failed(slice, gateway, 'invalid-token', outcome.reason, outcome.cause);
    if (!outcome.unregistered || installation === null) return;
    // SPEC.md: the gateway said the token expired, so the installation goes — unless it was saved since.
    if (outcome.since !== undefined && outcome.since < Date.parse(installation.updatedAt)) return;
    const device = { objectId: installation.objectId, updatedAt: installation.updatedAt };
    if (slice.unregistered !== undefined) slice.unregistered.push(device);
    else await this.#forget(slice.appId, device);
  }

  /** Removes the installations a recorded slice found unregistered; one that fails to go is found unregistered by the next push. */
  async forgetUnregistered(appId: string, devices: readonly UnregisteredInstallation[]): Promise<void> {
    for (const device of devices) await this.#forget(appId, device);
  }

  /** Counts a device not delivered by its reason and tells the failure log. */
  #failed(slice: SliceContext, gateway: GatewayName, outcome: FailedOutcome, reason: string, cause: string | undefined): void {
    slice.tally.fail(gateway, outcome, reason);
    this.#deps.failures.failed({ appId: slice.appId, pushId: slice.pushId, gateway, outcome, reason, cause });
  }

  #notSent(slice: SliceContext, gateway: GatewayName, reason: DeliveryReason, device: EventDevice): void {
    slice.counts.fail(reason);
    slice.events?.notSent(device, gateway, reason);
    this.#failed(slice, gateway, 'not-sent', reason, notSentCauses[reason]);
  }

  /** Removes the installation unless it was saved again since it was read. */
  async #forget(appId: string, device: UnregisteredInstallation): Promise<void> {
    try {
      await this.#deps.installations.deleteIfUnchanged(appId, device.objectId, device.updatedAt);
    } catch (error) {
      // The next push finds the token unregistered again.
      this.#deps.logger.warn({ err: error, app: appId, installation: device.objectId }, 'could not remove an unregistered installation');
    }
  }

  /**
   * `badge: "Increment"`: APNs cannot add to a badge, so the installation
   * keeps the count; it goes up by one per push, without touching the
   * `updatedAt` that measures when the device last opened the app. The write
   * keeps the `updatedAt` it read, so it applies only while that is still the
   * stored one: a device saved meanwhile is read again, or its newer
   * `updatedAt` would be put back to the older one (and idle sweeps and token
   * cleanup would take it for unchanged).
   */
  async #incrementedBadge(slice: SliceContext, installation: StoredObject | null): Promise<number> {
    if (installation === null) return 1;
    let current: StoredObject | null = installation;
    for (let attempt = 0; attempt < 3 && current !== null; attempt += 1) {
      const { objectId, updatedAt } = current;
      try {
        const updated = await this.#deps.installations.update(
          slice.appId,
          objectId,
          [
            { op: 'expect', path: ['updatedAt'], value: updatedAt },
            { op: 'increment', path: ['badge'], amount: 1 },
          ],
          { updatedAt },
        );
        const badge = updated?.badge;
        if (typeof badge === 'number' && Number.isSafeInteger(badge) && badge > 0) return badge;
        break;
      } catch (error) {
        if (error instanceof PreconditionFailedError) {
          current = await this.#deps.installations.get(slice.appId, objectId);
          continue;
        }
        // A badge that is not a number (written by a client) cannot be counted up; the device gets 1.
        this.#deps.logger.debug({ err: error, app: slice.appId, installation: objectId }, 'badge not incremented');
        break;
      }
    }
    return nextBadge((current ?? installation).badge);
  }
}
