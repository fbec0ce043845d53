import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { systemClock, type Clock } from '../../../src/core/clock.ts';
import { DeliveryLog, type DeliveryTagger, type RecordMode } from './delivery-log.ts';

/** An app the fake knows: its App ID and OAuth client. */
export interface FakeHmsApp {
  appId: string;
  clientId: string;
  clientSecret: string;
}

/** A scripted answer to the next send requests, whatever they carry: a status with its body. */
export interface HmsScriptedAnswer {
  status: number;
  body: unknown;
  retryAfter?: number | string;
}

/** One `messages:send` request the fake received. */
export interface HmsRequestRecord {
  appId: string;
  headers: Record<string, string>;
  /** The body exactly as sent. */
  body: Buffer;
  /** The parsed `message`, when the body was valid. */
  message: Record<string, any> | undefined; // eslint-disable-line @typescript-eslint/no-explicit-any
  tokens: string[];
  status: number;
  code: string;
  /** Which TLS connection carried it (keep-alive reuse shows as few). */
  connection: number;
}

/** One token of an accepted request, as the per-token log keeps it. */
export interface HmsDeliveryRecord {
  token: string;
  status: number;
  request: HmsRequestRecord;
}

export interface FakeHmsOptions {
  cert: string;
  key: string;
  apps: FakeHmsApp[];
  /** `expires_in` of issued access tokens; default 3600 s as Huawei. */
  accessTokenTtlSeconds?: number;
  clock?: Clock;
  record?: RecordMode;
  tagger?: DeliveryTagger;
  /** Most tokens a request may carry (80300010 beyond); default 1000. */
  maxTokens?: number;
}

interface IssuedToken {
  appId: string;
  expiresAt: number;
}

/** Huawei's limit on a message, tokens aside (80300008). */
const maxMessageBytes = 4096;

/**
 * A local Huawei Push Kit (API v1) over HTTPS/1.1 keep-alive with the test
 * PKI's certificate: the OAuth 2.0 token endpoint (`POST /oauth2/v3/token`,
 * client credentials of a registered app, a wrong secret answered 400
 * `{error: 1101, …}`) and `POST /v1/{appId}/messages:send`, which checks the
 * bearer token (unknown 80200001, expired 80200003, both 401), 1 to
 * `maxTokens` tokens (80300010), the message's size (80300008) and a click
 * action on notifications (80100003), then answers per token: 80000000,
 * 80100000 listing the tokens made invalid (`invalidate`), or 80300007 when
 * all are. Scripted answers (`respondNext`) stand for flow control (503),
 * server errors and any code. Every request and every accepted token is
 * recorded.
 */
export class FakeHms {
  /** Accepted tokens (a device would see those), with the request that carried each. */
  readonly log: DeliveryLog<HmsDeliveryRecord>;
  /** Every send request, in arrival order. */
  readonly requests: HmsRequestRecord[] = [];
  readonly #server: Server;
  readonly #options: FakeHmsOptions;
  readonly #clock: Clock;
  readonly #apps = new Map<string, FakeHmsApp>();
  readonly #issued = new Map<string, IssuedToken>();
  readonly #invalid = new Set<string>();
  readonly #script: HmsScriptedAnswer[] = [];
  readonly #sockets = new Map<Socket, number>();
  #connections = 0;
  #tokenRequests = 0;
  #port = 0;

  static async start(options: FakeHmsOptions): Promise<FakeHms> {
    const fake = new FakeHms(options);
    await new Promise<void>((resolve, reject) => {
      fake.#server.once('error', reject);
      fake.#server.listen(0, '127.0.0.1', () => resolve());
    });
    fake.#port = (fake.#server.address() as AddressInfo).port;
    return fake;
  }

  private constructor(options: FakeHmsOptions) {
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
    return `${this.origin}/oauth2/v3/token`;
  }

  /** The send URL template, as a profile's `endpoints.send`. */
  get sendUrl(): string {
    return `${this.origin}/v1/{appId}/messages:send`;
  }

  /** Access tokens issued so far. */
  get tokenRequests(): number {
    return this.#tokenRequests;
  }

  /** TLS connections accepted so far. */
  get connections(): number {
    return this.#connections;
  }

  /** Makes `tokens` invalid: HMS lists them as illegal from now on. */
  invalidate(...tokens: string[]): void {
    for (const token of tokens) this.#invalid.add(token);
  }

  /** Answers the next send requests with `answers`, in order, whatever they carry. */
  respondNext(...answers: HmsScriptedAnswer[]): void {
    this.#script.push(...answers);
  }

