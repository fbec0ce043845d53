import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { systemClock, type Clock } from '../../../src/core/clock.ts';
import { DeliveryLog, type DeliveryTagger, type RecordMode } from './delivery-log.ts';

/** An app the fake knows: its App ID and App Secret. */
export interface FakeMeizuApp {
  appId: string;
  appSecret: string;
}

/** A scripted answer to the next send requests, whatever they carry: a status with its body. */
export interface MeizuScriptedAnswer {
  status?: number;
  body: unknown;
  retryAfter?: number | string;
}

/** One `pushByPushId` request the fake received. */
export interface MeizuRequestRecord {
  appId: string;
  headers: Record<string, string>;
  /** The form exactly as sent. */
  body: Buffer;
  /** The decoded form. */
  params: Record<string, string>;
  /** The parsed `messageJson`, when it was JSON. */
  message: Record<string, any> | undefined; // eslint-disable-line @typescript-eslint/no-explicit-any
  pushIds: string[];
  status: number;
  /** The answer's `code`. */
  code: string;
  /** Which TLS connection carried it (keep-alive reuse shows as few). */
  connection: number;
}

/** One pushId of an accepted request, as the per-token log keeps it. */
export interface MeizuDeliveryRecord {
  token: string;
  status: number;
  request: MeizuRequestRecord;
}

export interface FakeMeizuOptions {
  cert: string;
  key: string;
  apps: FakeMeizuApp[];
  clock?: Clock;
  record?: RecordMode;
  tagger?: DeliveryTagger;
  /** Most pushIds a request may carry (1005 beyond); default 100 as Meizu's documentation. */
  maxPushIds?: number;
}

/** What the per-pushId map says of a pushId the fake was told about. */
type PushIdState = '110002' | '110003' | '110010' | '110011' | '518' | '520';

const sendPath = '/garcia/api/server/push/varnished/pushByPushId';

/**
 * A local Meizu Flyme Push over HTTPS/1.1 keep-alive with the test PKI's
 * certificate: `POST /garcia/api/server/push/varnished/pushByPushId`, a form
 * of `appId`, `pushIds`, `messageJson` and `sign`, which checks the
 * signature as Meizu does (MD5 of the sorted raw parameters and the App
 * Secret: 1006 otherwise), the app (110000), 1 to 100 pushIds and a
 * notification of title 1–32 and content 1–100 characters (1005), then
 * answers `{code: "200", value: {<code>: [pushIds]}, msgId}`, listing only
 * the pushIds it did not take (`mark`). The app's daily limit
 * (`dailyLimit`, 110019 past it) and scripted answers (`respondNext`: 110010
 * too fast, 1003 busy, HTTP errors, any code) stand for Meizu's limits. Every
 * request and every accepted pushId is recorded.
 */
export class FakeMeizu {
  /** Accepted pushIds (a device would see those), with the request that carried each. */
  readonly log: DeliveryLog<MeizuDeliveryRecord>;
  /** Every send request, in arrival order. */
  readonly requests: MeizuRequestRecord[] = [];
  readonly #server: Server;
  readonly #options: FakeMeizuOptions;
  readonly #clock: Clock;
  readonly #apps = new Map<string, FakeMeizuApp>();
  readonly #states = new Map<string, PushIdState>();
  readonly #script: MeizuScriptedAnswer[] = [];
  readonly #sockets = new Map<Socket, number>();
  readonly #sentToday = new Map<string, number>();
  #dailyLimit: number | undefined;
  #connections = 0;
  #port = 0;

  static async start(options: FakeMeizuOptions): Promise<FakeMeizu> {
    const fake = new FakeMeizu(options);
    await new Promise<void>((resolve, reject) => {
      fake.#server.once('error', reject);
      fake.#server.listen(0, '127.0.0.1', () => resolve());
    });
    fake.#port = (fake.#server.address() as AddressInfo).port;
    return fake;
  }

