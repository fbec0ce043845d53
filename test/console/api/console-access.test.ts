import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient, csrfOf } from '../support/console-client.ts';
import { people, startConsoleHerald, type ConsoleHerald } from '../support/console-herald.ts';

let c: ConsoleHerald;

beforeAll(async () => {
  c = await startConsoleHerald();
});

afterAll(async () => {
  await c?.close();
});

const client = () => new ConsoleClient(c.consoleUrl, c.origin);

async function signedIn(person: (typeof people)[keyof typeof people]): Promise<ConsoleClient> {
  const browser = client();
  expect((await browser.signIn(person)).status).toBe(303);
  return browser;
}

describe('signing in to the console', () => {
  it('sets an HttpOnly, SameSite=Strict session cookie on /console only, and shows the apps the account sees', async () => {
    const browser = client();
    const form = await browser.get('/sign-in');
    const answer = await browser.post('/sign-in', { username: people.operator.username, password: people.operator.password }, { csrf: csrfOf(form.text) });
    expect(answer.status).toBe(303);
    const cookie = answer.headers.getSetCookie().find((line) => line.startsWith('herald_console='));
    expect(cookie).toMatch(/; Path=\/console; HttpOnly; SameSite=Strict/);
    expect(cookie).not.toMatch(/Secure/);
    const home = await browser.get('/');
    expect(home.text).toContain('Main App');
    expect(home.text).not.toContain('Other App');
  });

  it('refuses a wrong password and an unknown username alike, and stays signed out', async () => {
    const browser = client();
    const wrong = await browser.signIn(people.viewer, 'not-the-password');
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('Wrong username or password.');
    const unknown = await browser.signIn({ username: 'nobody', password: 'whatever-it-is' });
    expect(unknown.status).toBe(401);
    expect(unknown.text).toContain('Wrong username or password.');
    const home = await browser.get('/');
    expect(home.status).toBe(303);
    expect(home.location).toBe('/console/sign-in?next=%2Fconsole%2F');
  });

  it('refuses a sign-in form that was not made for this browser, or posted from another origin', async () => {
    const browser = client();
    await browser.get('/sign-in');
    const forged = await browser.post('/sign-in', { username: people.admin.username, password: people.admin.password }, { csrf: 'A'.repeat(43) });
    expect(forged.status).toBe(403);
    const form = await browser.get('/sign-in');
    const crossSite = await browser.post('/sign-in', { username: people.admin.username, password: people.admin.password }, { csrf: csrfOf(form.text), origin: 'https://evil.example' });
    expect(crossSite.status).toBe(403);
    expect(browser.cookies.has('herald_console')).toBe(false);
  });

  it('goes back where the person was headed after signing in, but never to another site', async () => {
    const browser = client();
    const form = await browser.get('/sign-in');
    const back = await browser.post('/sign-in', { username: people.viewer.username, password: people.viewer.password, next: `/console/apps/${c.main.id}/users` }, { csrf: csrfOf(form.text) });
    expect(back.location).toBe(`/console/apps/${c.main.id}/users`);
    for (const next of ['//evil.example/console/', 'https://evil.example/', '/console/\\evil', '/1.1/users']) {
      const other = client();
      const page = await other.get('/sign-in');
      const answer = await other.post('/sign-in', { username: people.viewer.username, password: people.viewer.password, next }, { csrf: csrfOf(page.text) });
      expect(answer.location, next).toBe('/console/');
    }
  });

  it('serves every page with a policy that runs no inline script or style and no framing', async () => {
    const browser = await signedIn(people.admin);
    for (const path of ['/sign-in', '/', `/apps/${c.main.id}`, `/apps/${c.main.id}/pushes`, '/static/console.css']) {
      const answer = await browser.get(path);
      expect(answer.status, path).toBe(200);
      const policy = answer.headers.get('content-security-policy') ?? '';
      expect(policy).toContain("script-src 'self'");
      expect(policy).toContain("style-src 'self'");
      expect(policy).toContain("frame-ancestors 'none'");
      expect(policy).not.toContain('unsafe-inline');
      expect(answer.headers.get('x-frame-options')).toBe('DENY');
      expect(answer.text).not.toMatch(/<script>|<style|style="/);
    }
  });
});

describe('what the console refuses', () => {
  it('answers another app and its pages as unknown to an account that does not see it', async () => {
    const operator = await signedIn(people.operator);
    for (const path of [`/apps/${c.other.id}`, `/apps/${c.other.id}/pushes`, `/apps/${c.other.id}/users`, `/apps/nosuchapp/devices`]) {
      expect((await operator.get(path)).status, path).toBe(404);
    }
    const user = await c.h.request('POST', '/1.1/users', { app: c.other, body: { username: 'other-user', password: 'pw-of-other' } });
    expect(user.status).toBe(201);
    const locked = await operator.post(`/apps/${c.other.id}/users/${user.body.objectId}/unlock`, {});
    expect(locked.status).toBe(404);
    // The same user through the operator's own app: not there either.
    expect((await operator.get(`/apps/${c.main.id}/users/${user.body.objectId}`)).status).toBe(404);
  });

  it("refuses a viewer's changes, even with a valid token, and writes each refusal to the audit log", async () => {
    const viewer = await signedIn(people.viewer);
    const user = await c.h.request('POST', '/1.1/users', { body: { username: 'viewer-target', password: 'pw-123456', email: 'viewer-target@example.test' } });
    const tries = [
      ['/scheduled/1234/cancel', {}],
      [`/users/${user.body.objectId}/unlock`, {}],
      [`/users/${user.body.objectId}/reset-mail`, {}],
      ['/devices/abc123/delete', {}],
      ['/compose', { action: 'send', target: 'channels', channels: 'news', iosAlert: 'hi' }],
    ] as const;
    for (const [path, fields] of tries) {
      const answer = await viewer.post(`/apps/${c.main.id}${path}`, fields);
      expect(answer.status, path).toBe(403);
      expect(answer.text).toContain('The viewer role may not do this.');
    }
    expect((await viewer.get(`/apps/${c.main.id}/compose`)).status).toBe(403);
    expect((await viewer.get('/audit')).status).toBe(403);
    const admin = await signedIn(people.admin);
    const log = await admin.get('/audit');
    expect(log.status).toBe(200);
    // This file's app only: on Cassandra the audit log outlives the run, and other runs' refusals of vera are there too.
    const row = new RegExp(`<tr><td>[^<]*</td><td>vera</td><td><code>([a-z.-]+)</code></td><td>${c.main.id}</td>(?:(?!<tr>).)*?<td class="bad">refused</td><td>role viewer</td></tr>`, 'g');
    const refusals = [...log.text.matchAll(row)].map((match) => match[1]);
    expect(refusals.sort()).toEqual(['device.delete', 'push.cancel-scheduled', 'push.compose', 'user.password-reset-mail', 'user.unlock']);
  });

  it('refuses a change without the CSRF token, with another session\'s token, or from another origin', async () => {
    const operator = await signedIn(people.operator);
    const other = await signedIn(people.admin);
    const user = await c.h.request('POST', '/1.1/users', { body: { username: 'csrf-target', password: 'pw-123456' } });
    const path = `/apps/${c.main.id}/users/${user.body.objectId}/unlock`;
    expect((await operator.post(path, {}, { csrf: null })).status).toBe(403);
    expect((await operator.post(path, {}, { csrf: other.csrf })).status).toBe(403);
    expect((await operator.post(path, {}, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await operator.post(path, {}, { origin: null, headers: { Referer: 'https://evil.example/page' } })).status).toBe(403);
    expect((await operator.post(path, {}, { headers: { 'Sec-Fetch-Site': 'cross-site' } })).status).toBe(403);
    expect((await operator.post(path, {})).status).toBe(303);
  });

  it('answers a change without a session 401, and never does it', async () => {
    const stranger = client();
    const answer = await stranger.post(`/apps/${c.main.id}/scheduled/1/cancel`, {}, { csrf: 'x' });
    expect(answer.status).toBe(401);
  });
});

describe('signing out', () => {
  it('ends this session only, or with sign out everywhere every session of the account', async () => {
    const first = await signedIn(people.operator);
    const second = await signedIn(people.operator);
    const third = await signedIn(people.operator);
    expect((await first.post('/sign-out', {})).status).toBe(303);
    expect((await first.get('/')).status).toBe(303);
    expect((await second.get('/')).status).toBe(200);
    expect((await second.post('/sign-out-everywhere', {})).status).toBe(303);
    expect((await second.get('/')).status).toBe(303);
    expect((await third.get('/')).status).toBe(303);
    // The account signs in again afterwards.
    c.clock.advance(1);
    const fourth = await signedIn(people.operator);
    expect((await fourth.get('/')).status).toBe(200);
  });

  it('ends a session left unused longer than the idle time, and any session after its lifetime', async () => {
    const idle = await signedIn(people.viewer);
    c.clock.advance(31 * 60_000);
    expect((await idle.get('/')).status).toBe(303);
    const busy = await signedIn(people.viewer);
    // Used every 20 minutes for 11 h 40 min: still signed in; at 12 h, the session's lifetime, no longer.
    for (let step = 0; step < 35; step += 1) {
      c.clock.advance(20 * 60_000);
      expect((await busy.get('/')).status).toBe(200);
    }
    c.clock.advance(20 * 60_000);
    expect((await busy.get('/')).status).toBe(303);
  });
});
