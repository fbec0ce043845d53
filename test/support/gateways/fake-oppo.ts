import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { systemClock, type Clock } from '../../../src/core/clock.ts';
import { DeliveryLog, type DeliveryTagger, type RecordMode } from './delivery-log.ts';

/** An app the fake knows: its AppKey and MasterSecret. */
export interface FakeOppoApp {
  appKey: string;
  masterSecret: string;
}

/** A scripted answer to the next send requests, whatever they carry: a status with its body. */
export interface OppoScriptedAnswer {
  status: number;
  body: unknown;
  retryAfter?: number | string;
}

// Messages are untyped JSON on the wire; tests read the fields they expect.
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** One `unicast_batch` request the fake received. */
export interface OppoRequestRecord {
  appKey: string | undefined;
  headers: Record<string, string>;
  /** The form as sent. */
  form: URLSearchParams;
  /** The parsed `messages`, when they were a JSON list. */
  messages: Json[] | undefined;
  tokens: string[];
  status: number;
  code: number;
  /** Which TLS connection carried it (keep-alive reuse shows as few). */
  connection: number;
}

/** One message of an accepted request, as the per-token log keeps it. */
export interface OppoDeliveryRecord {
  token: string;
  status: number;
  message: Json;
  request: OppoRequestRecord;
}

export interface FakeOppoOptions {
  cert: string;
  key: string;
  apps: FakeOppoApp[];
  clock?: Clock;
  record?: RecordMode;
  tagger?: DeliveryTagger;
  /** Messages per app and day before code 33; default unlimited. */
  dailyLimit?: number;
}

interface IssuedToken {
  appKey: string;
  expiresAt: number;
}

const dayMs = 24 * 3_600_000;
/** OPPO takes timestamps within ten minutes of its clock. */
const timestampWindowMs = 10 * 60_000;

/**
 * A local OPPO Push over HTTPS/1.1 keep-alive with the test PKI's
 * certificate: `POST /server/v1/auth` (form `app_key`, `timestamp`, `sign`;
 * checks the sign as OPPO does, SHA-256 of AppKey + timestamp + MasterSecret,
 * and the timestamp within ten minutes: 14, 16, 18, 19 otherwise) and
 * `POST /server/v1/message/notification/unicast_batch` (form `auth_token`,
 * `messages`), which checks the auth token (29 missing, 11 unknown or
 * expired after 24 h), 1 to 1000 messages each with target_type 2, a title
 * and content within OPPO's lengths, action_parameters within 4000
 * characters (40/41), notify_level only with a category (67), the day's
 * limit (33), then answers per message: a messageId, or errorCode 10000 for
 * an invalid registration id. Scripted answers (`respondNext`) stand for
 * flow control, server errors and any code. Every request and every
 * accepted message is recorded.
 */
export class FakeOppo {
  /** Accepted messages (a device would see those), with the request that carried each. */
  readonly log: DeliveryLog<OppoDeliveryRecord>;
  /** Every send request, in arrival order. */
  readonly requests: OppoRequestRecord[] = [];
  readonly #server: Server;
  readonly #options: FakeOppoOptions;
  readonly #clock: Clock;
  readonly #apps = new Map<string, FakeOppoApp>();
  readonly #issued = new Map<string, IssuedToken>();
  readonly #invalid = new Set<string>();
  readonly #script: OppoScriptedAnswer[] = [];
  readonly #sentToday = new Map<string, { day: number; count: number }>();
  readonly #sockets = new Map<Socket, number>();
  #connections = 0;
  #tokenRequests = 0;
  #port = 0;

  static async start(options: FakeOppoOptions): Promise<FakeOppo> {
    const fake = new FakeOppo(options);
    await new Promise<void>((resolve, reject) => {
      fake.#server.once('error', reject);
      fake.#server.listen(0, '127.0.0.1', () => resolve());
    });
    fake.#port = (fake.#server.address() as AddressInfo).port;
    return fake;
  }

