import type { DeliveryEvent } from '../delivery-event.ts';
import type { DeliveryEvents, DeliverySlice } from '../delivery-events.ts';
import type { WebhookEvent } from './webhook-event.ts';
import type { Webhooks } from './webhooks.ts';

const recorded = Promise.resolve();

/**
 * The sink that turns a slice's delivery events into webhook events for the
 * app's endpoints: `delivery.failed` for every device not delivered (invalid
 * token or failed), `installation.removed` beside it when the gateway said
 * the token is gone and Herald removes the installation, and
 * `delivery.succeeded` for each delivered device when an endpoint asks for
 * it. Answers at once: the events are queued (`Webhooks.emit`), never sent
 * on the slice's time.
 */
export class WebhookDeliveryEvents implements DeliveryEvents {
  readonly #webhooks: Pick<Webhooks, 'interestOf' | 'emit'>;

  constructor(webhooks: Pick<Webhooks, 'interestOf' | 'emit'>) {
    this.#webhooks = webhooks;
  }

  record(slice: DeliverySlice, events: readonly DeliveryEvent[]): Promise<void> {
    const interest = this.#webhooks.interestOf(slice.appId);
    if (interest.size === 0) return recorded;
    const failed = interest.has('delivery.failed');
    const succeeded = interest.has('delivery.succeeded');
    const removed = interest.has('installation.removed');
    if (!failed && !succeeded && !removed) return recorded;
    const queued: WebhookEvent[] = [];
    for (const delivery of events) {
      if (delivery.outcome === 'delivered') {
        if (succeeded) queued.push({ type: 'delivery.succeeded', delivery });
        continue;
      }
      if (failed) queued.push({ type: 'delivery.failed', delivery });
      if (removed && delivery.unregistered && delivery.installation !== null) queued.push({ type: 'installation.removed', delivery });
    }
    this.#webhooks.emit(slice.appId, queued);
    return recorded;
  }
}
