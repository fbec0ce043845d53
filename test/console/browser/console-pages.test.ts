import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../../support/browser.ts';
import { deviceToken } from '../../support/gateways/gateway-fixtures.ts';
import { people, startConsoleHerald, type ConsoleHerald, type Person } from '../support/console-herald.ts';
import { expectAccessible, screenshot, watchConsole } from '../support/page-checks.ts';

let c: ConsoleHerald;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: string[];

beforeAll(async () => {
  [c, browser] = await Promise.all([startConsoleHerald(), launchBrowser()]);
});

afterAll(async () => {
  await browser?.close();
  await c?.close();
});

async function open(options: { javaScriptEnabled?: boolean; viewport?: { width: number; height: number } } = {}): Promise<Page> {
  context = await browser.newContext({ javaScriptEnabled: options.javaScriptEnabled ?? true, viewport: options.viewport ?? { width: 1280, height: 900 } });
  page = await context.newPage();
  problems = watchConsole(page);
  return page;
}

afterEach(async () => {
  expect(problems, 'script errors or CSP complaints').toEqual([]);
  await context?.close();
});

const at = (path: string) => `${c.consoleUrl}${path}`;
/** Reading the delivery log by reloading a page: its entries are written as each slice ends. */
const reloadPoll = { timeout: 15_000, interval: 200 };
/** Tests that check many pages with axe take longer than the default on a busy machine. */
const manyPages = 90_000;
const appAt = (path = '') => at(`/apps/${c.main.id}${path}`);

