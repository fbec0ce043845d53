import { EventEmitter, once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { pageContentSecurityPolicy, pageHeaders } from '../../src/api/pages/page-security.ts';
import { renderResetDone } from '../../src/api/pages/reset-done-page.ts';
import { renderResetForm } from '../../src/api/pages/reset-form-page.ts';
import { renderResetInvalid } from '../../src/api/pages/reset-invalid-page.ts';
import { renderVerifyResultPage } from '../../src/api/pages/verify-result-page.ts';
import { launchBrowser } from '../support/browser.ts';

const evil = `<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2">"'&`;

/** The DOM members the checks read; the project compiles without the DOM library. */
interface FormControl {
  required: boolean;
  validity: { valueMissing: boolean; tooShort: boolean };
}
interface Form {
  checkValidity(): boolean;
}
interface StyleWindow {
  getComputedStyle(element: unknown): { maxWidth: string };
}

interface PostedForm {
  headers: IncomingHttpHeaders;
  body: string;
}

/** Serves the account pages with their real headers, the way the API will. */
const routes: Record<string, () => string> = {
  '/verify/ok': () => renderVerifyResultPage({ ok: true, appName: 'Demo', email: 'ada@example.test' }),
  '/verify/failed': () => renderVerifyResultPage({ ok: false, appName: 'Demo', reason: 'The address was changed after this link was sent.' }),
  '/verify/evil': () => renderVerifyResultPage({ ok: true, appName: evil, email: evil }),
  '/reset/tok_1': () => renderResetForm({ appName: 'Demo', username: 'ada', actionUrl: '/reset/tok_1' }),
  '/reset/tok_2': () => renderResetForm({ appName: evil, username: evil, actionUrl: '/reset/tok_2', error: evil }),
  '/reset/mismatch': () => renderResetForm({ appName: 'Demo', username: 'ada', actionUrl: '/reset/mismatch', error: 'The passwords do not match.' }),
  '/reset/invalid': () => renderResetInvalid({ appName: 'Demo' }),
  '/reset/evil-done': () => renderResetDone({ appName: evil }),
  // Not a real page: proves that the policy itself stops an inline script.
  '/csp-probe': () => '<!doctype html><title>probe</title><script>window.ran = true</script><p>probe</p>',
};

let browser: Browser;
let server: Server;
let base: string;
const posts = new EventEmitter();

beforeAll(async () => {
  browser = await launchBrowser();
  server = createServer((request, response) => {
    const path = request.url ?? '/';
    if (request.method === 'POST') {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        response.writeHead(200, pageHeaders).end(renderResetDone({ appName: 'Demo' }));
        posts.emit('post', { headers: request.headers, body: Buffer.concat(chunks).toString('utf8') } satisfies PostedForm);
      });
      return;
    }
    const route = routes[path];
    if (route === undefined) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, pageHeaders).end(route());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await browser?.close();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
});

