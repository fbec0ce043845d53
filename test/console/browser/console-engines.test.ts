import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchEngine, type EngineName, type EnginePage } from '../../support/browser-engines.ts';
import { eventually } from '../../support/eventually.ts';
import { deviceToken } from '../../support/gateways/gateway-fixtures.ts';
import { people, startConsoleHerald, type ConsoleHerald } from '../support/console-herald.ts';
import { axeRunExpression, axeSource, expectNoGraveViolation, type AxeViolation } from '../support/page-checks.ts';

/*
 * The console in the engines besides Chromium (console-pages.test.ts drives
 * Chromium through every page, with axe): Firefox, and WebKit, the engine
 * of Safari (test/support/browser-engines.ts says how each is driven). A
 * person signs in with the keyboard, opens every section of an app, composes
 * a push whose preview the page's script fills in as they type, sends it and
 * watches it finish without reloading, and reads it in a narrow window;
 * axe-core checks each page in each engine.
 */

let c: ConsoleHerald;
beforeAll(async () => {
  c = await startConsoleHerald();
});
afterAll(async () => {
  await c?.close();
});

const sections = [
  ['Overview', ''],
  ['Pushes', '/pushes'],
  ['Compose', '/compose'],
  ['Scheduled pushes', '/scheduled'],
  ['Devices', '/devices'],
  ['Users', '/users'],
] as const;

/** The narrowest viewport each engine gives: MiniBrowser's toolbar keeps its window at least about 450 px wide. */
const narrowest: Record<EngineName, number> = { firefox: 360, webkit: 480 };

describe.each<EngineName>(['firefox', 'webkit'])('the console in %s', (engine) => {
  let page: EnginePage;
  const at = (path: string) => `${c.consoleUrl}${path}`;
  const appAt = (path = '') => at(`/apps/${c.main.id}${path}`);
  const heading = () => page.text('main h1');
  const expectAccessible = async (name: string) => {
    await page.run(axeSource);
    expectNoGraveViolation(await page.evaluate<AxeViolation[]>(axeRunExpression), `${engine}: ${name}`);
  };

  beforeAll(async () => {
    page = await launchEngine(engine);
    process.stdout.write(`console-engines: ${engine} is ${page.version}\n`);
  }, 60_000);
  afterAll(async () => {
    await page?.close();
  });

  it('signs in with the keyboard alone and opens every section of an app', { timeout: 60_000 }, async () => {
    await page.goto(at('/'));
    expect(await heading()).toBe('Sign in');
    await expectAccessible('sign-in');
    // The username field has the focus when the page opens.
    expect(await page.evaluate<string>('document.activeElement && document.activeElement.id')).toBe('username');
    await page.keys(people.operator.username);
    await page.press('Tab');
    await page.keys(people.operator.password);
    await page.press('Enter');
    await eventually('the apps page', heading, (text) => text === 'Apps', { timeoutMs: 15_000 });
    for (const [title, path] of sections) {
      await page.goto(appAt(path));
      expect(await heading(), path).toBe(title);
      // The section's link in the app's navigation says it is the current page.
      expect(await page.text('nav a[aria-current="page"]'), path).toBe(title === 'Scheduled pushes' ? 'Scheduled' : title);
      await expectAccessible(title);
    }
    expect(page.errors()).toEqual([]);
  });

  it('previews a push as it is typed, sends it and shows it finish without a reload', { timeout: 90_000 }, async () => {
    const channel = `engine${engine}${Date.now()}`;
    const first = engine === 'firefox' ? 3000 : 3100;
    for (let n = first; n < first + 3; n += 1) {
      const saved = await c.h.request('POST', '/1.1/installations', { body: { deviceType: 'ios', deviceToken: deviceToken(n), channels: [channel] } });
      expect(saved.status, JSON.stringify(saved.body)).toBeLessThan(300);
    }
    await page.goto(appAt('/compose'));
    expect(await heading()).toBe('Compose');
    await page.click('#target-channels');
    await page.fill('#channels', channel);
    await page.fill('#iosTitle', 'Engines');
    await page.fill('#iosAlert', `Hello ${engine}`);
    await page.fill('#androidAlert', `Hello ${engine}, on Android`);
    // The page's script asks the server for the preview as the person types: no button pressed.
    await eventually('the APNs preview', () => page.text('[data-preview="apns-body"]'), (text) => text === `{"aps":{"alert":{"title":"Engines","body":"Hello ${engine}"}}}`, {
      timeoutMs: 15_000,
    });
    await page.click('button[name="action"][value="send"]');
    await eventually('the push page', () => page.url(), (url) => /\/pushes\/[0-9a-f]+\?notice=sent$/.test(url), { timeoutMs: 15_000 });
    const pushPage = await page.url();
    // Live: the status changes without a reload (the page's event stream).
    await eventually('the push done on the page', () => page.text('[data-push-status]'), (status) => status === 'done', { timeoutMs: 30_000 });
    expect(await page.url()).toBe(pushPage);
    expect(await page.text('[data-count="successes"]')).toBe('3');
    for (let n = first; n < first + 3; n += 1) expect(c.fakes.apns.deliveriesTo(deviceToken(n)), `device ${n}`).toHaveLength(1);
    expect(page.errors()).toEqual([]);
  });

  it('fits a narrow window without scrolling sideways', { timeout: 60_000 }, async () => {
    await page.setSize(360, 800);
    for (const [title, path] of sections) {
      await page.goto(appAt(path));
      expect(await heading(), path).toBe(title);
      expect(await page.evaluate<number>('window.innerWidth'), 'the window is narrow').toBeLessThanOrEqual(narrowest[engine]);
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
      expect(overflow, `${path}: wider than the window by`).toBeLessThanOrEqual(0);
    }
  });
});
