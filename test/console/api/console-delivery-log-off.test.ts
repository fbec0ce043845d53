import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceToken } from '../../support/gateways/gateway-fixtures.ts';
import { eventually } from '../../support/eventually.ts';
import { ConsoleClient } from '../support/console-client.ts';
import { people, startConsoleHerald, type ConsoleHerald } from '../support/console-herald.ts';

let c: ConsoleHerald;
let viewer: ConsoleClient;

beforeAll(async () => {
  c = await startConsoleHerald({ engine: { deliveryLog: { enabled: false, successes: 'all', sampleRate: 0.01 } } });
  viewer = new ConsoleClient(c.consoleUrl, c.origin);
  expect((await viewer.signIn(people.viewer)).status).toBe(303);
});

afterAll(async () => {
  await c?.close();
});

const main = (path: string) => `/apps/${c.main.id}${path}`;

describe('the console with the delivery log off (push.deliveryLog.enabled: false)', () => {
  it("shows a push's failures by reason, explains a device by the rules alone, and says a device's outcomes are not kept", async () => {
    const channel = `off${Date.now()}`;
    const saved = await c.h.request('POST', '/1.1/installations', { body: { deviceType: 'ios', deviceToken: deviceToken(9301), channels: [channel] } });
    expect(saved.status).toBe(201);
    c.fakes.apns.respondTo(deviceToken(9301), [{ status: 400, reason: 'TopicDisallowed' }]);
    const push = await c.h.request('POST', '/1.1/push', { master: true, body: { channels: [channel], data: { alert: 'hi' } } });
    const pushPage = main(`/pushes/${push.body.objectId}`);
    const page = await eventually('the push done', async () => (await viewer.get(pushPage)).text, (text) => text.includes('data-push-status>done<'));
    expect(page).toContain("From the push record&#39;s counts by reason: the delivery log is off (push.deliveryLog.enabled).");
    expect(page).toMatch(/aria-label="Failures by reason"[\s\S]*<td>TopicDisallowed<\/td><td class="num">1<\/td>/);
    expect(page).not.toContain('aria-label="Devices not delivered"');
    const why = await viewer.get(`${pushPage}?device=${String(saved.body.objectId)}`);
    expect(why.text).toContain('<strong>Every rule lets this device be sent to; the delivery log is off, so what the gateway answered is not known.</strong>');
    expect(why.text).not.toContain('entries of this device for this push');
    const device = await viewer.get(main(`/devices/${String(saved.body.objectId)}`));
    expect(device.text).toContain('The delivery log is off (push.deliveryLog.enabled)');
  });
});