describe('account pages in a browser', () => {
  let page: Page;
  let cspViolations: string[];

  beforeEach(async () => {
    page = await browser.newPage();
    cspViolations = [];
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) cspViolations.push(message.text());
    });
  });

  afterEach(async () => {
    await page.close();
  });

  async function open(path: string): Promise<void> {
    const response = await page.goto(base + path);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toBe(pageContentSecurityPolicy);
  }

  const mainText = (): Promise<string> => page.locator('main').innerText();

  it('tells the person that the email address is verified', async () => {
    await open('/verify/ok');

    expect(await page.title()).toBe('Email address verified · Demo');
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Email address verified');
    expect(await mainText()).toContain('Your email address ada@example.test is verified.');
    expect(cspViolations).toEqual([]);
  });

  it('styles the page with its inline stylesheet, which the policy allows by hash', async () => {
    await open('/verify/ok');

    const maxWidth = await page.locator('main').evaluate((main) => (globalThis as unknown as StyleWindow).getComputedStyle(main).maxWidth);
    expect(maxWidth).toBe('448px');
    expect(cspViolations).toEqual([]);
  });

  it('runs no inline script under the page policy', async () => {
    await open('/csp-probe');

    expect(await page.evaluate(() => (globalThis as { ran?: boolean }).ran)).toBeUndefined();
    expect(cspViolations.length).toBeGreaterThan(0);
  });

  it('says a failed verification link is invalid, expired or already used', async () => {
    await open('/verify/failed');

    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Verification failed');
    expect(await page.getByRole('alert').innerText()).toBe('This link is invalid, expired or already used.');
    expect(await mainText()).toContain('The address was changed after this link was sent.');
  });

  it('shows a malicious app name and address as text instead of running them', async () => {
    await open('/verify/evil');

    expect(await page.locator('.app').innerText()).toBe(evil);
    expect(await page.locator('main strong').innerText()).toBe(evil);
    expect(await page.title()).toBe(`Email address verified · ${evil}`);
    expect(await page.locator('script, img').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as { pwned?: number }).pwned)).toBeUndefined();
  });

  it('offers a reset form with labelled, required password fields', async () => {
    await open('/reset/tok_1');

    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Choose a new password');
    expect(await mainText()).toContain('Enter a new password for ada.');
    for (const label of ['New password', 'Confirm new password']) {
      const field = page.getByLabel(label, { exact: true });
      expect(await field.getAttribute('type')).toBe('password');
      expect(await field.getAttribute('minlength')).toBe('8');
      expect(await field.evaluate((input: FormControl) => input.required)).toBe(true);
    }
    expect(await page.getByLabel('New password', { exact: true }).getAttribute('id')).toBe('password');
    expect(await page.getByLabel('Confirm new password').getAttribute('id')).toBe('confirm');
  });

  it('lets the browser refuse an empty or too short password without posting', async () => {
    await open('/reset/tok_1');
    let posted = false;
    posts.once('post', () => (posted = true));

    await page.getByRole('button', { name: 'Set new password' }).click();
    expect(await page.getByLabel('New password', { exact: true }).evaluate((input: FormControl) => input.validity.valueMissing)).toBe(true);

    await page.getByLabel('New password', { exact: true }).fill('short');
    await page.getByLabel('Confirm new password').fill('short');
    await page.getByRole('button', { name: 'Set new password' }).click();
    expect(await page.getByLabel('New password', { exact: true }).evaluate((input: FormControl) => input.validity.tooShort)).toBe(true);
    expect(await page.locator('form').evaluate((form: Form) => form.checkValidity())).toBe(false);

    // click() waits for any navigation it starts, so a submission would have reached the server by now.
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Choose a new password');
    expect(posted).toBe(false);
    posts.removeAllListeners('post');
  });

  it('posts password and confirm urlencoded to the action URL', async () => {
    await open('/reset/tok_1');
    const password = 'correct horse & battery=staple';
    const posted = once(posts, 'post') as Promise<[PostedForm]>;

    await page.getByLabel('New password', { exact: true }).fill(password);
    await page.getByLabel('Confirm new password').fill(password);
    await page.getByRole('button', { name: 'Set new password' }).click();
    const [form] = await posted;

    expect(form.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect([...new URLSearchParams(form.body)]).toEqual([
      ['password', password],
      ['confirm', password],
    ]);
    await page.getByRole('heading', { name: 'Password changed' }).waitFor();
    expect(await mainText()).toContain('Your password has been changed.');
    expect(new URL(page.url()).pathname).toBe('/reset/tok_1');
  });

  it('shows the error of a rejected attempt above the form', async () => {
    await open('/reset/mismatch');

    expect(await page.getByRole('alert').innerText()).toBe('The passwords do not match.');
    expect(await page.getByLabel('New password', { exact: true }).inputValue()).toBe('');
  });

  it('escapes app name, username and error on the reset form', async () => {
    await open('/reset/tok_2');

    expect(await page.getByRole('alert').innerText()).toBe(evil);
    expect(await page.locator('main strong').innerText()).toBe(evil);
    expect(await page.locator('script, img').count()).toBe(0);
    expect(await page.locator('form').getAttribute('action')).toBe('/reset/tok_2');
    expect(await page.evaluate(() => (globalThis as { pwned?: number }).pwned)).toBeUndefined();
  });

  it('says an unusable reset link is invalid, expired or already used', async () => {
    await open('/reset/invalid');

    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Link not valid');
    expect(await page.getByRole('alert').innerText()).toBe('This password reset link is invalid, expired or already used.');
  });

  it('escapes the app name on the done page', async () => {
    await open('/reset/evil-done');

    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Password changed');
    expect(await page.locator('.app').innerText()).toBe(evil);
    expect(await page.locator('script, img').count()).toBe(0);
  });
});

describe('page renderers', () => {
  it('refuse a form action that is not a path or an http(s) URL', () => {
    const refusal = new TypeError('actionUrl must be a path or an absolute http(s) URL');
    expect(() => renderResetForm({ appName: 'Demo', username: 'ada', actionUrl: 'javascript:alert(1)' })).toThrow(refusal);
    expect(() => renderResetForm({ appName: 'Demo', username: 'ada', actionUrl: '//evil.example/steal' })).toThrow(refusal);
    expect(renderResetForm({ appName: 'Demo', username: 'ada', actionUrl: 'https://herald.example.test/1.1/resetPassword/t' })).toContain(
      'action="https://herald.example.test/1.1/resetPassword/t"',
    );
  });
});