async function signIn(person: Person): Promise<void> {
  await page.goto(at('/'));
  await page.getByLabel('Username').fill(person.username);
  await page.getByLabel('Password').fill(person.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(at('/'));
}

async function saveIosDevice(n: number, channels: string[]): Promise<string> {
  const res = await c.h.request('POST', '/1.1/installations', { body: { deviceType: 'ios', deviceToken: deviceToken(n), channels } });
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return res.body.objectId as string;
}

describe('the console in a browser', () => {
  it('signs in with the keyboard alone, and every page of an app is accessible', { timeout: manyPages }, async () => {
    await open();
    await page.goto(at('/'));
    await expectAccessible(page, 'sign-in');
    await screenshot(page, 'sign-in');
    // The username field has the focus when the page opens.
    await page.keyboard.type(people.admin.username);
    await page.keyboard.press('Tab');
    await page.keyboard.type(people.admin.password);
    await page.keyboard.press('Enter');
    await page.waitForURL(at('/'));
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Apps');
    await expectAccessible(page, 'apps');
    await screenshot(page, 'apps');
    for (const [name, path] of [
      ['overview', ''],
      ['pushes', '/pushes'],
      ['compose', '/compose'],
      ['scheduled', '/scheduled'],
      ['devices', '/devices'],
      ['users', '/users'],
      ['settings', '/settings'],
    ] as const) {
      const response = await page.goto(appAt(path));
      expect(response?.status(), name).toBe(200);
      await expectAccessible(page, name);
      await screenshot(page, name);
    }
    await page.goto(at('/audit'));
    await expectAccessible(page, 'audit');
    await screenshot(page, 'audit');
  });

  it('sends a push to the fake gateways, previews it, counts its audience, watches it finish live and finds its failed device in the delivery log', { timeout: manyPages }, async () => {
    const channel = `news${Date.now()}`;
    const saved: string[] = [];
    for (let n = 1; n <= 5; n += 1) saved.push(await saveIosDevice(1000 + n, [channel]));
    const failing = deviceToken(1003);
    const failingId = saved[2] as string;
    c.fakes.apns.respondTo(failing, [{ status: 400, reason: 'TopicDisallowed' }]);
    await open();
    await signIn(people.operator);
    await page.goto(appAt('/compose'));
    await page.getByRole('radio', { name: 'Channels' }).check();
    await page.getByRole('textbox', { name: 'Channels' }).fill(channel);
    await page.getByRole('group', { name: 'iOS content' }).getByLabel('Title').fill('Morning news');
    await page.getByRole('group', { name: 'iOS content' }).getByLabel('Alert').fill('Read all about it');
    await page.getByRole('group', { name: 'Android content' }).getByLabel('Alert').fill('Read all about it, on Android');
    // The script previews as the person types.
    await expect.poll(() => page.locator('[data-preview="apns-body"]').innerText()).toBe('{"aps":{"alert":{"title":"Morning news","body":"Read all about it"}}}');
    // And each phone maker's request, from the makers' own builders.
    await expect.poll(() => page.locator('[data-preview="maker-hms"]').textContent()).toContain('"body":"Read all about it, on Android"');
    await expect.poll(() => page.locator('[data-preview="maker-xiaomi"]').textContent()).toContain('description=Read+all+about+it%2C+on+Android');
    await page.getByText('Meizu (Flyme)').click();
    expect(await page.locator('[data-preview="maker-meizu"]').isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Count audience' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Audience' }).innerText()).toContain('Devices it would reach now\n5');
    await expectAccessible(page, 'compose with preview and audience');
    await screenshot(page, 'compose');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.waitForURL(/\/pushes\/[0-9a-f]+\?notice=sent$/);
    // Live: the status and counters change without a reload.
    await expect.poll(() => page.locator('[data-push-status]').innerText(), { timeout: 15_000 }).toBe('done');
    expect(await page.locator('[data-count="successes"]').innerText()).toBe('4');
    expect(await page.locator('[data-count="errors"]').innerText()).toBe('1');
    expect(await page.locator('[data-reasons]').innerText()).toContain('TopicDisallowed\t1');
    expect(c.fakes.apns.deliveriesTo(deviceToken(1001))).toHaveLength(1);

    // The failed device, one by one from the delivery log (written as each slice ends: reload until it is there).
    const failed = page.getByRole('region', { name: 'Devices not delivered' });
    await expect
      .poll(async () => {
        await page.reload();
        return (await failed.count()) === 0 ? '' : failed.innerText();
      }, reloadPoll)
      .toContain(failingId);
    const row = failed.getByRole('row').filter({ hasText: failingId });
    expect(await row.innerText()).toMatch(/apns\s+failed\s+TopicDisallowed\s+1/);
    expect(await failed.getByRole('row').count(), 'the header and the one failed device').toBe(2);
    await expectAccessible(page, 'push');
    await screenshot(page, 'push');

    // Why didn't that device get it? From its row: explain's rules and the log's entry.
    await row.getByRole('link', { name: `Why was ${failingId} not delivered?` }).click();
    const explanation = page.getByRole('region', { name: 'Explanation' });
    expect(await explanation.locator('strong').innerText()).toMatch(/^Not delivered: TopicDisallowed, answered by apns \(token …[0-9a-f]{8}\) after 1 attempt/);
    const rules = explanation.getByRole('region', { name: 'The rules of this push for this device, in the order they apply' });
    for (const rule of ['Matches where and channels', 'Platform', 'Active', 'Address and gateway', 'Not expired', 'Not cancelled', 'Not a repeated req_id', 'Development certificate limit']) {
      expect(await rules.getByRole('row').filter({ hasText: rule }).innerText(), rule).toContain('passes');
    }
    expect(await rules.getByRole('row').filter({ hasText: 'Matches where and channels' }).innerText()).toContain(channel);
    const entries = explanation.getByRole('region', { name: "The delivery log's entries of this device for this push" });
    expect(await entries.innerText()).toMatch(/apns\s+failed\s+TopicDisallowed\s+1/);
    // Typed by its token, the same device gets the same answer.
    await page.getByLabel('Device token, registrationId, installationId or installation objectId').fill(failing.toUpperCase());
    await page.getByRole('button', { name: 'Explain' }).click();
    expect(await explanation.locator('strong').innerText()).toContain('Not delivered: TopicDisallowed');
    await expectAccessible(page, 'push explained');
    await screenshot(page, 'push-explained');
  });

  it('finds a device a push could not reach, and says why', async () => {
    const channel = `offers${Date.now()}`;
    const lc = await c.h.request('POST', '/1.1/installations', { body: { deviceType: 'android', installationId: `lc-${Date.now()}`, vendor: 'lc', channels: [channel] } });
    expect(lc.status).toBe(201);
    const push = await c.h.request('POST', '/1.1/push', { master: true, body: { channels: [channel], data: { alert: 'hello' } } });
    expect(push.status).toBe(201);
    await open();
    await signIn(people.viewer);
    await page.goto(appAt(`/pushes/${push.body.objectId}`));
    await expect.poll(() => page.locator('[data-push-status]').innerText(), { timeout: 15_000 }).toBe('done');
    expect(await page.locator('[data-reasons]').innerText()).toContain('NoRegistrationId\t1');
    await page.getByLabel('Device token, registrationId, installationId or installation objectId').fill(String(lc.body.objectId));
    await page.getByRole('button', { name: 'Explain' }).click();
    expect(await page.getByRole('region', { name: 'Explanation' }).innerText()).toContain('Not sent: NoRegistrationId');
    await page.getByRole('region', { name: 'Explanation' }).getByRole('link').click();
    await page.waitForURL(appAt(`/devices/${lc.body.objectId}`));
    expect(await page.locator('main').innerText()).toContain(channel);
    await expectAccessible(page, 'device');
    await screenshot(page, 'device');
  });

  it('finds an Android device by its registrationId and shows its last outcomes from the delivery log, with the keyboard alone', { timeout: manyPages }, async () => {
    const stamp = Date.now();
    const registrationId = `fcm-reg-${stamp}-${'x'.repeat(40)}`;
    const goneId = `fcm-gone-${stamp}-${'y'.repeat(40)}`;
    const channel = `sport${stamp}`;
    const saveAndroid = async (installationId: string, token: string) => {
      const res = await c.h.request('POST', '/1.1/installations', { body: { deviceType: 'android', installationId, registrationId: token, vendor: 'fcm', channels: [channel] } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return String(res.body.objectId);
    };
    const device = await saveAndroid(`inst-a-${stamp}`, registrationId);
    const gone = await saveAndroid(`inst-b-${stamp}`, goneId);
    c.fakes.fcm.respondTo(goneId, [{ errorCode: 'UNREGISTERED' }]);
    const push = await c.h.request('POST', '/1.1/push', { master: true, body: { channels: [channel], data: { alert: 'Goal!' } } });
    expect(push.status).toBe(201);
    await open();
    await signIn(people.viewer);
    await page.goto(appAt('/devices'));
    await page.getByLabel('Find by').selectOption('registrationId');
    await page.getByLabel('Value').fill(registrationId);
    await page.getByLabel('Value').press('Enter');
    await page.waitForURL(/by=registrationId/);
    const found = page.getByRole('region', { name: 'Devices found' });
    expect(await found.getByRole('row').count(), 'the header and the one device').toBe(2);
    // To the device's page with the keyboard: focus its link and press Enter.
    await found.getByRole('link', { name: device }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(appAt(`/devices/${device}`));
    const outcomes = page.getByRole('region', { name: 'Latest outcomes of this device, newest first (the delivery log)' });
    await expect
      .poll(async () => {
        await page.reload();
        return (await outcomes.count()) === 0 ? '' : outcomes.innerText();
      }, reloadPoll)
      .toContain(String(push.body.objectId));
    expect(await outcomes.getByRole('row').filter({ hasText: String(push.body.objectId) }).innerText()).toMatch(/fcm\s+delivered\s+–\s+1/);
    await expectAccessible(page, 'device with outcomes');
    await screenshot(page, 'device-outcomes');

    // The unregistered device is removed, yet its push's page lists it and explain reads its entry by objectId.
    await page.goto(appAt(`/pushes/${push.body.objectId}`));
    const failed = page.getByRole('region', { name: 'Devices not delivered' });
    await expect
      .poll(async () => {
        await page.reload();
        return (await failed.count()) === 0 ? '' : failed.innerText();
      }, reloadPoll)
      .toMatch(new RegExp(`${gone}\\s+fcm\\s+invalidToken\\s+UNREGISTERED`));
    const field = page.getByLabel('Device token, registrationId, installationId or installation objectId');
    await field.focus();
    await page.keyboard.type(gone);
    await page.keyboard.press('Enter');
    await page.waitForURL(/device=/);
    const explanation = page.getByRole('region', { name: 'Explanation' });
    expect(await explanation.locator('strong').innerText()).toMatch(/^Not delivered: UNREGISTERED: the gateway says the token is no longer valid/);
    expect(await explanation.innerText()).toContain('No installation holds this id.');
  });

  it('cancels a scheduled push', async () => {
    await open();
    await signIn(people.operator);
    await page.goto(appAt('/compose'));
    await page.getByRole('radio', { name: 'Query' }).check();
    await page.getByLabel('Query (where)').fill('{"deviceType":"android"}');
    await page.getByRole('group', { name: 'Android content' }).getByLabel('Alert').fill('Later on');
    const later = new Date(c.clock.now() + 3 * 86_400_000).toISOString().slice(0, 16);
    await page.getByLabel('Send at (UTC)').fill(later);
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.waitForURL(/notice=scheduled$/);
    expect(await page.locator('[data-push-status]').innerText()).toBe('scheduled');
    await page.getByRole('link', { name: 'Scheduled' }).click();
    const row = page.getByRole('row').filter({ hasText: 'Later on' });
    await expect.poll(() => row.count()).toBe(1);
    await expectAccessible(page, 'scheduled');
    await row.getByRole('button', { name: /Cancel/ }).click();
    await page.waitForURL(/notice=cancelled$/);
    expect(await page.getByRole('status').innerText()).toBe('The scheduled push was cancelled.');
    expect(await page.getByRole('row').filter({ hasText: 'Later on' }).count()).toBe(0);
  });

  it('unlocks a locked user', async () => {
    const username = `locked${Date.now()}`;
    const created = await c.h.request('POST', '/1.1/users', { body: { username, password: 'right-password', email: `${username}@example.test` } });
    expect(created.status).toBe(201);
    for (let attempt = 0; attempt < 7; attempt += 1) await c.h.request('POST', '/1.1/login', { body: { username, password: 'wrong' } });
    expect((await c.h.request('POST', '/1.1/login', { body: { username, password: 'right-password' } })).body.code).toBe(219);
    await open();
    await signIn(people.operator);
    await page.goto(appAt('/users'));
    await page.getByLabel('Value').fill(username);
    await page.getByRole('button', { name: 'Find' }).click();
    await page.getByRole('link', { name: String(created.body.objectId) }).click();
    expect(await page.locator('main').innerText()).toMatch(/Login lock\s+locked until/);
    await expectAccessible(page, 'user');
    await screenshot(page, 'user');
    await page.getByRole('button', { name: 'Unlock' }).click();
    await page.waitForURL(/notice=unlocked$/);
    expect(await page.locator('main').innerText()).toMatch(/Login lock\s+not locked/);
    expect((await c.h.request('POST', '/1.1/login', { body: { username, password: 'right-password' } })).status).toBe(200);
  });

  it('shows a viewer no control it may not use, and refuses the page it types in', async () => {
    await open();
    await signIn(people.viewer);
    await page.goto(appAt());
    expect(await page.getByRole('navigation', { name: 'Main App' }).innerText()).not.toContain('Compose');
    const refused = await page.goto(appAt('/compose'));
    expect(refused?.status()).toBe(403);
    // The browser reports the refused page itself in its console; nothing else may be there.
    expect(problems.splice(0)).toEqual(['Failed to load resource: the server responded with a status of 403 (Forbidden)']);
    expect(await page.getByRole('alert').innerText()).toBe('The viewer role may not see this page.');
    await expectAccessible(page, 'refused');
    await screenshot(page, 'refused');
    await page.goto(appAt('/scheduled'));
    expect(await page.getByRole('button', { name: /Cancel/ }).count()).toBe(0);
  });

  it('reaches every section of an app with the Tab key alone, each link showing where the focus is', { timeout: manyPages }, async () => {
    await open();
    await signIn(people.admin);
    await page.goto(appAt());
    // The first Tab lands on the skip link, which shows itself and moves the focus past the navigation.
    await page.keyboard.press('Tab');
    const skip = page.getByRole('link', { name: 'Skip to content' });
    await expect.poll(() => skip.evaluate((element) => element === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement)).toBe(true);
    expect(await skip.isVisible()).toBe(true);
    const sections = await page.getByRole('navigation', { name: 'Main App' }).getByRole('link').allInnerTexts();
    expect(sections).toEqual(['Overview', 'Pushes', 'Compose', 'Scheduled', 'Devices', 'Users', 'Settings']);
    for (const section of sections.slice(1)) {
      await page.goto(appAt());
      // Tab until the section's link has the focus; the focus ring must be drawn.
      let outline = '';
      for (let presses = 0; presses < 30; presses += 1) {
        await page.keyboard.press('Tab');
        const focused = await page.evaluate(() => {
          const active = (globalThis as unknown as { document: { activeElement: { textContent: string | null } | null } }).document.activeElement;
          const style = active === null ? null : (globalThis as unknown as { getComputedStyle(element: unknown): { outlineStyle: string; outlineWidth: string } }).getComputedStyle(active);
          return { text: active?.textContent?.trim() ?? '', outline: style === null ? '' : `${style.outlineStyle} ${style.outlineWidth}` };
        });
        if (focused.text === section) {
          outline = focused.outline;
          break;
        }
      }
      expect(outline, `${section}: focused by Tab, with its focus ring`).toBe('solid 3px');
      await page.keyboard.press('Enter');
      await page.waitForURL((url) => url.pathname !== new URL(appAt()).pathname);
      expect(await page.getByRole('heading', { level: 1 }).innerText(), section).not.toBe('');
    }
  });

  it('fits a narrow window without scrolling sideways', { timeout: manyPages }, async () => {
    const channel = `narrow${Date.now()}`;
    const device = await saveIosDevice(4242, [channel]);
    c.fakes.apns.respondTo(deviceToken(4242), [{ status: 400, reason: 'BadDeviceToken' }]);
    const push = await c.h.request('POST', '/1.1/push', { master: true, body: { channels: [channel], data: { alert: 'Narrow' } } });
    expect(push.status).toBe(201);
    await open({ viewport: { width: 360, height: 740 } });
    await signIn(people.operator);
    await page.goto(appAt(`/pushes/${push.body.objectId}?device=${device}`));
    await expect
      .poll(async () => {
        await page.reload();
        return page.getByRole('region', { name: 'Devices not delivered' }).count();
      }, reloadPoll)
      .toBe(1);
    for (const path of ['', '/pushes', '/compose', '/scheduled', '/devices', '/users', `/pushes/${push.body.objectId}?device=${device}`, `/devices?by=channel&q=${channel}`]) {
      await page.goto(appAt(path));
      const overflow = await page.evaluate(() => {
        const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document.documentElement;
        return root.scrollWidth - root.clientWidth;
      });
      expect(overflow, path).toBeLessThanOrEqual(0);
    }
    await page.goto(appAt('/compose'));
    await screenshot(page, 'compose-narrow');
    await page.goto(appAt(`/pushes/${push.body.objectId}?device=${device}`));
    await screenshot(page, 'push-narrow');
  });

  it('works without JavaScript: the preview is a form post', async () => {
    await open({ javaScriptEnabled: false });
    await signIn(people.operator);
    await page.goto(appAt('/compose'));
    await page.getByRole('textbox', { name: 'Channels' }).fill('plain');
    await page.getByRole('group', { name: 'iOS content' }).getByLabel('Alert').fill('Plain forms');
    await page.getByRole('group', { name: 'Android content' }).getByLabel('Alert').fill('Plain forms');
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.waitForLoadState();
    expect(await page.locator('[data-preview="fcm-body"]').innerText()).toContain('"notification":{"body":"Plain forms"}');
  });
});
