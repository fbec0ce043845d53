import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import puppeteer, { type Browser as PuppeteerBrowser, type Page as PuppeteerPage } from 'puppeteer-core';
import { Key, remote } from 'webdriverio';

/**
 * The browser engines besides Chromium that the console must work in,
 * driven without any browser build of a test tool's own: Debian's Firefox ESR
 * through WebDriver BiDi (puppeteer-core), and WebKitGTK — the engine Safari
 * is built on — through its own WebDriver (`WebKitWebDriver` driving
 * `MiniBrowser`, webdriverio) on an Xvfb display. Each throws, naming the
 * package, when it is not installed: a test never skips for want of a
 * browser.
 */
export type EngineName = 'firefox' | 'webkit';

export const enginePackages: Record<EngineName, string> = {
  firefox: 'firefox-esr',
  webkit: 'webkit2gtk-driver xvfb',
};

const firefoxPath = '/usr/bin/firefox-esr';
const webkitDriverPath = '/usr/bin/WebKitWebDriver';
const miniBrowserPath = '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';
const xvfbPath = '/usr/bin/Xvfb';

/** What a test does with a page, the same in every engine. */
export interface EnginePage {
  readonly engine: EngineName;
  /** The browser's own name and version, as it reports them. */
  readonly version: string;
  goto(url: string): Promise<void>;
  url(): Promise<string>;
  /** Types into the focused element, as a keyboard would. */
  keys(text: string): Promise<void>;
  press(key: 'Tab' | 'Enter'): Promise<void>;
  /** Clicks the first element `selector` matches, as a mouse would. */
  click(selector: string): Promise<void>;
  /** Focuses the element and types into it. */
  fill(selector: string, text: string): Promise<void>;
  /** The text of the first element `selector` matches; null when none does. */
  text(selector: string): Promise<string | null>;
  /** The value of a JavaScript expression, evaluated in the page (a promise's, once it settles). */
  evaluate<T>(expression: string): Promise<T>;
  /** Runs a whole script in the page, such as a library's source. */
  run(script: string): Promise<void>;
  /** Script errors the page raised since it was opened (Firefox only; WebDriver classic does not report them). */
  errors(): string[];
  setSize(width: number, height: number): Promise<void>;
  close(): Promise<void>;
}

export function launchEngine(engine: EngineName): Promise<EnginePage> {
  return engine === 'firefox' ? launchFirefox() : launchWebkit();
}

function missing(paths: string[], engine: EngineName): void {
  const absent = paths.filter((path) => !existsSync(path));
  if (absent.length > 0) throw new Error(`${engine}: ${absent.join(', ')} not installed; install with: apt-get install -y ${enginePackages[engine]}`);
}

async function launchFirefox(): Promise<EnginePage> {
  missing([firefoxPath], 'firefox');
  const browser: PuppeteerBrowser = await puppeteer.launch({ browser: 'firefox', executablePath: firefoxPath, headless: true });
  try {
    const page: PuppeteerPage = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error instanceof Error ? error.message : String(error)));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    const version = await browser.version();
    return {
      engine: 'firefox',
      version,
      goto: async (url) => {
        await page.goto(url, { waitUntil: 'load' });
      },
      url: () => Promise.resolve(page.url()),
      keys: (text) => page.keyboard.type(text),
      press: (key) => page.keyboard.press(key),
      click: (selector) => page.click(selector),
      fill: async (selector, text) => {
        await page.focus(selector);
        await page.keyboard.type(text);
      },
      text: (selector) => page.evaluate(textOf(selector)) as Promise<string | null>,
      evaluate: <T>(expression: string) => page.evaluate(expression) as Promise<T>,
      run: async (script) => {
        await page.evaluate(script);
      },
      errors: () => [...errors],
      setSize: (width, height) => page.setViewport({ width, height }),
      close: () => browser.close(),
    };
  } catch (error) {
    await browser.close();
    throw error;
  }
}

async function launchWebkit(): Promise<EnginePage> {
  missing([webkitDriverPath, miniBrowserPath, xvfbPath], 'webkit');
  const xvfb = spawn(xvfbPath, ['-displayfd', '3', '-screen', '0', '1280x900x24', '-nolisten', 'tcp'], { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
  let driver: ChildProcess | undefined;
  try {
    const display = await displayOf(xvfb);
    const port = await freePort();
    driver = spawn(webkitDriverPath, [`--port=${port}`], { stdio: 'ignore', env: { ...process.env, DISPLAY: `:${display}` } });
    const browser = await remote({
      hostname: '127.0.0.1',
      port,
      path: '/',
      logLevel: 'silent',
      connectionRetryCount: 10,
      // WebKitGTK's own capability, which webdriverio's types do not list.
      capabilities: {
        browserName: 'MiniBrowser',
        'wdio:enforceWebDriverClassic': true,
        'webkitgtk:browserOptions': { binary: miniBrowserPath, args: ['--automation'] },
      } as WebdriverIO.Capabilities,
    });
    const caps = browser.capabilities as { browserName?: string; browserVersion?: string };
    const sendToFocused = async (text: string): Promise<void> => {
      const focused = (await browser.getActiveElement()) as unknown as Record<string, string>;
      const id = focused['element-6066-11e4-a52e-4f735466cecf'] ?? Object.values(focused)[0];
      if (id === undefined) throw new Error('webkit: no element has the focus');
      await browser.elementSendKeys(id, text);
    };
    const stop = driver;
    return {
      engine: 'webkit',
      version: `WebKitGTK ${caps.browserVersion ?? '?'} (${caps.browserName ?? 'MiniBrowser'})`,
      goto: async (url) => {
        await browser.url(url);
      },
      url: () => browser.getUrl(),
      // WebDriver's Element Send Keys to the focused element: WebKitGTK's key actions drop characters typed quickly.
      keys: (text) => sendToFocused(text),
      press: (key) => sendToFocused(key === 'Tab' ? Key.Tab : Key.Enter),
      click: async (selector) => {
        await browser.$(selector).click();
      },
      fill: async (selector, text) => {
        await browser.$(selector).click();
        await sendToFocused(text);
      },
      text: async (selector) => (await browser.execute(`return ${textOf(selector)};`)) as unknown as string | null,
      evaluate: async <T>(expression: string) => (await browser.execute(`return (${expression});`)) as unknown as T,
      run: async (script) => {
        await browser.execute(script);
      },
      errors: () => [],
      setSize: (width, height) => browser.setWindowSize(width, height),
      close: async () => {
        try {
          await browser.deleteSession();
        } finally {
          stop.kill();
          xvfb.kill();
        }
      },
    };
  } catch (error) {
    driver?.kill();
    xvfb.kill();
    throw error;
  }
}

/** A page expression: the text of the first element `selector` matches, or null. */
function textOf(selector: string): string {
  return `(document.querySelector(${JSON.stringify(selector)}) || { textContent: null }).textContent`;
}

/** The display number Xvfb writes to its fd 3 once it is ready. */
function displayOf(xvfb: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error('Xvfb did not start within 10 s')), 10_000);
    const ready = xvfb.stdio[3];
    ready?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\n')) {
        clearTimeout(timer);
        resolve(text.trim());
      }
    });
    xvfb.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Xvfb exited (${String(code)}) before it was ready`));
    });
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
