import { expect } from 'vitest';

export interface ConsoleAnswer {
  status: number;
  headers: Headers;
  text: string;
  /** Where a redirect points, if it is one. */
  location: string | null;
}

export interface PostOptions {
  /** The CSRF token to send: the session's by default, null for none. */
  csrf?: string | null;
  /** The Origin header: the console's own by default, null for none. */
  origin?: string | null;
  headers?: Record<string, string>;
}

/** The session's CSRF token as a page carries it. */
export function csrfOf(page: string): string {
  const token = /name="_csrf" value="([^"]+)"/.exec(page)?.[1];
  if (token === undefined) throw new Error('the page carries no CSRF token');
  return token;
}

/**
 * A person at the console without a browser: keeps the cookies, and sends
 * forms as a browser would (urlencoded, with Origin), or crafted otherwise.
 */
export class ConsoleClient {
  readonly #base: string;
  readonly #origin: string;
  readonly cookies = new Map<string, string>();
  csrf = '';

  constructor(consoleUrl: string, origin: string) {
    this.#base = consoleUrl;
    this.#origin = origin;
  }

  get(path: string, headers: Record<string, string> = {}): Promise<ConsoleAnswer> {
    return this.#send('GET', path, undefined, headers);
  }

  post(path: string, fields: Record<string, string>, options: PostOptions = {}): Promise<ConsoleAnswer> {
    const csrf = options.csrf === undefined ? this.csrf : options.csrf;
    const body = new URLSearchParams({ ...fields, ...(csrf === null ? {} : { _csrf: csrf }) }).toString();
    const origin = options.origin === undefined ? this.#origin : options.origin;
    return this.#send('POST', path, body, { 'Content-Type': 'application/x-www-form-urlencoded', ...(origin === null ? {} : { Origin: origin }), ...options.headers });
  }

  /** Signs in through the form; answers the sign-in's answer (303 when it worked). */
  async signIn(person: { username: string; password: string }, password: string = person.password): Promise<ConsoleAnswer> {
    const form = await this.get('/sign-in');
    expect(form.status).toBe(200);
    const answer = await this.post('/sign-in', { username: person.username, password }, { csrf: csrfOf(form.text) });
    if (answer.status === 303) {
      const home = await this.get('/');
      expect(home.status).toBe(200);
      this.csrf = csrfOf(home.text);
    }
    return answer;
  }

  async #send(method: string, path: string, body: string | undefined, headers: Record<string, string>): Promise<ConsoleAnswer> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(`${this.#base}${path}`, { method, body, redirect: 'manual', headers: { ...(cookie === '' ? {} : { Cookie: cookie }), ...headers } });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at);
      const value = pair.slice(at + 1);
      if (value === '' || /Max-Age=0/.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return { status: response.status, headers: response.headers, text: await response.text(), location: response.headers.get('location') };
  }
}
