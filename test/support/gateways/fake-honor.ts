import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { systemClock, type Clock } from '../../../src/core/clock.ts';
import { DeliveryLog, type DeliveryTagger, type RecordMode } from './delivery-log.ts';

/** An app the fake knows: its App ID and OAuth client. */
export interface FakeHonorApp {
  appId: string;
  clientId: string;
  clientSecret: string;
}

/** A scripted answer to the next send requests, whatever they carry: a status with its body. */
export interface HonorScriptedAnswer {
  status: number;
  body: unknown;
  retryAfter?: number | string;
}

/** One `sendMessage` request the fake received. */
export interface HonorRequestRecord {
  appId: string;
  headers: Record<string, string>;
  /** The body exactly as sent. */
  body: Buffer;
  /** The parsed body, when it was JSON. */
  message: Record<string, any> | undefined; // eslint-disable-line @typescript-eslint/no-explicit-any
  tokens: string[];
  status: number;
  /** The answer's `code`, as digits. */
  code: string;
  /** Which TLS connection carried it (keep-alive reuse shows as few). */
  connection: number;
}

/** One token of an accepted request, as the per-token log keeps it. */
export interface HonorDeliveryRecord {
  token: string;
  status: number;
  request: HonorRequestRecord;
}

export interface FakeHonorOptions {
  cert: string;
  key: string;
  apps: FakeHonorApp[];
  /** `expires_in` of issued access tokens; default 3600 s. */
  accessTokenTtlSeconds?: number;
  clock?: Clock;
  record?: RecordMode;
  tagger?: DeliveryTagger;
  /** Most tokens a request may carry; default 1000. */
  maxTokens?: number;
}

interface IssuedToken {
  clientId: string;
  expiresAt: number;
}

/** The limit the fake holds a message to, tokens aside (Herald's figure for Honor, HMS's). */
const maxMessageBytes = 4096;
/** How far the `timestamp` header may be from the fake's clock. */
const timestampSkewMs = 10 * 60_000;

/**
 * A local Honor Push over HTTPS/1.1 keep-alive with the test PKI's
 * certificate: the OAuth 2.0 token endpoint (`POST /auth/token`, client
 * credentials of a registered app; a wrong client answered 401
 * `{error: "unauthorized_client", …}` as Honor's Keycloak does) and
 * `POST /api/v1/{appId}/sendMessage`, which checks the bearer token (unknown
 * or of another app 80200001, expired 80200003, both 401), the `timestamp`
 * header (milliseconds, within 10 minutes), 1 to `maxTokens` tokens, the
 * message's size (80300008) and a click action on notifications, then answers
 * `{code: 200, message: "success", data: {sendResult, requestId, failTokens,
 * expireTokens}}` listing the tokens made expired (`expire`) or failing
 * (`fail`). Scripted answers (`respondNext`) stand for flow control (503),
 * server errors and any code. Every request and every accepted token is
 * recorded.
 */
export class FakeHonor {
  /** Accepted tokens (a device would see those), with the request that carried each. */
  readonly log: DeliveryLog<HonorDeliveryRecord>;
  /** Every send request, in arrival order. */
  readonly requests: HonorRequestRecord[] = [];
  readonly #server: Server;
  readonly #options: FakeHonorOptions;
  readonly #clock: Clock;
  readonly #apps = new Map<string, FakeHonorApp>();
  readonly #issued = new Map<string, IssuedToken>();
  readonly #expired = new Set<string>();
  readonly #failing = new Set<string>();
  readonly #script: HonorScriptedAnswer[] = [];
  readonly #sockets = new Map<Socket, number>();
  #connections = 0;
  #tokenRequests = 0;
  #port = 0;

  static async start(options: FakeHonorOptions): Promise<FakeHonor> {
    const fake = new FakeHonor(options);
    await new Promise<void>((resolve, reject) => {
      fake.#server.once('error', reject);
      fake.#server.listen(0, '127.0.0.1', () => resolve());
    });
    fake.#port = (fake.#server.address() as AddressInfo).port;
    return fake;
  }

