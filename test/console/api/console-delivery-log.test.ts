import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../support/eventually.ts';
import { ConsoleClient } from '../support/console-client.ts';
import { people, startConsoleHerald, type ConsoleHerald } from '../support/console-herald.ts';

let c: ConsoleHerald;
let viewer: ConsoleClient;

beforeAll(async () => {
  c = await startConsoleHerald();
  viewer = new ConsoleClient(c.consoleUrl, c.origin);
  expect((await viewer.signIn(people.viewer)).status).toBe(303);
});

afterAll(async () => {
  await c?.close();
});

const main = (path: string) => `/apps/${c.main.id}${path}`;

/** The installation links of a page's "Devices not delivered" table, in order. */
function failedDevices(page: string): string[] {
  const table = /aria-label="Devices not delivered"[\s\S]*?<\/table>/.exec(page)?.[0] ?? '';
  return [...table.matchAll(/<td><a href="[^"]*\/devices\/([A-Za-z0-9]+)"><code>/g)].map((match) => match[1] as string);
}

function moreLink(page: string): string | null {
  const href = /<a href="([^"]+)#failures" rel="next">More failures<\/a>/.exec(page)?.[1];
  return href === undefined ? null : href.replaceAll('&amp;', '&').replace(/^\/console/, '');
}