  private constructor(options: FakeMeizuOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.log = new DeliveryLog(options.record ?? 'full');
    for (const app of options.apps) this.#apps.set(app.appId, app);
    this.#server = createServer({ cert: options.cert, key: options.key, keepAlive: true }, (req, res) => this.#onRequest(req, res));
    this.#server.on('secureConnection', (socket: Socket) => {
      this.#sockets.set(socket, ++this.#connections);
      socket.once('close', () => this.#sockets.delete(socket));
    });
  }

  get origin(): string {
    return `https://127.0.0.1:${this.#port}`;
  }

  /** The send URL, as a profile's `endpoints.send`. */
  get sendUrl(): string {
    return `${this.origin}${sendPath}`;
  }

  /** TLS connections accepted so far. */
  get connections(): number {
    return this.#connections;
  }

  /**
   * What Meizu answers of `pushIds` from now on, in the map of a code-200
   * answer: 110002 not registered, 110003 illegal, 110010 notifications
   * switched off, 110011 the device's public messages spent, 518 over the
   * rate, 520 folded.
   */
  mark(state: PushIdState, ...pushIds: string[]): void {
    for (const pushId of pushIds) this.#states.set(pushId, state);
  }

  /** Forgets what `mark` said of `pushIds`: they are taken again. */
  unmark(...pushIds: string[]): void {
    for (const pushId of pushIds) this.#states.delete(pushId);
  }

  /** Each app may send to this many pushIds a day, then gets 110019; undefined lifts the limit. */
  set dailyLimit(limit: number | undefined) {
    this.#dailyLimit = limit;
    this.#sentToday.clear();
  }

  /** Answers the next send requests with `answers`, in order, once their signature checked. */
  respondNext(...answers: MeizuScriptedAnswer[]): void {
    this.#script.push(...answers);
  }

  /** Send requests that carried `pushId`. */
  requestsWith(pushId: string): MeizuRequestRecord[] {
    return this.requests.filter((request) => request.pushIds.includes(pushId));
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
      if (req.method !== 'POST') return json(res, 405, { code: '500', message: 'method not allowed', value: '', redirect: '' });
      if (req.url !== sendPath) return json(res, 404, { code: '500', message: 'not found', value: '', redirect: '' });
      this.#send(req, res, body);
    });
  }

  #send(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
    const params = Object.fromEntries(new URLSearchParams(body.toString('utf8')));
    let message: Record<string, any> | undefined; // eslint-disable-line @typescript-eslint/no-explicit-any
    try {
      const parsed: unknown = JSON.parse(params.messageJson ?? '');
      message = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
    } catch {
      message = undefined;
    }
    const pushIds = (params.pushIds ?? '').split(',').filter((pushId) => pushId !== '');
    const { status, answer, headers } = this.#verdict(req, params, message, pushIds);
    const code = typeof answer.code === 'string' || typeof answer.code === 'number' ? String(answer.code) : '';
    const record: MeizuRequestRecord = {
      appId: params.appId ?? '',
      headers: plainHeaders(req.headers),
      body,
      params,
      message,
      pushIds,
      status,
      code,
      connection: this.#sockets.get(req.socket) ?? 0,
    };
    this.requests.push(record);
    const listed = new Set(code === '200' && typeof answer.value === 'object' && answer.value !== null ? Object.values(answer.value as Record<string, string[]>).flat() : pushIds);
    for (const pushId of pushIds) {
      const accepted = code === '200' && !listed.has(pushId);
      this.log.add(pushId, accepted, this.log.mode === 'full' ? { token: pushId, status: accepted ? 200 : status, request: record } : undefined, accepted ? this.#options.tagger?.(body) : undefined);
    }
    json(res, status, answer, headers);
  }

  #verdict(
    req: IncomingMessage,
    params: Record<string, string>,
    message: Record<string, any> | undefined, // eslint-disable-line @typescript-eslint/no-explicit-any
    pushIds: string[],
  ): { status: number; answer: Record<string, unknown>; headers?: Record<string, string> } {
    const app = this.#apps.get(params.appId ?? '');
    if (app === undefined) return meizu('110000', 'appId不合法');
    if (params.sign === undefined || params.sign !== signatureOf(params, app.appSecret)) return meizu('1006', '签名认证失败');
    const scripted = this.#script.shift();
    if (scripted !== undefined) {
      const headers = scripted.retryAfter === undefined ? undefined : { 'retry-after': String(scripted.retryAfter) };
      return { status: scripted.status ?? 200, answer: (scripted.body ?? {}) as Record<string, unknown>, ...(headers === undefined ? {} : { headers }) };
    }
    if (pushIds.length === 0) return meizu('110004', '参数不能为空');
    if (pushIds.length > (this.#options.maxPushIds ?? 100)) return meizu('1005', '参数错误: pushIds一批最多不能超过100个');
    const bar = message?.noticeBarInfo as Record<string, unknown> | undefined;
    const title = typeof bar?.title === 'string' ? bar.title : '';
    const content = typeof bar?.content === 'string' ? bar.content : '';
    if (title.length < 1 || title.length > 32 || content.length < 1 || content.length > 100) return meizu('1005', '参数错误: title 1~32, content 1~100');
    const validTime = message?.pushTimeInfo?.validTime as unknown;
    if (validTime !== undefined && (typeof validTime !== 'number' || !Number.isInteger(validTime) || validTime < 1 || validTime > 72)) return meizu('1005', '参数错误: validTime');
    const day = new Date(this.#clock.now() + 8 * 3_600_000).toISOString().slice(0, 10);
    const key = `${app.appId} ${day}`;
    const sent = this.#sentToday.get(key) ?? 0;
    if (this.#dailyLimit !== undefined && sent + pushIds.length > this.#dailyLimit) return meizu('110019', '超过该应用每天推送次数限制');
    this.#sentToday.set(key, sent + pushIds.length);
    const value: Record<string, string[]> = {};
    for (const pushId of pushIds) {
      const state = this.#states.get(pushId);
      if (state !== undefined) (value[state] ??= []).push(pushId);
    }
    return { status: 200, answer: { code: '200', message: '', value, redirect: '', msgId: randomBytes(16).toString('hex') } };
  }
}

/** The signature Meizu expects, written apart from Herald's signer so that a mistake in one is not repeated in the other: the parameters but sign, by name as Java's TreeMap orders them, key=value with raw values, the secret, MD5 in lower-case hex. */
function signatureOf(params: Record<string, string>, secret: string): string {
  const entries = Object.entries(params).filter(([name]) => name !== 'sign');
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash('md5')
    .update(entries.map(([name, value]) => `${name}=${value}`).join('') + secret)
    .digest('hex');
}

function meizu(code: string, message: string): { status: number; answer: Record<string, unknown> } {
  return { status: 200, answer: { code, message, value: '', redirect: '' } };
}

function json(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers });
  res.end(typeof value === 'string' ? value : JSON.stringify(value));
}

function plainHeaders(headers: IncomingMessage['headers']): Record<string, string> {
  const plain: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) plain[name] = String(value);
  return plain;
}
