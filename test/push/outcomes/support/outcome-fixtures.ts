import type { DeliveryEvent } from '../../../../src/push/outcomes/delivery-event.ts';
import type { WebhookDropReason, WebhookMetrics, WebhookRequestResult } from '../../../../src/push/outcomes/webhooks/webhook-metrics.ts';

/** A delivery event of push `p1`, slice `s0/0`, for installation `inst<n>`, failed with BadDeviceToken unless told otherwise. */
export function deliveryEvent(n: number, overrides: Partial<DeliveryEvent> = {}): DeliveryEvent {
  return {
    version: 1,
    appId: 'shop',
    pushId: 'p1',
    sliceKey: 's0/0',
    installation: `inst${n}`,
    tokenSuffix: String(n).padStart(8, '0'),
    platform: 'ios',
    gateway: 'apns',
    outcome: 'invalidToken',
    reason: 'BadDeviceToken',
    unregistered: false,
    status: 400,
    messageId: null,
    attempts: 1,
    latencyMs: 3.5,
    at: Date.UTC(2026, 10, 27, 12, 0, 0) + n,
    ...overrides,
  };
}

/** Webhook metrics that keep what they are told, by app/endpoint. */
export class RecordedWebhookMetrics implements WebhookMetrics {
  readonly deliveredCounts = new Map<string, number>();
  readonly droppedCounts = new Map<string, number>();
  readonly results: WebhookRequestResult[] = [];
  readonly queues = new Map<string, () => number>();

  delivered(app: string, endpoint: string, count: number): void {
    this.deliveredCounts.set(`${app}/${endpoint}`, (this.deliveredCounts.get(`${app}/${endpoint}`) ?? 0) + count);
  }

  dropped(app: string, endpoint: string, reason: WebhookDropReason, count: number): void {
    const key = `${app}/${endpoint}/${reason}`;
    this.droppedCounts.set(key, (this.droppedCounts.get(key) ?? 0) + count);
  }

  request(_app: string, _endpoint: string, result: WebhookRequestResult): void {
    this.results.push(result);
  }

  trackQueue(app: string, endpoint: string, read: () => number): () => void {
    this.queues.set(`${app}/${endpoint}`, read);
    return () => this.queues.delete(`${app}/${endpoint}`);
  }

  deliveredTo(app: string, endpoint: string): number {
    return this.deliveredCounts.get(`${app}/${endpoint}`) ?? 0;
  }

  droppedAt(app: string, endpoint: string, reason: WebhookDropReason): number {
    return this.droppedCounts.get(`${app}/${endpoint}/${reason}`) ?? 0;
  }
}