async function saveAndroid(body: Record<string, unknown>, app = c.main): Promise<string> {
  const res = await c.h.request('POST', '/1.1/installations', { app, body: { deviceType: 'android', ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return String(res.body.objectId);
}

describe("a push's failures and a device's outcomes, from the delivery log", () => {
  it('lists every failed device once, 50 a page, following the log\'s cursor with "More failures"', async () => {
    const channel = `many${Date.now()}`;
    const ids = new Set<string>();
    // No registrationId: each device is targeted and fails NoRegistrationId, with an entry in the log.
    for (let n = 0; n < 63; n += 1) ids.add(await saveAndroid({ installationId: `${channel}-${n}`, channels: [channel] }));
    const push = await c.h.request('POST', '/1.1/push', { master: true, body: { channels: [channel], data: { alert: 'hi' } } });
    expect(push.status).toBe(201);
    const pushPage = main(`/pushes/${push.body.objectId}`);
    // Each slice writes its entries before its counts, so once the record is done every entry is in the log.
    await eventually('the push to be done', () => c.h.request('GET', `/1.1/tables/Notifications/${push.body.objectId}`, { master: true }), (res) => res.body.status === 'done', { timeoutMs: 60_000 });
    const first = (await viewer.get(pushPage)).text;
    const firstIds = failedDevices(first);
    expect(firstIds).toHaveLength(50);
    expect(first).toContain('<td>NoRegistrationId</td>');
    const rest = await viewer.get(moreLink(first) as string);
    expect(rest.status).toBe(200);
    const restIds = failedDevices(rest.text);
    expect(moreLink(rest.text)).toBeNull();
    expect(rest.text).toContain('First failures');
    expect(new Set([...firstIds, ...restIds])).toEqual(ids);
    expect(firstIds.length + restIds.length).toBe(63);
  });

  it('refuses a cursor the log did not make, with its reason, and lists nothing', async () => {
    const push = await c.h.request('POST', '/1.1/push', { master: true, body: { channels: [`none${Date.now()}`], data: { alert: 'hi' } } });
    const answer = await viewer.get(main(`/pushes/${push.body.objectId}?failures=not-a-cursor`));
    expect(answer.status).toBe(400);
    expect(answer.text).toMatch(/cursor/);
    expect(failedDevices(answer.text)).toEqual([]);
  });

  it("finds a device by its registrationId in this app only, and shows another app's device to no one through this one", async () => {
    const token = `shared-reg-${Date.now()}-${'z'.repeat(40)}`;
    const mine = await saveAndroid({ installationId: `mine-${Date.now()}`, registrationId: token, vendor: 'fcm' });
    const theirs = await saveAndroid({ installationId: `theirs-${Date.now()}`, registrationId: token, vendor: 'fcm' }, c.other);
    for (const by of ['registrationId', 'token']) {
      const found = await viewer.get(main(`/devices?by=${by}&q=${encodeURIComponent(token)}`));
      expect(found.status).toBe(200);
      expect(found.text, by).toContain(`/devices/${mine}"`);
      expect(found.text, by).not.toContain(theirs);
    }
    expect((await viewer.get(main(`/devices/${theirs}`))).status).toBe(404);
    const none = await viewer.get(main(`/devices?by=registrationId&q=unknown-registration-id`));
    expect(none.text).toContain('No device found.');
  });

  it("shows a device's last outcomes, newest first, each linked to explain it for its push", async () => {
    const token = `history-${Date.now()}-${'h'.repeat(40)}`;
    const device = await saveAndroid({ installationId: `history-${Date.now()}`, registrationId: token, vendor: 'fcm', channels: ['history'] });
    const pushes: string[] = [];
    for (const alert of ['one', 'two']) {
      const push = await c.h.request('POST', '/1.1/push', { master: true, body: { where: { objectId: device }, data: { alert } } });
      expect(push.status).toBe(201);
      pushes.push(String(push.body.objectId));
      await eventually('the push delivered', () => c.fakes.fcm.deliveriesTo(token).length, (count) => count === pushes.length);
      // A slice writes its log entries after the gateway answers and before its counts: once the record is done the
      // entry is written, at this clock. The log orders by when each slice was written: a second apart.
      await eventually('the push to be done', () => c.h.request('GET', `/1.1/tables/Notifications/${push.body.objectId}`, { master: true }), (res) => res.body.status === 'done', { timeoutMs: 60_000 });
      c.clock.advance(1000);
    }
    const page = await eventually(
      'both outcomes on the device page',
      async () => (await viewer.get(main(`/devices/${device}`))).text,
      (text) => pushes.every((push) => text.includes(`/pushes/${push}?device=${device}#why`)),
    );
    // Newest first.
    expect(page.indexOf(pushes[1] as string)).toBeLessThan(page.indexOf(pushes[0] as string));
    const why = await viewer.get(main(`/pushes/${pushes[0]}?device=${device}`));
    expect(why.text).toMatch(/<strong>Delivered through fcm \(token …[a-z]{8}\) at [^<]+, after 1 attempt\.<\/strong>/);
  });
  it("pages a device's outcomes 20 at a time, older ones behind \"Older outcomes\", and refuses a cursor the log did not make", async () => {
    const token = `paged-${Date.now()}-${'p'.repeat(40)}`;
    const device = await saveAndroid({ installationId: `paged-${Date.now()}`, registrationId: token, vendor: 'fcm' });
    const pushes: string[] = [];
    for (let n = 0; n < 23; n += 1) {
      const push = await c.h.request('POST', '/1.1/push', { master: true, body: { where: { objectId: device }, data: { alert: `number ${n}` } } });
      expect(push.status).toBe(201);
      pushes.push(String(push.body.objectId));
      await eventually('the push to be done', () => c.h.request('GET', `/1.1/tables/Notifications/${push.body.objectId}`, { master: true }), (res) => res.body.status === 'done', { timeoutMs: 60_000 });
      c.clock.advance(1000);
    }
    const listed = (page: string) => [...page.matchAll(/\/pushes\/([A-Za-z0-9]+)\?device=/g)].map((match) => match[1] as string);
    const olderLink = (page: string) => /<a href="([^"]+)#history" rel="next">Older outcomes<\/a>/.exec(page)?.[1]?.replaceAll('&amp;', '&').replace(/^\/console/, '') ?? null;
    const first = await viewer.get(main(`/devices/${device}`));
    expect(first.status).toBe(200);
    const newest = [...pushes].reverse();
    expect(listed(first.text)).toEqual(newest.slice(0, 20));
    expect(first.text).not.toContain('Latest outcomes</a>');
    const older = await viewer.get(olderLink(first.text) as string);
    expect(older.status).toBe(200);
    expect(listed(older.text)).toEqual(newest.slice(20));
    expect(olderLink(older.text)).toBeNull();
    expect(older.text).toContain('Latest outcomes</a>');
    const forged = await viewer.get(main(`/devices/${device}?history=not-a-cursor`));
    expect(forged.status).toBe(400);
    expect(forged.text).toMatch(/cursor/);
    expect(listed(forged.text)).toEqual([]);
  });
});
