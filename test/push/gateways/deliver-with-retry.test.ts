import { describe, expect, it } from 'vitest';
import { deliverWithRetry, retryDelayMs, type RetryOptions, type RetryPolicy } from '../../../src/push/gateways/deliver-with-retry.ts';
import type { DeliveryOutcome, GatewayClient } from '../../../src/push/gateways/delivery.ts';
import { RecordingMetrics } from '../../support/gateways/recording-metrics.ts';

/** A client that answers from a script and counts its sends. */
class ScriptedClient implements GatewayClient<string> {
  readonly gateway = 'fcm';
  readonly sent: string[] = [];
  readonly #answers: DeliveryOutcome[];

  constructor(answers: DeliveryOutcome[]) {
    this.#answers = answers;
  }

  send(delivery: string): Promise<DeliveryOutcome> {
    this.sent.push(delivery);
    return Promise.resolve(this.#answers.shift() ?? { kind: 'delivered' });
  }
}

const policy: RetryPolicy = { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 1000, maxRetryAfterMs: 5000 };

function recorded(extra: Partial<RetryOptions> = {}): RetryOptions & { waits: number[] } {
  const waits: number[] = [];
  return {
    policy,
    random: () => 0.5,
    delay: (ms) => {
      waits.push(ms);
      return Promise.resolve();
    },
    waits,
    ...extra,
  };
}

describe('deliverWithRetry', () => {
  it('sends once when the first outcome is final, whatever it is', async () => {
    for (const final of [
      { kind: 'delivered' },
      { kind: 'failed', reason: 'BadTopic' },
      { kind: 'invalid-token', reason: 'BadDeviceToken', unregistered: false },
    ] satisfies DeliveryOutcome[]) {
      const client = new ScriptedClient([final]);
      expect(await deliverWithRetry(client, 'd', recorded())).toEqual(final);
      expect(client.sent).toHaveLength(1);
    }
  });

  it('resends after retry outcomes with growing jittered backoff and reports each retry', async () => {
    const client = new ScriptedClient([
      { kind: 'retry', reason: 'ServiceUnavailable' },
      { kind: 'retry', reason: 'InternalServerError' },
    ]);
    const metrics = new RecordingMetrics();
    const options = recorded({ metrics });

    expect(await deliverWithRetry(client, 'd', options)).toEqual({ kind: 'delivered' });
    expect(client.sent).toEqual(['d', 'd', 'd']);
    expect(options.waits).toEqual([75, 150]);
    expect(metrics.retries).toEqual([
      { gateway: 'fcm', reason: 'ServiceUnavailable' },
      { gateway: 'fcm', reason: 'InternalServerError' },
    ]);
  });

  it('turns a retry after the last attempt into failed with its reason', async () => {
    const client = new ScriptedClient(Array.from({ length: 10 }, () => ({ kind: 'retry', reason: 'Timeout' }) as const));
    expect(await deliverWithRetry(client, 'd', recorded())).toEqual({ kind: 'failed', reason: 'Timeout' });
    expect(client.sent).toHaveLength(4);
  });

  it('does not resend after an invalid-token outcome that follows a retry', async () => {
    const client = new ScriptedClient([
      { kind: 'retry', reason: 'TooManyRequests' },
      { kind: 'invalid-token', reason: 'Unregistered', unregistered: true, since: 1 },
    ]);
    expect(await deliverWithRetry(client, 'd', recorded())).toEqual({ kind: 'invalid-token', reason: 'Unregistered', unregistered: true, since: 1 });
    expect(client.sent).toHaveLength(2);
  });

  it('honours Retry-After up to its cap', async () => {
    const client = new ScriptedClient([
      { kind: 'retry', reason: 'TooManyRequests', retryAfterMs: 2000 },
      { kind: 'retry', reason: 'TooManyRequests', retryAfterMs: 3_600_000 },
    ]);
    const options = recorded();
    await deliverWithRetry(client, 'd', options);
    expect(options.waits).toEqual([2000, 5000]);
  });

  it('stops between attempts when aborted, rejecting with the reason and sending nothing more', async () => {
    const controller = new AbortController();
    const client = new ScriptedClient([{ kind: 'retry', reason: 'ServiceUnavailable' }]);
    const reason = new Error('sender stopping');
    const options = recorded({
      signal: controller.signal,
      delay: () => {
        controller.abort(reason);
        return Promise.reject(new Error('timer aborted'));
      },
    });

    await expect(deliverWithRetry(client, 'd', options)).rejects.toBe(reason);
    expect(client.sent).toHaveLength(1);
  });

  it('sends nothing when the signal is already aborted', async () => {
    const client = new ScriptedClient([]);
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    await expect(deliverWithRetry(client, 'd', recorded({ signal: controller.signal }))).rejects.toThrow('gone');
    expect(client.sent).toHaveLength(0);
  });

  it('waits on a real timer by default and can be aborted during the wait', async () => {
    const controller = new AbortController();
    const client = new ScriptedClient([{ kind: 'retry', reason: 'ServiceUnavailable' }]);
    const sending = deliverWithRetry(client, 'd', { policy: { ...policy, baseDelayMs: 60_000, maxDelayMs: 60_000 }, signal: controller.signal });
    queueMicrotask(() => controller.abort(new Error('shutdown')));
    await expect(sending).rejects.toThrow('shutdown');
    expect(client.sent).toHaveLength(1);
  });
});

describe('retryDelayMs', () => {
  it('keeps between half and all of the doubled step, capped', () => {
    expect(retryDelayMs(policy, 1, undefined, () => 0)).toBe(50);
    expect(retryDelayMs(policy, 1, undefined, () => 0.999)).toBeCloseTo(100, 0);
    expect(retryDelayMs(policy, 3, undefined, () => 0)).toBe(200);
    expect(retryDelayMs(policy, 10, undefined, () => 1)).toBe(1000);
  });
});
