import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceToken } from '../../support/gateways/gateway-fixtures.ts';
import { androidInstallation, dayMs, iosInstallation, startPushHerald, uniqueName, type PushHerald } from '../support/push-herald.ts';

// Answers are untyped JSON on the wire.
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let p: PushHerald;
beforeAll(async () => {
  p = await startPushHerald();
});
afterAll(async () => {
  await p?.close();
});

async function explain(push: string, installation: string): Promise<{ status: number; body: Json }> {
  const res = await p.h.request('GET', `/1.1/notifications/${push}/explain?installation=${installation}`, { master: true });
  return { status: res.status, body: res.body as Json };
}

/** The one push's explanation of `installation`, with its rules by name. */
async function explained(push: string, installation: string): Promise<Json & { rule: (name: string) => Json }> {
  const res = await explain(push, installation);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.pushes).toHaveLength(1);
  const only = res.body.pushes[0] as Json;
  expect(only.rules.map((rule: Json) => rule.rule)).toEqual(['where', 'platform', 'active', 'route', 'expiry', 'cancelled', 'reqId', 'devCertificateLimit']);
  return { ...only, found: res.body.found, rule: (name: string) => only.rules.find((rule: Json) => rule.rule === name) as Json };
}

async function pushTo(body: Record<string, unknown>): Promise<string> {
  const res = await p.send(body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  await p.settled(res.body.objectId);
  return res.body.objectId as string;
}

describe('why a device did or did not get a push', () => {
  const channel = uniqueName('why');
  const ids: Record<string, string> = {};
  let push: string;

  beforeAll(async () => {
    ids.got = await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(601), channels: [channel] });
    ids.elsewhere = await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(602), channels: [uniqueName('other')] });
    ids.lc = await p.saveInstallation({ deviceType: 'android', installationId: uniqueName('why-lc'), registrationId: 'why-lc', vendor: 'lc', channels: [channel] });
    ids.noProfile = await p.saveInstallation({ deviceType: 'android', installationId: uniqueName('why-hms'), registrationId: 'why-hms', vendor: 'HMS', deviceProfile: 'nope', channels: [channel] });
    const idle = iosInstallation(603, p.clock.now() - 100 * dayMs, { channels: [channel] });
    const windows = { ...androidInstallation(uniqueName('win'), p.clock.now(), { channels: [channel] }), deviceType: 'windows' };
    await p.seed([idle, windows]);
    ids.idle = idle.objectId;
    ids.windows = windows.objectId;
    push = await pushTo({ channels: [channel], data: { alert: 'Why' }, req_id: uniqueName('req').slice(0, 16) });
  });

  it('passes every rule for a device that got it, beside its entry', async () => {
    const got = await explained(push, ids.got as string);
    expect(got).toMatchObject({ push, status: 'done', targeted: true, found: true });
    expect(got.rules.every((rule: Json) => rule.pass === true && typeof rule.why === 'string')).toBe(true);
    expect(got.rule('route').why).toContain(`token …${deviceToken(601).slice(-8)}`);
    expect(got.rule('reqId').why).toContain('req_id');
    expect(got.deliveries).toEqual([expect.objectContaining({ installation: ids.got, outcome: 'delivered', attempts: 1 })]);
  });

  it("fails where for a device outside the push's channels, and the log has nothing of it", async () => {
    const elsewhere = await explained(push, ids.elsewhere as string);
    expect(elsewhere.rule('where')).toMatchObject({ pass: false, why: expect.stringContaining(channel) });
    expect(elsewhere).toMatchObject({ targeted: false, deliveries: [] });
  });

  it('fails platform for a device that is neither iOS nor Android', async () => {
    const windows = await explained(push, ids.windows as string);
    expect(windows.rule('platform')).toMatchObject({ pass: false, why: expect.stringContaining('"windows"') });
    expect(windows).toMatchObject({ targeted: false, deliveries: [] });
  });

  it('fails active for a device not saved in the 90 days before the push', async () => {
    const idle = await explained(push, ids.idle as string);
    expect(idle.rule('active')).toMatchObject({ pass: false, why: expect.stringContaining('more than 90 days') });
    expect(idle).toMatchObject({ targeted: false, deliveries: [] });
  });

  it('fails route with the reason the sender recorded for the same device', async () => {
    for (const [name, reason] of [
      ['lc', 'NoRegistrationId'],
      ['noProfile', 'NoVendorCredentials'],
    ] as const) {
      const device = await explained(push, ids[name] as string);
      expect(device.rule('route'), name).toMatchObject({ pass: false, reason });
      expect(device.targeted, name).toBe(true);
      expect(device.deliveries, name).toEqual([expect.objectContaining({ outcome: 'failed', reason, attempts: 0 })]);
    }
  });

  it('answers 400 without an installation, and 404 for one that never existed or a push that does not', async () => {
    const missing = await p.h.request('GET', `/1.1/notifications/${push}/explain`, { master: true });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ code: 113, error: expect.any(String) });
    expect(await explain(push, 'neverSavedInstallation')).toMatchObject({ status: 404, body: { code: 101 } });
    expect(await explain(push, 'not-an-id!')).toMatchObject({ status: 404, body: { code: 101 } });
    expect(await explain('nosuchpush', ids.got as string)).toMatchObject({ status: 404, body: { code: 101 } });
  });
});

