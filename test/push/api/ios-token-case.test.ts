import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPushHerald, uniqueName, type PushHerald } from '../support/push-herald.ts';

/**
 * APNs tokens are hex: a device whose SDK sends its token in upper case one
 * day and lower case the next is one installation and gets one push, by
 * channel, by a `where` naming the token in either case, and by device id.
 */
let p: PushHerald;

beforeAll(async () => {
  p = await startPushHerald();
});
afterAll(async () => {
  await p?.close();
});

const token = (): string => randomBytes(32).toString('hex');

describe('one iOS device, its token in either case', () => {
  it('is one installation and gets one push, however the push names it', async () => {
    const lower = token();
    const upper = lower.toUpperCase();
    const channel = uniqueName('case');
    const first = await p.saveInstallation({ deviceType: 'ios', deviceToken: upper, channels: [channel], apnsTopic: 'com.herald.case' });
    const second = await p.saveInstallation({ deviceType: 'ios', deviceToken: lower, channels: [channel] });
    expect(second).toBe(first);

    const byChannel = await p.send({ channels: [channel], data: { alert: 'Channel' } });
    expect(await p.settled(byChannel.body.objectId)).toMatchObject({ devices: 1, successes: 1 });
    expect(p.fakes.apns.deliveriesTo(lower)).toHaveLength(1);
    expect(p.fakes.apns.deliveriesTo(upper)).toHaveLength(0);

    const byToken = await p.send({ where: { deviceToken: upper }, data: { alert: 'Where' } });
    expect(await p.settled(byToken.body.objectId)).toMatchObject({ devices: 1, successes: 1 });
    expect(p.fakes.apns.deliveriesTo(lower)).toHaveLength(2);

    // A device id in upper case finds the installation: its apnsTopic is used.
    const byId = await p.sendToDevices({ device_type: 'ios', device_ids: [upper, lower], data: { alert: 'Listed' } });
    expect(byId.status, JSON.stringify(byId.body)).toBe(201);
    expect(await p.settled(byId.body.objectId)).toMatchObject({ devices: 1, successes: 1, device_ids: [lower] });
    const deliveries = p.fakes.apns.deliveriesTo(lower);
    expect(deliveries).toHaveLength(3);
    expect(deliveries.at(-1)?.headers['apns-topic']).toBe('com.herald.case');
  });
});
