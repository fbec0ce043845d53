import type { PushCounts } from '../../core/ports/push-store.ts';
import type { DeliveryReason } from '../gateways/delivery-reasons.ts';
import type { DeliveryOutcome } from '../gateways/delivery.ts';
import type { Platform } from '../requests/push-request.ts';

/** The counters one slice reports, filled as its deliveries end (SPEC-NOTES.md, push records). */
export class SliceCounts {
  devices = 0;
  successes = 0;
  errors = 0;
  invalidTokens = 0;
  iosSuccesses = 0;
  androidSuccesses = 0;
  readonly errorReasons: Record<string, number> = {};

  /** One device's final outcome; its reason is one of the documented set, classified where the answer was read. */
  add(platform: Platform, outcome: DeliveryOutcome): void {
    switch (outcome.kind) {
      case 'delivered':
        this.successes += 1;
        if (platform === 'ios') this.iosSuccesses += 1;
        else this.androidSuccesses += 1;
        return;
      case 'invalid-token':
        this.invalidTokens += 1;
        this.#reason(outcome.reason);
        return;
      default:
        this.errors += 1;
        this.#reason(outcome.reason);
    }
  }

  /** A device that could not be sent to at all (no token, no credentials, expired). */
  fail(reason: DeliveryReason, count = 1): void {
    this.errors += count;
    this.#reason(reason, count);
  }

  toCounts(): PushCounts {
    const { devices, successes, errors, invalidTokens, iosSuccesses, androidSuccesses, errorReasons } = this;
    return { devices, successes, errors, invalidTokens, iosSuccesses, androidSuccesses, errorReasons: { ...errorReasons } };
  }

  #reason(reason: string, count = 1): void {
    this.errorReasons[reason] = (this.errorReasons[reason] ?? 0) + count;
  }
}
