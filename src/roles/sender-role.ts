import type { Subscription } from '../core/ports/bus.ts';
import { logAppGateways } from '../push/gateways/log-app-gateways.ts';
import { loadPushCredentials } from '../push/gateways/load-push-credentials.ts';
import { PushGateways } from '../push/gateways/push-gateways.ts';
import { deliveryLogPolicy } from '../push/delivery-log/delivery-log-policy.ts';
import { DeliveryLogWriter } from '../push/delivery-log/delivery-log-writer.ts';
import { DeliveryEventSinks } from '../push/outcomes/delivery-event-sinks.ts';
import type { DeliveryEvents } from '../push/outcomes/delivery-events.ts';
import { DeliveryFailureLog } from '../push/sender/delivery-failure-log.ts';
import { DeviceDeliveries } from '../push/sender/device-deliveries.ts';
import { Sender } from '../push/sender/sender.ts';
import type { Runtime } from '../runtime/create-runtime.ts';
import { outcomeSinksOf, type OutcomeSinks } from '../runtime/outcome-sinks.ts';
import { consumerStatus } from './consumer-status.ts';
import { RoleLifecycle } from './role-lifecycle.ts';
import type { Role, RoleStatus } from './role.ts';

const dayMs = 24 * 60 * 60 * 1000;

/**
 * The senders: a member of the `herald-sender` group on `push.tasks`, one
 * handler per owned partition at a time (up to `senderConcurrency`), with the
 * pooled gateway clients of every app. The apps' credential files are read
 * when the role starts, so a bad one stops the start.
 */
export class SenderRole implements Role {
  readonly name = 'sender';
  readonly #runtime: Runtime;
  readonly #lifecycle = new RoleLifecycle();
  #gateways: PushGateways | undefined;
  #failures: DeliveryFailureLog | undefined;
  #subscription: Subscription | undefined;
  #outcomes: OutcomeSinks | undefined;

  constructor(runtime: Runtime) {
    this.#runtime = runtime;
  }

  start(): Promise<void> {
    return this.#lifecycle.start(() => this.#start());
  }

  status(): RoleStatus {
    return consumerStatus(this.#lifecycle, this.#subscription);
  }

  async #start(): Promise<void> {
    const { config, store, bus, coord, topics, clock, logger, metrics } = this.#runtime;
    const roleLogger = logger.child({ role: this.name });
    const settings = config.push.gateways;
    const credentials = loadPushCredentials(config.apps, settings, { warn: (message) => roleLogger.warn(message), now: clock.now() });
    logAppGateways(config.apps, roleLogger);
    const gateways = new PushGateways({ credentials, settings, metrics: metrics.gateways, logger: roleLogger, clock });
    this.#gateways = gateways;
    const failures = new DeliveryFailureLog({ logger: roleLogger, clock });
    this.#failures = failures;
    const deliveries = new DeviceDeliveries({
      gateways,
      installations: store.installations,
      retry: settings.retry,
      gatewayMetrics: metrics.gateways,
      failures,
      clock,
      logger: roleLogger,
    });
    const outcomes = outcomeSinksOf(this.#runtime, roleLogger);
    this.#outcomes = outcomes;
    const sender = new Sender({
      store,
      bus,
      topics,
      buckets: coord,
      deliveries,
      ...deliveryEventsOf(this.#runtime, outcomes.sinks),
      pushEnds: this.#runtime.webhooks.pushEnds,
      clock,
      logger: roleLogger,
      metrics: metrics.sender,
      sliceSize: config.push.sliceSize,
      idleMs: config.push.idleInstallationDays * dayMs,
      deliveryWindow: config.push.deliveryWindow,
    });
    const groupId = `${config.bus.topicPrefix}herald-sender`;
    this.#subscription = await bus.subscribe({
      groupId,
      topics: [topics.tasks],
      handler: (message, context) => sender.handle(message, context),
      concurrency: config.push.senderConcurrency,
    });
    metrics.addLagReader(async () => [{ group: groupId, topic: topics.tasks, lag: await bus.lag(groupId, topics.tasks) }]);
  }

  /** Stops taking tasks, lets the slices in hand finish, then closes the gateway sessions. */
  close(): Promise<void> {
    return this.#lifecycle.close(async () => {
      await this.#subscription?.close();
      // The stream's buffer goes out while the bus is still open.
      await this.#outcomes?.close();
      await this.#gateways?.close();
      // The counts of failures not yet written go out before the process does.
      this.#failures?.close();
    });
  }
}

/**
 * Where the senders hand each slice's outcomes: the delivery log
 * (docs/delivery-log.md) unless `push.deliveryLog.enabled` is off, and as
 * events to whatever else follows the outcomes. With neither, no event is
 * made.
 */
function deliveryEventsOf(runtime: Runtime, outcomeSinks: readonly DeliveryEvents[]): { deliveryLog?: DeliveryLogWriter; events?: DeliveryEvents } {
  const { config, store } = runtime;
  const targets: { deliveryLog?: DeliveryLogWriter; events?: DeliveryEvents } = {};
  if (config.push.deliveryLog.enabled) {
    const policies = new Map(config.apps.map((app) => [app.id, deliveryLogPolicy(config.push, app.settings)]));
    const fallback = deliveryLogPolicy(config.push, undefined);
    targets.deliveryLog = new DeliveryLogWriter({ store: store.deliveries, policyOf: (appId) => policies.get(appId) ?? fallback });
  }
  if (outcomeSinks.length > 0) targets.events = new DeliveryEventSinks(outcomeSinks);
  return targets;
}
