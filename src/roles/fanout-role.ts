import type { Subscription } from '../core/ports/bus.ts';
import { FanOut } from '../push/fanout/fan-out.ts';
import { appGatewaysOf } from '../push/gateways/app-gateways.ts';
import type { Runtime } from '../runtime/create-runtime.ts';
import { consumerStatus } from './consumer-status.ts';
import { RoleLifecycle } from './role-lifecycle.ts';
import type { Role, RoleStatus } from './role.ts';

const dayMs = 24 * 60 * 60 * 1000;

/** The fan-out: a member of the `herald-fanout` group on `push.requests`. */
export class FanOutRole implements Role {
  readonly name = 'fanout';
  readonly #runtime: Runtime;
  readonly #lifecycle = new RoleLifecycle();
  #subscription: Subscription | undefined;

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
    const { config, store, bus, topics, clock, logger, metrics } = this.#runtime;
    const gateways = new Map(config.apps.map((app) => [app.id, appGatewaysOf(app.push)]));
    const fanOut = new FanOut({
      store,
      bus,
      topics,
      clock,
      logger: logger.child({ role: this.name }),
      sliceSize: config.push.sliceSize,
      idleMs: config.push.idleInstallationDays * dayMs,
      appGateways: (appId) => gateways.get(appId),
      pushEnds: this.#runtime.webhooks.pushEnds,
    });
    const groupId = `${config.bus.topicPrefix}herald-fanout`;
    this.#subscription = await bus.subscribe({ groupId, topics: [topics.requests], handler: (message, context) => fanOut.handle(message, context), concurrency: 4 });
    metrics.addLagReader(async () => [{ group: groupId, topic: topics.requests, lag: await bus.lag(groupId, topics.requests) }]);
  }

  close(): Promise<void> {
    return this.#lifecycle.close(async () => {
      await this.#subscription?.close();
    });
  }
}