  private constructor(options: FakeHonorOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.log = new DeliveryLog(options.record ?? 'full');
    for (const app of options.apps) this.#apps.set(app.clientId, app);
    this.#server = createServer({ cert: options.cert, key: options.key, keepAlive: true }, (req, res) => this.#onRequest(req, res));
    this.#server.on('secureConnection', (socket: Socket) => {
      this.#sockets.set(socket, ++this.#connections);
      socket.once('close', () => this.#sockets.delete(socket));
    });
  }

  get origin(): string {
    return `https://127.0.0.1:${this.#port}`;
  }

  /** The token endpoint, as a profile's `endpoints.auth`. */
  get authUrl(): string {
    return `${this.origin}/auth/token`;
  }

  /** The send URL template, as a profile's `endpoints.send`. */
  get sendUrl(): string {
    return `${this.origin}/api/v1/{appId}/sendMessage`;
  }

  /** Access tokens issued so far. */
  get tokenRequests(): number {
    return this.#tokenRequests;
  }

  /** TLS connections accepted so far. */
  get connections(): number {
    return this.#connections;
  }

  /** Makes `tokens` no longer registered: answers list them in `expireTokens` from now on. */
  expire(...tokens: string[]): void {
    for (const token of tokens) this.#expired.add(token);
  }

  /** Makes sends to `tokens` fail: answers list them in `failTokens` from now on. */
  fail(...tokens: string[]): void {
    for (const token of tokens) this.#failing.add(token);
  }

  /** Answers the next send requests with `answers`, in order, whatever they carry. */
  respondNext(...answers: HonorScriptedAnswer[]): void {
    this.#script.push(...answers);
  }

  /** Every access token issued so far answers 80200003 (expired) from now on. */
  expireAccessTokens(): void {
    for (const token of this.#issued.values()) token.expiresAt = 0;
  }

  /** Send requests that carried `token`. */
  requestsWith(token: string): HonorRequestRecord[] {
    return this.requests.filter((request) => request.tokens.includes(token));
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets.keys()) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #onRequest(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const path = req.url ?? '';
      if (req.method !== 'POST') return json(res, 405, { code: 405, message: 'method not allowed' });
      if (path === '/auth/token') return this.#token(res, body);
      const match = /^\/api\/v1\/([^/]+)\/sendMessage$/.exec(path);
      if (match === null) return json(res, 404, { code: 404, message: 'not found' });
      this.#send(req, res, body, decodeURIComponent(match[1] ?? ''));
    });
  }

  /** OAuth 2.0 client credentials; refusals as Honor's Keycloak answers them. */
  #token(res: ServerResponse, body: Buffer): void {
    const form = new URLSearchParams(body.toString('utf8'));
    if (form.get('grant_type') !== 'client_credentials') return json(res, 400, { error: 'unsupported_grant_type', error_description: 'Unsupported grant_type' });
    const app = this.#apps.get(form.get('client_id') ?? '');
    if (app === undefined || form.get('client_secret') !== app.clientSecret) {
      return json(res, 401, { error: 'unauthorized_client', error_description: 'Invalid client or Invalid client credentials' });
    }
    this.#tokenRequests += 1;
    const token = `honor-${randomBytes(24).toString('base64url')}`;
    const ttl = this.#options.accessTokenTtlSeconds ?? 3600;
    this.#issued.set(token, { clientId: app.clientId, expiresAt: this.#clock.now() + ttl * 1000 });
    json(res, 200, { access_token: token, expires_in: ttl, refresh_expires_in: 0, token_type: 'Bearer', 'not-before-policy': 0, scope: 'profile' });
  }

  #send(req: IncomingMessage, res: ServerResponse, body: Buffer, appId: string): void {
    let message: Record<string, any> | undefined; // eslint-disable-line @typescript-eslint/no-explicit-any
    try {
      const parsed: unknown = JSON.parse(body.toString('utf8'));
      message = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
    } catch {
      message = undefined;
    }
    const tokens = Array.isArray(message?.token) ? (message.token as unknown[]).filter((token): token is string => typeof token === 'string') : [];
    const { status, answer, headers } = this.#verdict(req, appId, message, tokens);
    const code = typeof answer.code === 'string' || typeof answer.code === 'number' ? String(answer.code) : '';
    const record: HonorRequestRecord = { appId, headers: plainHeaders(req.headers), body, message, tokens, status, code, connection: this.#sockets.get(req.socket) ?? 0 };
    this.requests.push(record);
    const data = answer.data as { sendResult?: boolean } | undefined;
    const sent = code === '200' && data?.sendResult === true;
    for (const token of tokens) {
      const accepted = sent && !this.#expired.has(token) && !this.#failing.has(token);
      this.log.add(token, accepted, this.log.mode === 'full' ? { token, status: accepted ? 200 : status, request: record } : undefined, accepted ? this.#options.tagger?.(body) : undefined);
    }
    json(res, status, answer, headers);
  }

  #verdict(
    req: IncomingMessage,
    appId: string,
    message: Record<string, any> | undefined, // eslint-disable-line @typescript-eslint/no-explicit-any
    tokens: string[],
  ): { status: number; answer: Record<string, unknown>; headers?: Record<string, string> } {
    const authorization = req.headers.authorization ?? '';
    const issued = authorization.startsWith('Bearer ') ? this.#issued.get(authorization.slice('Bearer '.length)) : undefined;
    const app = issued === undefined ? undefined : this.#apps.get(issued.clientId);
    if (issued === undefined || app?.appId !== appId) return { status: 401, answer: { code: 80200001, message: 'Oauth authentication error' } };
    if (issued.expiresAt <= this.#clock.now()) return { status: 401, answer: { code: 80200003, message: 'Oauth Token expired.' } };
    const timestamp = String(req.headers.timestamp ?? '');
    if (!/^\d{13}$/.test(timestamp) || Math.abs(Number(timestamp) - this.#clock.now()) > timestampSkewMs) {
      return { status: 400, answer: { code: 400, message: 'timestamp header missing or out of range' } };
    }
    const scripted = this.#script.shift();
    if (scripted !== undefined) {
      const headers = scripted.retryAfter === undefined ? undefined : { 'retry-after': String(scripted.retryAfter) };
      return { status: scripted.status, answer: (scripted.body ?? {}) as Record<string, unknown>, ...(headers === undefined ? {} : { headers }) };
    }
    if (message === undefined) return { status: 400, answer: { code: 400, message: 'Incorrect message structure' } };
    if (tokens.length === 0 || tokens.length > (this.#options.maxTokens ?? 1000)) return { status: 400, answer: { code: 400, message: 'The number of tokens is out of range' } };
    const { token: _tokens, ...rest } = message;
    if (Buffer.byteLength(JSON.stringify(rest)) > maxMessageBytes) return { status: 400, answer: { code: 80300008, message: 'The message body size exceeds the default value' } };
    const notification = message.android?.notification as Record<string, unknown> | undefined;
    if (notification !== undefined && (typeof notification.clickAction !== 'object' || notification.clickAction === null)) {
      return { status: 400, answer: { code: 400, message: 'Incorrect message structure: clickAction is required' } };
    }
    const expireTokens = tokens.filter((token) => this.#expired.has(token));
    const failTokens = tokens.filter((token) => this.#failing.has(token) && !this.#expired.has(token));
    const sendResult = expireTokens.length + failTokens.length < tokens.length;
    return { status: 200, answer: { code: 200, message: 'success', data: { sendResult, requestId: randomBytes(8).toString('hex'), failTokens, expireTokens } } };
  }
}

function json(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json;charset=UTF-8', ...headers });
  res.end(JSON.stringify(value));
}

function plainHeaders(headers: IncomingMessage['headers']): Record<string, string> {
  const plain: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) plain[name] = String(value);
  return plain;
}