  /** Every access token issued so far answers 80200003 (expired) from now on. */
  expireAccessTokens(): void {
    for (const token of this.#issued.values()) token.expiresAt = 0;
  }

  /** Send requests to `appId` that carried `token`. */
  requestsWith(token: string): HmsRequestRecord[] {
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
      if (req.method !== 'POST') return json(res, 405, { code: '80100001', msg: 'method not allowed' });
      if (path === '/oauth2/v3/token') return this.#token(res, body);
      const match = /^\/v1\/([^/]+)\/messages:send$/.exec(path);
      if (match === null) return json(res, 404, { code: '80100001', msg: 'not found' });
      this.#send(req, res, body, decodeURIComponent(match[1] ?? ''));
    });
  }

  /** OAuth 2.0 client credentials; the error body's numbers as Huawei's OAuth server answers an invalid client (unverified). */
  #token(res: ServerResponse, body: Buffer): void {
    const form = new URLSearchParams(body.toString('utf8'));
    if (form.get('grant_type') !== 'client_credentials') return json(res, 400, { error: 1102, sub_error: 20001, error_description: 'unsupported grant type' });
    const app = this.#apps.get(form.get('client_id') ?? '');
    if (app === undefined || form.get('client_secret') !== app.clientSecret) return json(res, 400, { error: 1101, sub_error: 20152, error_description: 'invalid client' });
    this.#tokenRequests += 1;
    const token = `hms-${randomBytes(24).toString('base64url')}`;
    const ttl = this.#options.accessTokenTtlSeconds ?? 3600;
    this.#issued.set(token, { appId: app.appId, expiresAt: this.#clock.now() + ttl * 1000 });
    json(res, 200, { access_token: token, expires_in: ttl, token_type: 'Bearer' });
  }

  #send(req: IncomingMessage, res: ServerResponse, body: Buffer, appId: string): void {
    let message: Record<string, any> | undefined; // eslint-disable-line @typescript-eslint/no-explicit-any
    try {
      message = (JSON.parse(body.toString('utf8')) as { message?: Record<string, unknown> }).message;
    } catch {
      message = undefined;
    }
    const tokens = Array.isArray(message?.token) ? (message.token as unknown[]).filter((token): token is string => typeof token === 'string') : [];
    const { status, answer, headers } = this.#verdict(req, appId, message, tokens);
    const code = typeof answer.code === 'string' || typeof answer.code === 'number' ? String(answer.code) : '';
    const record: HmsRequestRecord = {
      appId,
      headers: plainHeaders(req.headers),
      body,
      message,
      tokens,
      status,
      code,
      connection: this.#sockets.get(req.socket) ?? 0,
    };
    this.requests.push(record);
    const delivered = code === '80000000' || code === '80100000';
    for (const token of tokens) {
      const accepted = delivered && !this.#invalid.has(token);
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
    if (issued === undefined || issued.appId !== appId) return { status: 401, answer: { code: '80200001', msg: 'Oauth authentication error' } };
    if (issued.expiresAt <= this.#clock.now()) return { status: 401, answer: { code: '80200003', msg: 'Oauth Token expired.' } };
    const scripted = this.#script.shift();
    if (scripted !== undefined) {
      const headers = scripted.retryAfter === undefined ? undefined : { 'retry-after': String(scripted.retryAfter) };
      return { status: scripted.status, answer: (scripted.body ?? {}) as Record<string, unknown>, ...(headers === undefined ? {} : { headers }) };
    }
    if (message === undefined) return { status: 400, answer: { code: '80100003', msg: 'Incorrect message structure' } };
    if (tokens.length === 0 || tokens.length > (this.#options.maxTokens ?? 1000)) {
      return { status: 400, answer: { code: '80300010', msg: 'The number of tokens in the message body exceeds the default value' } };
    }
    const { token: _tokens, ...rest } = message;
    if (Buffer.byteLength(JSON.stringify(rest)) > maxMessageBytes) return { status: 400, answer: { code: '80300008', msg: 'The message body size exceeds the default value' } };
    const notification = message.android?.notification as Record<string, unknown> | undefined;
    if (notification !== undefined && (typeof notification.click_action !== 'object' || notification.click_action === null)) {
      return { status: 400, answer: { code: '80100003', msg: 'Incorrect message structure: click_action is required' } };
    }
    const illegal = tokens.filter((token) => this.#invalid.has(token));
    if (illegal.length === tokens.length) return { status: 400, answer: { code: '80300007', msg: 'All the tokens are invalid' } };
    const requestId = randomBytes(8).toString('hex');
    if (illegal.length === 0) return { status: 200, answer: { code: '80000000', msg: 'Success', requestId } };
    const msg = JSON.stringify({ success: tokens.length - illegal.length, failure: illegal.length, illegal_tokens: illegal });
    return { status: 200, answer: { code: '80100000', msg, requestId } };
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
