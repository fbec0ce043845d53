import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installationRemoval as removal } from '../support/installation-removal.ts';
import { deviceToken } from '../../support/gateways/gateway-fixtures.ts';
import { startPushHerald, uniqueName, type PushHerald } from '../support/push-herald.ts';

let p: PushHerald;
beforeAll(async () => {
  p = await startPushHerald();
});
afterAll(async () => {
  await p?.close();
});

async function installationExists(objectId: string): Promise<boolean> {
  const res = await p.h.request('GET', `/1.1/installations/${objectId}`, { master: true });
  expect([200, 404]).toContain(res.status);
  return res.status === 200;
}

/** Pushes to the installations of a fresh channel holding `bodies`, and answers the settled record. */
async function pushToChannel(bodies: Record<string, unknown>[]): Promise<{ record: Record<string, unknown>; ids: string[] }> {
  const channel = uniqueName('out');
  const ids: string[] = [];
  for (const body of bodies) ids.push(await p.saveInstallation({ ...body, channels: [channel] }));
  const res = await p.send({ channels: [channel], data: { alert: 'Outcome' } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { record: await p.settled(res.body.objectId), ids };
}

describe('tokens the gateway refuses', () => {
  it('removes the installation APNs answers 410 Unregistered for', async () => {
    p.fakes.apns.respondTo(deviceToken(1), [{ status: 410, reason: 'Unregistered', timestamp: p.clock.now() }]);
    const { record, ids } = await pushToChannel([{ deviceType: 'ios', deviceToken: deviceToken(1) }, { deviceType: 'ios', deviceToken: deviceToken(2) }]);
    expect(record).toMatchObject({ devices: 2, successes: 1, invalidTokens: 1, errors: 0, errorReasons: { Unregistered: 1 } });
    await expect.poll(() => installationExists(ids[0] as string), removal).toBe(false);
    expect(await installationExists(ids[1] as string)).toBe(true);
  });

  it('keeps an installation saved again after the time APNs says the token stopped working', async () => {
    const unregisteredAt = p.clock.now() - 5000;
    p.fakes.apns.respondTo(deviceToken(3), [{ status: 410, reason: 'Unregistered', timestamp: unregisteredAt }]);
    const { record, ids } = await pushToChannel([{ deviceType: 'ios', deviceToken: deviceToken(3) }]);
    expect(record).toMatchObject({ invalidTokens: 1, errorReasons: { Unregistered: 1 } });
    expect(await installationExists(ids[0] as string)).toBe(true);
  });

  it('counts BadDeviceToken as an invalid token and keeps the installation', async () => {
    p.fakes.apns.respondTo(deviceToken(4), [{ status: 400, reason: 'BadDeviceToken' }]);
    const { record, ids } = await pushToChannel([{ deviceType: 'ios', deviceToken: deviceToken(4) }]);
    expect(record).toMatchObject({ devices: 1, successes: 0, invalidTokens: 1, errors: 0, errorReasons: { BadDeviceToken: 1 } });
    expect(await installationExists(ids[0] as string)).toBe(true);
    expect(p.fakes.apns.log.requestsTo(deviceToken(4))).toHaveLength(1);
  });

  it('removes the installation FCM answers UNREGISTERED for', async () => {
    p.fakes.fcm.respondTo('fcm-gone', [{ errorCode: 'UNREGISTERED' }]);
    const { record, ids } = await pushToChannel([
      { deviceType: 'android', installationId: 'out-gone', registrationId: 'fcm-gone', vendor: 'fcm' },
      { deviceType: 'android', installationId: 'out-kept', registrationId: 'fcm-kept', vendor: 'fcm' },
    ]);
    expect(record).toMatchObject({ devices: 2, successes: 1, androidSuccesses: 1, invalidTokens: 1, errorReasons: { UNREGISTERED: 1 } });
    await expect.poll(() => installationExists(ids[0] as string), removal).toBe(false);
    expect(await installationExists(ids[1] as string)).toBe(true);
  });
});

describe('answers worth another try', () => {
  it('waits out a 429 with Retry-After and then delivers every device exactly once', async () => {
    const numbers = [10, 11, 12, 13, 14];
    for (const n of numbers) p.fakes.apns.respondTo(deviceToken(n), [{ status: 429, reason: 'TooManyRequests', retryAfter: 1 }]);
    p.fakes.fcm.respondTo('fcm-busy', [{ errorCode: 'QUOTA_EXCEEDED', retryAfter: 1 }]);
    const { record } = await pushToChannel([
      ...numbers.map((n) => ({ deviceType: 'ios', deviceToken: deviceToken(n) })),
      { deviceType: 'android', installationId: 'out-busy', registrationId: 'fcm-busy', vendor: 'fcm' },
    ]);
    expect(record).toMatchObject({ devices: 6, successes: 6, iosSuccesses: 5, androidSuccesses: 1, errors: 0, invalidTokens: 0, errorReasons: {} });
    for (const n of numbers) {
      expect(p.fakes.apns.log.requestsTo(deviceToken(n)).map((request) => request.status)).toEqual([429, 200]);
    }
    expect(p.fakes.fcm.log.requestsTo('fcm-busy').map((request) => request.status)).toEqual([429, 200]);
  });

  it('retries 500 and 503 until the gateway answers', async () => {
    p.fakes.apns.respondTo(deviceToken(20), [{ status: 500, reason: 'InternalServerError' }, { status: 503, reason: 'ServiceUnavailable' }]);
    p.fakes.fcm.respondTo('fcm-flaky', [{ errorCode: 'UNAVAILABLE' }, { errorCode: 'INTERNAL' }]);
    const { record } = await pushToChannel([
      { deviceType: 'ios', deviceToken: deviceToken(20) },
      { deviceType: 'android', installationId: 'out-flaky', registrationId: 'fcm-flaky', vendor: 'fcm' },
    ]);
    expect(record).toMatchObject({ devices: 2, successes: 2, errors: 0 });
    expect(p.fakes.apns.log.requestsTo(deviceToken(20)).map((request) => request.status)).toEqual([500, 503, 200]);
    expect(p.fakes.fcm.log.requestsTo('fcm-flaky').map((request) => request.status)).toEqual([503, 500, 200]);
  });

  it('gives up after the last attempt and counts the last reason', async () => {
    // Four attempts in all (the test engine's retry policy).
    p.fakes.apns.respondTo(deviceToken(21), Array.from({ length: 4 }, () => ({ status: 503, reason: 'ServiceUnavailable' })));
    const { record } = await pushToChannel([{ deviceType: 'ios', deviceToken: deviceToken(21) }]);
    expect(record).toMatchObject({ devices: 1, successes: 0, errors: 1, errorReasons: { ServiceUnavailable: 1 } });
    expect(p.fakes.apns.log.requestsTo(deviceToken(21))).toHaveLength(4);
  });
});

describe('answers that will not change', () => {
  it('counts a permanent failure such as BadTopic in errors with its reason, without resending', async () => {
    p.fakes.apns.respondTo(deviceToken(30), [{ status: 400, reason: 'BadTopic' }]);
    const { record, ids } = await pushToChannel([{ deviceType: 'ios', deviceToken: deviceToken(30) }, { deviceType: 'ios', deviceToken: deviceToken(31) }]);
    expect(record).toMatchObject({ devices: 2, successes: 1, errors: 1, invalidTokens: 0, errorReasons: { BadTopic: 1 } });
    expect(p.fakes.apns.log.requestsTo(deviceToken(30))).toHaveLength(1);
    expect(await installationExists(ids[0] as string)).toBe(true);
  });
});
