import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceToken } from '../../support/gateways/gateway-fixtures.ts';
import { eventually } from '../../support/eventually.ts';
import { ConsoleClient } from '../support/console-client.ts';
import { people, startConsoleHerald, type ConsoleHerald } from '../support/console-herald.ts';

let c: ConsoleHerald;
let operator: ConsoleClient;
let outsider: ConsoleClient;

beforeAll(async () => {
  c = await startConsoleHerald();
  operator = new ConsoleClient(c.consoleUrl, c.origin);
  outsider = new ConsoleClient(c.consoleUrl, c.origin);
  expect((await operator.signIn(people.operator)).status).toBe(303);
  expect((await outsider.signIn(people.outsider)).status).toBe(303);
});

afterAll(async () => {
  await c?.close();
});

const main = (path: string) => `/apps/${c.main.id}${path}`;

describe("an operator's changes", () => {
  it('sends a push to a channel and streams its progress until done', async () => {
    const channel = `sports${Date.now()}`;
    await c.h.request('POST', '/1.1/installations', { body: { deviceType: 'ios', deviceToken: deviceToken(7001), channels: [channel] } });
    const sent = await operator.post(main('/compose'), { action: 'send', target: 'channels', channels: channel, iosAlert: 'Goal!', androidAlert: 'Goal!' });
    expect(sent.status).toBe(303);
    const pushId = /\/pushes\/([0-9a-f]+)\?notice=sent$/.exec(sent.location ?? '')?.[1] as string;
    expect(pushId).toBeTruthy();
    const stream = await fetch(`${c.consoleUrl}${main(`/pushes/${pushId}/events`)}`, { headers: { Cookie: [...operator.cookies].map(([name, value]) => `${name}=${value}`).join('; '), Accept: 'text/event-stream' } });
    expect(stream.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const events = await stream.text();
    expect(events).toMatch(/event: progress\ndata: \{"status":"done","counts":\{"devices":1,"successes":1,/);
    expect(events.trimEnd().endsWith('event: end\ndata: {}')).toBe(true);
    expect(c.fakes.apns.deliveriesTo(deviceToken(7001))).toHaveLength(1);
    const record = await c.h.request('GET', `/1.1/tables/Notifications/${pushId}`);
    expect(record.body.data).toEqual({ ios: { alert: 'Goal!' }, android: { alert: 'Goal!' } });
  });

  it('answers a push that does not pass the push rules with the rule, and sends nothing', async () => {
    const refused = await operator.post(main('/compose'), { action: 'send', target: 'devices', deviceType: 'ios', deviceIds: 'not-a-token', iosAlert: 'x' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('invalid device token');
    const preview = await operator.post(main('/compose'), { action: 'preview', target: 'query', where: '{"deviceType":', iosAlert: 'x' }, { headers: { Accept: 'application/json' } });
    expect(JSON.parse(preview.text)).toMatchObject({ code: 107, error: 'Query is not valid JSON.' });
  });

  it('deletes an installation, and cannot delete one of another app through its own', async () => {
    const device = await c.h.request('POST', '/1.1/installations', { body: { deviceType: 'ios', deviceToken: deviceToken(7002) } });
    const elsewhere = await c.h.request('POST', '/1.1/installations', { app: c.other, body: { deviceType: 'ios', deviceToken: deviceToken(7003) } });
    expect((await operator.post(main(`/devices/${elsewhere.body.objectId}/delete`), {})).status).toBe(404);
    expect((await c.h.request('GET', `/1.1/installations/${elsewhere.body.objectId}`, { app: c.other, master: true })).status).toBe(200);
    const deleted = await operator.post(main(`/devices/${device.body.objectId}/delete`), {});
    expect(deleted.status).toBe(303);
    expect((await c.h.request('GET', `/1.1/installations/${device.body.objectId}`, { master: true })).status).toBe(404);
  });

  it("cannot reach another app's push, scheduled push or user through its own app", async () => {
    const push = await c.h.request('POST', '/1.1/push', { app: c.other, master: true, body: { where: { deviceType: 'ios' }, data: { alert: 'x' }, push_time: new Date(c.clock.now() + 86_400_000).toISOString() } });
    expect(push.status).toBe(201);
    const scheduled = await c.h.request('GET', '/1.1/scheduledPushMessages', { app: c.other, master: true });
    const id = String(scheduled.body.results[0].id);
    expect((await operator.get(main(`/pushes/${push.body.objectId}`))).status).toBe(404);
    expect((await operator.get(main(`/pushes/${push.body.objectId}/events`), { Accept: 'text/event-stream' })).status).toBe(404);
    expect((await operator.post(main(`/scheduled/${id}/cancel`), {})).status).toBe(404);
    expect((await c.h.request('GET', '/1.1/scheduledPushMessages', { app: c.other, master: true })).body.results).toHaveLength(1);
    // The operator of the other app may.
    expect((await outsider.post(`/apps/${c.other.id}/scheduled/${id}/cancel`, {})).status).toBe(303);
    expect((await c.h.request('GET', '/1.1/scheduledPushMessages', { app: c.other, master: true })).body.results).toHaveLength(0);
  });

  it("shows an app's installations by platform and activity, and its pushes of the week", async () => {
    const admin = new ConsoleClient(c.consoleUrl, c.origin);
    await admin.signIn(people.admin);
    await c.h.request('POST', '/1.1/installations', { app: c.other, body: { deviceType: 'android', installationId: `ov-${Date.now()}`, registrationId: 'fcm-ov', vendor: 'fcm' } });
    const push = await c.h.request('POST', '/1.1/push', { app: c.other, master: true, body: { where: { deviceType: 'android' }, data: { alert: 'week' } } });
    expect(push.status).toBe(201);
    await eventually('the push to be done', () => c.h.request('GET', `/1.1/tables/Notifications/${push.body.objectId}`, { app: c.other }), (res) => res.body.status === 'done');
    const overview = await admin.get(`/apps/${c.other.id}`);
    expect(overview.status).toBe(200);
    // One iOS device saved by an earlier test, one Android device now, both saved today.
    expect(overview.text).toContain('<tr><td>iOS</td><td class="num">1</td><td class="num">1</td>');
    expect(overview.text).toContain('<tr><td>Android</td><td class="num">1</td><td class="num">1</td>');
    const today = new Date(c.clock.now()).toISOString().slice(0, 10);
    expect(overview.text).toMatch(new RegExp(`${today}</a></td><td class="num">1</td><td class="num">1</td><td class="num">1</td><td class="num">0</td>`));
  });

  it('sends a password reset mail and a verification mail to a user, and writes both to the audit log', async () => {
    const username = `mail${Date.now()}`;
    const user = await c.h.request('POST', '/1.1/users', { body: { username, password: 'pw-123456', email: `${username}@example.test` } });
    expect((await operator.post(main(`/users/${user.body.objectId}/reset-mail`), {})).status).toBe(303);
    expect((await operator.post(main(`/users/${user.body.objectId}/verify-mail`), {})).status).toBe(303);
    // A second reset within the minute is held back by the mail throttle, and said so.
    const again = await operator.post(main(`/users/${user.body.objectId}/reset-mail`), {});
    expect(again.status).toBe(429);
    expect(again.text).toContain('less than a minute ago');
    const admin = new ConsoleClient(c.consoleUrl, c.origin);
    await admin.signIn(people.admin);
    const log = await eventually('the audit log', () => admin.get('/audit'), (page) => page.text.includes('user.verification-mail'));
    expect(log.text).toContain(`<td>otto</td><td><code>user.password-reset-mail</code></td><td>${c.main.id}</td><td><code>${user.body.objectId}</code></td><td class="ok">ok</td>`);
    expect(log.text).toContain('<td class="bad">failed</td><td>An email was sent to this address less than a minute ago; try again later.</td>');
  });
});
