import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installationRemoval as removal } from '../support/installation-removal.ts';
import { hmsApps, oppoApps } from '../../support/gateways/gateway-fixtures.ts';
import { dayMs, hmsInstallation, startPushHerald, uniqueName, type PushHerald } from '../support/push-herald.ts';

/*
 * POST /1.1/push/devices with a vendor names devices by registrationId. Like
 * an iOS token, an id an installation holds is that device: its activity,
 * its profile and its removal when the gateway says the token is gone.
 */

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

async function pushToDevices(body: Record<string, unknown>) {
  const res = await p.sendToDevices({ device_type: 'android', data: { alert: 'Listed' }, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return p.settled(res.body.objectId);
}

const appIdsAt = (token: string) => p.fakes.hms.log.deliveriesTo(token).map((delivery) => delivery.request.appId);

describe('/1.1/push/devices with a vendor, for registrationIds installations hold', () => {
  it('sends through the profile of the installation holding the id when the request names none, and through the request\'s when it does', async () => {
    const token = `hmstoken-${uniqueName('p')}`;
    await p.saveInstallation({ deviceType: 'android', installationId: uniqueName('i'), registrationId: token, vendor: 'HMS', deviceProfile: 'second' });
    expect(await pushToDevices({ vendor: 'HMS', device_ids: [token] })).toMatchObject({ devices: 1, successes: 1 });
    expect(appIdsAt(token)).toEqual([hmsApps.second.appId]);
    expect(await pushToDevices({ vendor: 'HMS', device_profile: '_default', device_ids: [token] })).toMatchObject({ devices: 1, successes: 1 });
    expect(appIdsAt(token)).toEqual([hmsApps.second.appId, hmsApps._default.appId]);
  });

  it('leaves out an id whose installation was not saved within the idle time, uncounted, and sends to one no installation holds', async () => {
    const idle = hmsInstallation(uniqueName('idle'), p.clock.now() - 200 * dayMs);
    await p.seed([idle]);
    const unknown = `hmstoken-${uniqueName('nobody')}`;
    const record = await pushToDevices({ vendor: 'HMS', device_ids: [idle.registrationId, unknown] });
    expect(record).toMatchObject({ devices: 1, successes: 1, errors: 0, device_ids: [idle.registrationId, unknown] });
    expect(p.fakes.hms.requestsWith(idle.registrationId as string)).toEqual([]);
    expect(appIdsAt(unknown)).toEqual([hmsApps._default.appId]);
  });

  it('removes the installation whose token the maker says is gone, and the FCM one FCM answers UNREGISTERED for', async () => {
    // HMS's word on a lone token is the device's once the profile has delivered (docs/push-engine.md, Outcomes).
    expect(await pushToDevices({ vendor: 'HMS', device_ids: [`hmstoken-${uniqueName('ok')}`] })).toMatchObject({ successes: 1 });
    const hmsToken = `hmstoken-${uniqueName('gone')}`;
    const hmsDevice = await p.saveInstallation({ deviceType: 'android', installationId: uniqueName('i'), registrationId: hmsToken, vendor: 'HMS' });
    p.fakes.hms.invalidate(hmsToken);
    expect(await pushToDevices({ vendor: 'HMS', device_ids: [hmsToken] })).toMatchObject({ devices: 1, invalidTokens: 1, errorReasons: { Hms80300007: 1 } });
    await expect.poll(() => installationExists(hmsDevice), removal).toBe(false);

    const fcmToken = `fcm-${uniqueName('gone')}`;
    const fcmDevice = await p.saveInstallation({ deviceType: 'android', installationId: uniqueName('i'), registrationId: fcmToken, vendor: 'fcm' });
    p.fakes.fcm.respondTo(fcmToken, [{ errorCode: 'UNREGISTERED' }]);
    expect(await pushToDevices({ vendor: 'fcm', device_ids: [fcmToken] })).toMatchObject({ devices: 1, invalidTokens: 1, errorReasons: { UNREGISTERED: 1 } });
    await expect.poll(() => installationExists(fcmDevice), removal).toBe(false);
  });

  it('takes the last saved of the installations holding the id, and none of another maker\'s', async () => {
    const shared = `CN_${uniqueName('shared')}`;
    const now = p.clock.now();
    // A reinstall left the older installation behind; a Huawei installation holding the same string is not an OPPO device.
    const older = { ...hmsInstallation(uniqueName('old'), now - 2 * dayMs, { registrationId: shared, vendor: 'oppo' }), installationId: uniqueName('o') };
    const newer = { ...hmsInstallation(uniqueName('new'), now - dayMs, { registrationId: shared, vendor: 'oppo', deviceProfile: 'second' }), installationId: uniqueName('o') };
    const huawei = hmsInstallation(uniqueName('hw'), now, { registrationId: shared, deviceProfile: 'nowhere' });
    await p.seed([older, newer, huawei]);
    expect(await pushToDevices({ vendor: 'oppo', device_ids: [shared] })).toMatchObject({ devices: 1, successes: 1, errors: 0 });
    expect(p.fakes.oppo.log.deliveriesTo(shared).map((delivery) => delivery.request.appKey)).toEqual([oppoApps.second.appKey]);
    expect(p.fakes.hms.requestsWith(shared)).toEqual([]);
  });
});