describe('rules of sending', () => {
  it('fails expiry when the push expired before the device was sent to', async () => {
    const minute = 60_000;
    const token = deviceToken(610);
    const objectId = await p.saveInstallation({ deviceType: 'ios', deviceToken: token });
    // The first request gets no answer; by the resend the push has expired.
    p.fakes.apns.respondTo(token, [{ stall: true }]);
    const res = await p.sendToDevices({ device_type: 'ios', device_ids: [token], data: { alert: 'Soon stale' }, expiration_interval: 60 });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    await p.fakes.apns.waitForRequests(p.fakes.apns.log.requestCount + 1);
    p.clock.advance(2 * minute);
    await p.settled(res.body.objectId);
    const stale = await explained(res.body.objectId, objectId);
    expect(stale.rule('where')).toMatchObject({ pass: true, why: expect.stringContaining('device_ids') });
    expect(stale.rule('expiry')).toMatchObject({ pass: false, reason: 'Expired' });
    expect(stale.deliveries).toEqual([expect.objectContaining({ outcome: 'failed', reason: 'Expired', attempts: 1, status: null })]);
  });

  it('fails cancelled for a push whose record was deleted, still showing what was sent', async () => {
    const channel = uniqueName('gone');
    const objectId = await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(611), channels: [channel] });
    const push = await pushTo({ channels: [channel], data: { alert: 'Then cancelled' } });
    const record = await p.record(push);
    const deleted = await p.h.request('DELETE', `/1.1/notifications/${String(record?.notificationId)}`, { master: true });
    expect(deleted.status).toBe(200);
    const cancelled = await explained(push, objectId);
    expect(cancelled.rule('cancelled')).toMatchObject({ pass: false, why: expect.stringContaining('cancelled') });
    expect(cancelled.rule('where').pass).toBeNull();
    expect(cancelled).toMatchObject({ status: null, targeted: null });
    expect(cancelled.deliveries).toEqual([expect.objectContaining({ installation: objectId, outcome: 'delivered' })]);
  });

  it('explains an installation removed for its unregistered token by its entry', async () => {
    const token = deviceToken(612);
    const channel = uniqueName('unreg');
    p.fakes.apns.respondTo(token, [{ status: 410, reason: 'Unregistered', timestamp: p.clock.now() }]);
    const objectId = await p.saveInstallation({ deviceType: 'ios', deviceToken: token, channels: [channel] });
    const push = await pushTo({ channels: [channel], data: { alert: 'Gone' } });
    // The installation goes once its slice is recorded, a moment after the push record reads done.
    await expect.poll(async () => (await explained(push, objectId)).found, { timeout: 10_000, message: 'the installation removed' }).toBe(false);
    const gone = await explained(push, objectId);
    expect(gone.found).toBe(false);
    expect(gone.rule('route').pass).toBeNull();
    expect(gone.rule('cancelled').pass).toBe(true);
    expect(gone.deliveries).toEqual([expect.objectContaining({ outcome: 'invalidToken', reason: 'Unregistered', unregistered: true })]);
  });

  it('says a production push has no development-certificate limit and a small development one is within it', async () => {
    const channel = uniqueName('dev');
    const objectId = await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(613), channels: [channel] });
    const prod = await explained(await pushTo({ channels: [channel], data: { alert: 'Prod' } }), objectId);
    expect(prod.rule('devCertificateLimit')).toMatchObject({ pass: true, why: expect.stringContaining('production') });
    const dev = await explained(await pushTo({ channels: [channel], data: { alert: 'Dev' }, prod: 'dev' }), objectId);
    expect(dev.rule('devCertificateLimit')).toMatchObject({ pass: true, why: expect.stringContaining('within') });
    expect(dev.rule('route').why).toContain('sandbox');
  });
});
