import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceToken } from '../../support/gateways/gateway-fixtures.ts';
import { serviceEndpoints } from '../../support/service-endpoints.ts';
import { testBackends } from '../../support/test-backends.ts';
import { withDeadline } from '../../support/with-deadline.ts';
import { startPushHerald, uniqueName, type PushHerald } from '../support/push-herald.ts';

/*
 * The outcome stream (docs/delivery-log.md): turned on
 * (`push.outcomeStream.enabled`), on Kafka every targeted device's final
 * outcome is a message of <prefix>push.outcomes, keyed by its installation;
 * on the embedded bus there is no stream (webhooks carry the events there).
 * It is off by default.
 */

let p: PushHerald;
beforeAll(async () => {
  p = await startPushHerald({ engine: { outcomeStream: { enabled: true } } });
});
afterAll(async () => {
  await p?.close();
});

async function produced(herald: PushHerald = p): Promise<number> {
  const text = await (await fetch(`${herald.h.baseUrl}/metrics`)).text();
  return Number(/^herald_outcome_stream_events_produced_total (\S+)$/m.exec(text)?.[1] ?? 'NaN');
}

/** A push to a fresh channel of three devices: delivered, BadDeviceToken, and no registrationId. */
async function pushToThree(herald: PushHerald = p): Promise<{ pushId: string; ids: string[] }> {
  const channel = uniqueName('stream');
  herald.fakes.apns.respondTo(deviceToken(811), [{ status: 400, reason: 'BadDeviceToken' }]);
  const ids = [
    await herald.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(810), channels: [channel] }),
    await herald.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(811), channels: [channel] }),
    await herald.saveInstallation({ deviceType: 'android', installationId: uniqueName('i'), vendor: 'fcm', channels: [channel] }),
  ];
  const res = await herald.send({ channels: [channel], data: { alert: 'Streamed' } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const pushId = res.body.objectId as string;
  await herald.settled(pushId);
  return { pushId, ids };
}

describe.runIf(testBackends() === 'distributed')('the outcome stream on Kafka', () => {
  it("carries every targeted device's final outcome, keyed by its installation", async () => {
    const { pushId, ids } = await pushToThree();
    const consumer = new Kafka({ clientId: 'herald-stream-reader', brokers: [...serviceEndpoints.kafka.brokers], logLevel: logLevel.NOTHING }).consumer({ groupId: uniqueName('reader') });
    const read: { key: string; value: Record<string, unknown> }[] = [];
    const { promise, resolve } = Promise.withResolvers<void>();
    await consumer.connect();
    try {
      await consumer.subscribe({ topic: p.h.herald.runtime.topics.outcomes, fromBeginning: true });
      await consumer.run({
        eachMessage: ({ message }) => {
          const value = JSON.parse(message.value?.toString('utf8') ?? '{}') as Record<string, unknown>;
          if (value.pushId === pushId) read.push({ key: message.key?.toString('utf8') ?? '', value });
          if (read.length >= 3) resolve();
          return Promise.resolve();
        },
      });
      await withDeadline(promise, 'three outcome messages of the push', { timeoutMs: 30_000, seen: () => String(read.length) });
    } finally {
      await consumer.disconnect();
    }
    expect(read.map((message) => [message.key, message.value.installation, message.value.outcome, message.value.reason]).sort()).toEqual(
      [
        [ids[0], ids[0], 'delivered', null],
        [ids[1], ids[1], 'invalidToken', 'BadDeviceToken'],
        [ids[2], ids[2], 'failed', 'NoRegistrationId'],
      ].sort(),
    );
    expect(read.every((message) => message.value.version === 1 && typeof message.value.id === 'string')).toBe(true);
    expect(await produced()).toBeGreaterThanOrEqual(3);
  });
});

describe.runIf(testBackends() === 'embedded')('the outcome stream on the embedded bus', () => {
  it('is not produced, even turned on: there is no Kafka topic for a team to read', async () => {
    await pushToThree();
    expect(await produced()).toBe(0);
  });
});

describe('the outcome stream by default', () => {
  it('is off, also on Kafka: a push makes no message', async () => {
    const plain = await startPushHerald();
    try {
      await pushToThree(plain);
      expect(await produced(plain)).toBe(0);
      expect(plain.h.herald.runtime.config.push.outcomeStream.enabled).toBe(false);
    } finally {
      await plain.close();
    }
  });
});
