import type { ClusterApp } from './cluster-env.ts';

/** An answer of the REST API; records are untyped JSON on the wire. */
export interface ApiAnswer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: Record<string, any>;
}

export interface ApiRequestOptions {
  body?: unknown;
  /** Send the master key instead of the app key. */
  master?: boolean;
  session?: string;
}

/** No answer at all: the connection was refused or dropped (a node killed mid-request), or the request timed out. */
export class NoAnswerError extends Error {
  override readonly name = 'NoAnswerError';
}

/** How long one request may take before it counts as unanswered. */
const requestTimeoutMs = 30_000;

/** A client of one API node, as an app backend would use it. */
export class ApiClient {
  readonly port: number;
  readonly #app: ClusterApp;

  constructor(port: number, app: ClusterApp) {
    this.port = port;
    this.#app = app;
  }

  /** Sends one request; throws `NoAnswerError` when no HTTP answer came back. */
  async request(method: string, path: string, options: ApiRequestOptions = {}): Promise<ApiAnswer> {
    const headers: Record<string, string> = {
      'X-SVC-Id': this.#app.id,
      'X-SVC-Key': options.master === true ? `${this.#app.masterKey},master` : this.#app.key,
      'Content-Type': 'application/json',
    };
    if (options.session !== undefined) headers['X-SVC-Session'] = options.session;
    let response: Response;
    let text: string;
    try {
      response = await fetch(`http://127.0.0.1:${this.port}${path}`, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: AbortSignal.timeout(requestTimeoutMs),
      });
      text = await response.text();
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      throw new NoAnswerError(`${method} ${path} on port ${this.port}: ${(error as Error).message}${cause === undefined ? '' : ` (${cause})`}`, { cause: error });
    }
    let body: ApiAnswer['body'];
    try {
      body = JSON.parse(text) as ApiAnswer['body'];
    } catch {
      throw new Error(`${method} ${path} answered ${response.status} with a body that is not JSON: ${text.slice(0, 200)}`);
    }
    return { status: response.status, body };
  }

  /** `POST /1.1/push` with the master key. */
  push(body: Record<string, unknown>): Promise<ApiAnswer> {
    return this.request('POST', '/1.1/push', { body, master: true });
  }

  /** `POST /1.1/push/devices` with the master key. */
  pushToDevices(body: Record<string, unknown>): Promise<ApiAnswer> {
    return this.request('POST', '/1.1/push/devices', { body, master: true });
  }

  /** `GET /1.1/notifications/<notification_id>` with the master key. */
  notification(notificationId: string): Promise<ApiAnswer> {
    return this.request('GET', `/1.1/notifications/${notificationId}`, { master: true });
  }
}