  private constructor(options: FakeOppoOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.log = new DeliveryLog(options.record ?? 'full');
    for (const app of options.apps) this.#apps.set(app.appKey, app);
    this.#server = createServer({ cert: options.cert, key: options.key, keepAlive: true }, (req, res) => this.#onRequest(req, res));
    this.#server.on('secureConnection', (socket: Socket) => {
      this.#sockets.set(socket, ++this.#connections);
      socket.once('close', () => this.#sockets.delete(socket));
    });
  }

  get origin(): string {
    return `https://127.0.0.1:${this.#port}`;
  }

  /** The auth endpoint, as a profile's `endpoints.auth`. */
  get authUrl(): string {
    return `${this.origin}/server/v1/auth`;
  }

  /** The batched unicast endpoint, as a profile's `endpoints.send`. */
  get sendUrl(): string {
    return `${this.origin}/server/v1/message/notification/unicast_batch`;
  }

  /** Auth tokens issued so far. */
  get tokenRequests(): number {
    return this.#tokenRequests;
  }

  /** TLS connections accepted so far. */
  get connections(): number {
    return this.#connections;
  }

  /** Makes `tokens` invalid: OPPO answers errorCode 10000 for their messages from now on. */
  invalidate(...tokens: string[]): void {
    for (const token of tokens) this.#invalid.add(token);
  }

  /** Answers the next send requests with `answers`, in order, whatever they carry (after the auth token is checked). */
  respondNext(...answers: OppoScriptedAnswer[]): void {
    this.#script.push(...answers);
  }

  /** Every auth token issued so far answers 11 (invalid) from now on. */
  expireAccessTokens(): void {
    for (const token of this.#issued.values()) token.expiresAt = 0;
  }

  /** Send requests that carried `token`. */
  requestsWith(token: string): OppoRequestRecord[] {
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
      if (req.method !== 'POST') return json(res, 200, { code: 12, message: 'Http Action Not Allowed' });
      if (!(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return json(res, 200, { code: 40, message: 'Missing Required Arguments' });
      const form = new URLSearchParams(body.toString('utf8'));
      if (req.url === '/server/v1/auth') return this.#auth(res, form);
      if (req.url === '/server/v1/message/notification/unicast_batch') return this.#send(req, res, form, body);
      json(res, 404, { code: 20, message: 'Invalid Method' });
    });
  }

  #auth(res: ServerResponse, form: URLSearchParams): void {
    const appKey = form.get('app_key');
    if (appKey === null || appKey === '') return json(res, 200, { code: 15, message: 'Missing App Key' });
    const app = this.#apps.get(appKey);
    if (app === undefined) return json(res, 200, { code: 14, message: 'Invalid App Key' });
    const timestamp = form.get('timestamp');
    if (timestamp === null || timestamp === '') return json(res, 200, { code: 18, message: 'Missing Timestamp' });
    if (!/^\d{13}$/.test(timestamp) || Math.abs(Number(timestamp) - this.#clock.now()) > timestampWindowMs) return json(res, 200, { code: 19, message: 'Invalid Timestamp' });
    const sign = form.get('sign');
    if (sign === null || sign === '') return json(res, 200, { code: 17, message: 'Missing Signature' });
    const expected = createHash('sha256').update(`${appKey}${timestamp}${app.masterSecret}`).digest('hex');
    if (sign !== expected) return json(res, 200, { code: 16, message: 'Invalid Signature' });
    this.#tokenRequests += 1;
    const token = randomBytes(18).toString('hex');
    const now = this.#clock.now();
    this.#issued.set(token, { appKey, expiresAt: now + dayMs });
    json(res, 200, { code: 0, message: 'Success', data: { auth_token: token, create_time: now } });
  }

  #send(req: IncomingMessage, res: ServerResponse, form: URLSearchParams, body: Buffer): void {
    let messages: Json[] | undefined;
    try {
      const parsed: unknown = JSON.parse(form.get('messages') ?? '');
      messages = Array.isArray(parsed) ? (parsed as Json[]) : undefined;
    } catch {
      messages = undefined;
    }
    const tokens = (messages ?? []).map((message) => (typeof message?.target_value === 'string' ? message.target_value : '')).filter((token) => token !== '');
    const issued = this.#issued.get(form.get('auth_token') ?? '');
    const { status, answer, headers } = this.#verdict(form, issued, messages);
    const record: OppoRequestRecord = {
      appKey: issued?.appKey,
      headers: plainHeaders(req.headers),
      form,
      messages,
      tokens,
      status,
      code: typeof answer.code === 'number' ? answer.code : Number.NaN,
      connection: this.#sockets.get(req.socket) ?? 0,
    };
    this.requests.push(record);
    const accepted = new Set<string>();
    if (record.code === 0 && Array.isArray(answer.data)) {
      for (const item of answer.data as Json[]) if (item.errorCode === undefined) accepted.add(item.registrationId as string);
    }
    for (const message of messages ?? []) {
      const token = typeof message?.target_value === 'string' ? message.target_value : '';
      const ok = accepted.has(token);
      this.log.add(token, ok, this.log.mode === 'full' ? { token, status: ok ? 200 : status, message, request: record } : undefined, ok ? this.#options.tagger?.(body) : undefined);
    }
    json(res, status, answer, headers);
  }

  #verdict(form: URLSearchParams, issued: IssuedToken | undefined, messages: Json[] | undefined): { status: number; answer: Json; headers?: Record<string, string> } {
    if ((form.get('auth_token') ?? '') === '') return ok({ code: 29, message: 'Missing Auth Token' });
    if (issued === undefined || issued.expiresAt <= this.#clock.now()) return ok({ code: 11, message: 'Invalid AuthToken' });
    const scripted = this.#script.shift();
    if (scripted !== undefined) {
      const headers = scripted.retryAfter === undefined ? undefined : { 'retry-after': String(scripted.retryAfter) };
      return { status: scripted.status, answer: scripted.body ?? {}, ...(headers === undefined ? {} : { headers }) };
    }
    if (messages === undefined) return ok({ code: 40, message: 'Missing Required Arguments: messages' });
    if (messages.length === 0 || messages.length > 1000) return ok({ code: 41, message: 'Invalid Arguments: messages holds 1 to 1000 messages' });
    for (const message of messages) {
      const problem = messageProblem(message);
      if (problem !== undefined) return ok(problem);
    }
    if (!this.#withinDailyLimit(issued.appKey, messages.length)) return ok({ code: 33, message: 'The number of messages exceeds the daily limit' });
    const data = messages.map((message) => {
      const registrationId = message.target_value as string;
      const messageId = `${issued.appKey}-1-1-${randomBytes(12).toString('hex')}`;
      if (this.#invalid.has(registrationId)) return { messageId, registrationId, errorCode: 10000, errorMessage: 'Invalid Registration_id' };
      return { messageId, registrationId };
    });
    return ok({ code: 0, message: 'Success', data });
  }

  #withinDailyLimit(appKey: string, count: number): boolean {
    const limit = this.#options.dailyLimit;
    if (limit === undefined) return true;
    // OPPO's days start at midnight in China.
    const day = Math.floor((this.#clock.now() + 8 * 3_600_000) / dayMs);
    const sent = this.#sentToday.get(appKey);
    const before = sent?.day === day ? sent.count : 0;
    if (before + count > limit) return false;
    this.#sentToday.set(appKey, { day, count: before + count });
    return true;
  }
}

/** What OPPO refuses in one message, as its answer; undefined when it is fine. */
function messageProblem(message: Json): Json | undefined {
  if (typeof message !== 'object' || message === null) return { code: 41, message: 'Invalid Arguments: a message must be an object' };
  if (message.target_type !== 2 && message.target_type !== 5) return { code: 41, message: 'Invalid Arguments: target_type' };
  if (typeof message.target_value !== 'string' || message.target_value === '') return { code: 40, message: 'Missing Required Arguments: target_value' };
  const notification = message.notification as Json | undefined;
  if (typeof notification !== 'object' || notification === null) return { code: 40, message: 'Missing Required Arguments: notification' };
  const { title, content } = notification;
  if (typeof title !== 'string' || title === '' || typeof content !== 'string' || content === '') return { code: 40, message: 'Missing Required Arguments: title, content' };
  const maxContent = notification.style === 2 ? 128 : 50;
  if ([...title].length > 50 || [...content].length > maxContent) return { code: 41, message: 'Invalid Arguments: title or content too long' };
  const parameters = notification.action_parameters;
  if (parameters !== undefined && (typeof parameters !== 'string' || parameters.length > 4000)) return { code: 41, message: 'Invalid Arguments: action_parameters' };
  if (notification.notify_level !== undefined && notification.category === undefined) return { code: 67, message: 'Category error/Private classify channel notify_level invalid' };
  return undefined;
}

function ok(answer: Json): { status: number; answer: Json } {
  return { status: 200, answer };
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
