import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { systemClock, type Clock } from '../../../src/core/clock.ts';
import { DeliveryLog, type DeliveryTagger, type RecordMode } from './delivery-log.ts';

/** An app the fake knows: its App ID, AppKey and AppSecret. */
export interface FakeVivoApp {
  appId: string;
  appKey: string;
  appSecret: string;
}

/** A scripted answer to the next send requests (any of the three), whatever they carry: a status with its body. */
export interface VivoScriptedAnswer {
  status: number;
  body: unknown;
  retryAfter?: number | string;
}

/** Which endpoint a request went to. */
export type VivoEndpoint = 'send' | 'saveList' | 'sendList';

// Bodies are untyped JSON on the wire; tests read the fields they expect.
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** One request to a send endpoint the fake received. */
export interface VivoRequestRecord {
  endpoint: VivoEndpoint;
  appId: string | undefined;
  headers: Record<string, string>;
  /** The parsed body, when it was JSON. */
  body: Json | undefined;
  /** The regIds it named (`regId` or `regIds`). */
  tokens: string[];
  status: number;
  result: number;
  /** Which TLS connection carried it (keep-alive reuse shows as few). */
  connection: number;
}

/** One regId of an accepted send, as the per-token log keeps it. */
export interface VivoDeliveryRecord {
  token: string;
  status: number;
  /** The message it got: the single send's body, or the saved message of a list send. */
  message: Json;
  request: VivoRequestRecord;
}

export interface FakeVivoOptions {
  cert: string;
  key: string;
  apps: FakeVivoApp[];
  clock?: Clock;
  record?: RecordMode;
  tagger?: DeliveryTagger;
  /** Messages per app and day before 10070; default unlimited. */
  dailyLimit?: number;
  /** Saved list messages per app and day before 10252; default unlimited. */
  dailySaveLimit?: number;
}

interface IssuedToken {
  appId: string;
  expiresAt: number;
}

interface SavedMessage {
  appId: string;
  message: Json;
}

const dayMs = 24 * 3_600_000;
/** vivo takes timestamps within ten minutes of its clock. */
const timestampWindowMs = 10 * 60_000;
/** vivo's regIds are 23 characters. */
const regIdPattern = /^[0-9A-Za-z_-]{23}$/;
/** vivo's second-level classes and the classification each belongs to (1 system, 0 operational). */
const categories: Readonly<Record<string, number>> = {
  IM: 1,
  ACCOUNT: 1,
  TODO: 1,
  DEVICE_REMINDER: 1,
  ORDER: 1,
  MATCH: 1,
  LOCATION: 1,
  SUBSCRIPTION: 1,
  NEWS: 0,
  CONTENT: 0,
  MARKETING: 0,
  SOCIAL: 0,
};

/**
 * A local vivo Push over HTTPS/1.1 keep-alive with the test PKI's
 * certificate: `POST /message/auth` (JSON `appId`, `appKey`, `timestamp`,
 * `sign`; checks the sign as vivo does, MD5 of appId + appKey + timestamp +
 * appSecret, and the timestamp within ten minutes: 10200-10207 otherwise);
 * `POST /message/send` for one regId; `POST /message/saveListPayload`, which
 * keeps a message and answers its taskId; and `POST /message/pushToList`
 * for 2 to 1000 regIds of a saved message. Each send checks the `authToken`
 * header (10000 missing, unknown or expired after a day), the body's appId
 * against the token's (10094), a requestId (10352, 10353), the message's
 * fields (notifyType 10054, title 10055/10056, content 10057/10058,
 * timeToLive 10059, skipType 10060, clientCustomMap 10067, category 10096
 * and its classification 10097), a regId of 23 characters (10302), the list's
 * size (10153) and taskId (10152), and the daily limits (10070; 10252 for
 * saves). A regId marked with `invalidate` is answered in `invalidUser(s)`
 * with its status. A requestId seen before is answered as before and
 * delivers nothing again. Scripted answers (`respondNext`) stand for rate
 * limits, server errors and any code. Every request and every accepted
 * regId is recorded.
 */
export class FakeVivo {
  /** Accepted regIds (a device would see those), with the request that carried each. */
  readonly log: DeliveryLog<VivoDeliveryRecord>;
  /** Every request to a send endpoint, in arrival order. */
  readonly requests: VivoRequestRecord[] = [];
  readonly #server: Server;
  readonly #options: FakeVivoOptions;
  readonly #clock: Clock;
  readonly #apps = new Map<string, FakeVivoApp>();
  readonly #issued = new Map<string, IssuedToken>();
  readonly #invalid = new Map<string, number>();
  readonly #saved = new Map<string, SavedMessage>();
  readonly #answered = new Map<string, Json>();
  readonly #script: VivoScriptedAnswer[] = [];
  readonly #today = new Map<string, { day: number; sent: number; saved: number }>();
  readonly #sockets = new Map<Socket, number>();
  #connections = 0;
  #tokenRequests = 0;
  #port = 0;

  static async start(options: FakeVivoOptions): Promise<FakeVivo> {
    const fake = new FakeVivo(options);
    await new Promise<void>((resolve, reject) => {
      fake.#server.once('error', reject);
      fake.#server.listen(0, '127.0.0.1', () => resolve());
    });
    fake.#port = (fake.#server.address() as AddressInfo).port;
    return fake;
  }

  private constructor(options: FakeVivoOptions) {
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

  /** The auth endpoint, as a profile's `endpoints.auth`. */
  get authUrl(): string {
    return `${this.origin}/message/auth`;
  }

  /** The single send, as `endpoints.send`. */
  get sendUrl(): string {
    return `${this.origin}/message/send`;
  }

  /** The list message save, as `endpoints.saveList`. */
  get saveListUrl(): string {
    return `${this.origin}/message/saveListPayload`;
  }

  /** The list send, as `endpoints.sendList`. */
  get sendListUrl(): string {
    return `${this.origin}/message/pushToList`;
  }

  /** authTokens issued so far. */
  get tokenRequests(): number {
    return this.#tokenRequests;
  }

  /** TLS connections accepted so far. */
  get connections(): number {
    return this.#connections;
  }

  /** Makes `tokens` invalid users of `status` (1 no such regId, 2 uninstalled, 3 ninety days offline, 4 not a test device) from now on. */
  invalidate(status: 1 | 2 | 3 | 4, ...tokens: string[]): void {
    for (const token of tokens) this.#invalid.set(token, status);
  }

  /** Answers the next send requests with `answers`, in order, whatever they carry (after the authToken is checked). */
  respondNext(...answers: VivoScriptedAnswer[]): void {
    this.#script.push(...answers);
  }

  /** Every authToken issued so far answers 10000 from now on. */
  expireAccessTokens(): void {
    for (const token of this.#issued.values()) token.expiresAt = 0;
  }

  /** Forgets every saved message: pushToList answers 10152 for their taskIds. */
  forgetSavedMessages(): void {
    this.#saved.clear();
  }

  /** Send requests that named `token`. */
  requestsWith(token: string): VivoRequestRecord[] {
    return this.requests.filter((request) => request.tokens.includes(token));
  }

  /** Requests to `endpoint`. */
  requestsTo(endpoint: VivoEndpoint): VivoRequestRecord[] {
    return this.requests.filter((request) => request.endpoint === endpoint);
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets.keys()) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #onRequest(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let body: Json | undefined;
      try {
        const parsed: unknown = JSON.parse(raw.toString('utf8'));
        body = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed : undefined;
      } catch {
        body = undefined;
      }
      if (req.method !== 'POST') return json(res, 405, {});
      const endpoint = ({ '/message/send': 'send', '/message/saveListPayload': 'saveList', '/message/pushToList': 'sendList' } as const)[req.url ?? ''];
      if (req.url === '/message/auth') return json(res, 200, this.#auth(body));
      if (endpoint === undefined) return json(res, 404, {});
      this.#send(req, res, endpoint, body, raw);
    });
  }

  #auth(body: Json | undefined): Json {
    if (body?.appId === undefined || body.appId === '') return { result: 10200, desc: 'appId不能为空' };
    if (typeof body.appKey !== 'string' || body.appKey === '') return { result: 10201, desc: 'appKey不能为空' };
    const app = this.#apps.get(String(body.appId));
    if (app === undefined) return { result: 10205, desc: 'appId不存在' };
    if (body.appKey !== app.appKey) return { result: 10202, desc: 'appKey不合法' };
    if (body.timestamp === undefined) return { result: 10203, desc: 'timestamp不能为空' };
    if (typeof body.sign !== 'string' || body.sign === '') return { result: 10204, desc: 'sign不能为空' };
    const timestamp = Number(body.timestamp);
    if (!Number.isSafeInteger(timestamp) || Math.abs(timestamp - this.#clock.now()) > timestampWindowMs) return { result: 10207, desc: 'timestamp不合法' };
    const expected = createHash('md5').update(`${app.appId}${app.appKey}${String(body.timestamp)}${app.appSecret}`).digest('hex');
    if (body.sign !== expected) return { result: 10206, desc: 'sign不正确' };
    this.#tokenRequests += 1;
    const token = randomBytes(20).toString('hex');
    this.#issued.set(token, { appId: app.appId, expiresAt: this.#clock.now() + dayMs });
    return { result: 0, desc: '请求成功', authToken: token };
  }

  #send(req: IncomingMessage, res: ServerResponse, endpoint: VivoEndpoint, body: Json | undefined, raw: Buffer): void {
    const issued = this.#issued.get(typeof req.headers.authtoken === 'string' ? req.headers.authtoken : '');
    const tokens = endpoint === 'send' ? (typeof body?.regId === 'string' ? [body.regId] : []) : endpoint === 'sendList' && Array.isArray(body?.regIds) ? (body.regIds as unknown[]).map(String) : [];
    const { status, answer, headers, delivered, message } = this.#verdict(endpoint, issued, body, tokens);
    const record: VivoRequestRecord = {
      endpoint,
      appId: issued?.appId,
      headers: plainHeaders(req.headers),
      body,
      tokens,
      status,
      result: typeof answer.result === 'number' ? answer.result : Number.NaN,
      connection: this.#sockets.get(req.socket) ?? 0,
    };
    this.requests.push(record);
    for (const token of tokens) {
      const ok = delivered.has(token);
      this.log.add(token, ok, this.log.mode === 'full' ? { token, status: ok ? 200 : status, message: message ?? {}, request: record } : undefined, ok ? this.#options.tagger?.(raw) : undefined);
    }
    json(res, status, answer, headers);
  }

  #verdict(
    endpoint: VivoEndpoint,
    issued: IssuedToken | undefined,
    body: Json | undefined,
    tokens: string[],
  ): { status: number; answer: Json; headers?: Record<string, string>; delivered: Set<string>; message?: Json } {
    const none = new Set<string>();
    const refuse = (result: number, desc: string) => ({ status: 200, answer: { result, desc }, delivered: none });
    if (issued === undefined || issued.expiresAt <= this.#clock.now()) return refuse(10000, '权限认证失败');
    const scripted = this.#script.shift();
    if (scripted !== undefined) {
      const headers = scripted.retryAfter === undefined ? undefined : { 'retry-after': String(scripted.retryAfter) };
      return { status: scripted.status, answer: scripted.body ?? {}, delivered: none, ...(headers === undefined ? {} : { headers }) };
    }
    if (body === undefined) return refuse(10050, '请求体不合法');
    if (String(body.appId) !== issued.appId) return refuse(10094, '鉴权码与appId不一致');
    if (typeof body.requestId !== 'string' || body.requestId === '') return refuse(10352, 'requestId不能为空');
    if (body.requestId.length > 64) return refuse(10353, 'requestId超过64个字符');
    const seen = this.#answered.get(`${issued.appId}/${endpoint}/${body.requestId}`);
    if (seen !== undefined) return { status: 200, answer: seen, delivered: none };
    const answered = this.#answer(endpoint, issued.appId, body, tokens);
    if (answered.answer.result === 0) this.#answered.set(`${issued.appId}/${endpoint}/${body.requestId}`, answered.answer);
    return { status: 200, ...answered };
  }

  #answer(endpoint: VivoEndpoint, appId: string, body: Json, tokens: string[]): { answer: Json; delivered: Set<string>; message?: Json } {
    const none = new Set<string>();
    const refuse = (result: number, desc: string) => ({ answer: { result, desc }, delivered: none });
    if (endpoint === 'sendList') {
      const saved = typeof body.taskId === 'string' ? this.#saved.get(body.taskId) : undefined;
      if (typeof body.taskId !== 'string' || body.taskId === '') return refuse(10151, 'taskId不能为空');
      if (saved === undefined || saved.appId !== appId) return refuse(10152, 'taskId不合法');
      if (!Array.isArray(body.regIds) || body.regIds.length === 0) return refuse(10150, 'regIds不能为空');
      if (tokens.length < 2 || tokens.length > 1000) return refuse(10153, 'regIds 个数不在指定范围[2-1000]');
      if (!this.#withinLimit(appId, 'sent', tokens.length, this.#options.dailyLimit)) return refuse(10070, '发送总量超出限制');
      const invalidUsers = tokens.flatMap((userid) => {
        const status = this.#invalid.get(userid) ?? (regIdPattern.test(userid) ? undefined : 1);
        return status === undefined ? [] : [{ status, userid }];
      });
      const delivered = new Set(tokens.filter((token) => !invalidUsers.some((user) => user.userid === token)));
      const answer: Json = { result: 0, desc: '请求成功', taskId: body.taskId };
      if (invalidUsers.length > 0) answer.invalidUsers = invalidUsers;
      return { answer, delivered, message: saved.message };
    }
    const problem = messageProblem(body, endpoint === 'send' ? 60 : 900);
    if (problem !== undefined) return { answer: problem, delivered: none };
    if (endpoint === 'saveList') {
      if (!this.#withinLimit(appId, 'saved', 1, this.#options.dailySaveLimit)) return refuse(10252, '批量发送消息体超出限制');
      const taskId = String(BigInt(`0x${randomBytes(7).toString('hex')}`));
      this.#saved.set(taskId, { appId, message: body });
      return { answer: { result: 0, desc: '请求成功', taskId }, delivered: none };
    }
    const regId = tokens[0];
    if (regId === undefined || !regIdPattern.test(regId)) return refuse(10302, 'regId不合法');
    if (!this.#withinLimit(appId, 'sent', 1, this.#options.dailyLimit)) return refuse(10070, '发送总量超出限制');
    const taskId = String(BigInt(`0x${randomBytes(7).toString('hex')}`));
    const status = this.#invalid.get(regId);
    if (status !== undefined) return { answer: { result: 0, desc: '请求成功', taskId, invalidUser: { status, userid: regId } }, delivered: none, message: body };
    return { answer: { result: 0, desc: '请求成功', taskId }, delivered: new Set([regId]), message: body };
  }

  #withinLimit(appId: string, kind: 'sent' | 'saved', count: number, limit: number | undefined): boolean {
    if (limit === undefined) return true;
    // vivo's days start at midnight in China.
    const day = Math.floor((this.#clock.now() + 8 * 3_600_000) / dayMs);
    let today = this.#today.get(appId);
    if (today?.day !== day) this.#today.set(appId, (today = { day, sent: 0, saved: 0 }));
    if (today[kind] + count > limit) return false;
    today[kind] += count;
    return true;
  }
}

/** What vivo refuses in a message (`/message/send`, `/message/saveListPayload`), as its answer; undefined when it is fine. */
function messageProblem(body: Json, minTtl: number): Json | undefined {
  if (![1, 2, 3, 4].includes(body.notifyType as number)) return { result: 10054, desc: 'notifyType不合法' };
  if (typeof body.title !== 'string' || body.title === '') return { result: 10055, desc: 'title不能为空' };
  if (width(body.title) > 40) return { result: 10056, desc: 'title超过40个字符' };
  if (typeof body.content !== 'string' || body.content === '') return { result: 10057, desc: 'content不能为空' };
  if (width(body.content) > 100) return { result: 10058, desc: 'content超过100个字符' };
  const ttl = body.timeToLive as unknown;
  if (ttl !== undefined && (typeof ttl !== 'number' || ttl < minTtl || ttl > 7 * 24 * 3600)) return { result: 10059, desc: 'timeToLive不合法' };
  if (![1, 2, 3, 4].includes(body.skipType as number)) return { result: 10060, desc: 'skipType不合法' };
  const custom = body.clientCustomMap as unknown;
  if (custom !== undefined) {
    const entries = typeof custom === 'object' && custom !== null ? Object.entries(custom) : [];
    const length = entries.reduce((sum, [key, value]) => sum + key.length + (typeof value === 'string' ? value.length : 0), 0);
    if (entries.length === 0 || entries.length > 10 || length > 1024 || entries.some(([, value]) => typeof value !== 'string')) return { result: 10067, desc: '自定义key和Value不合法' };
  }
  if (body.category !== undefined) {
    const classification = categories[body.category as string];
    if (classification === undefined) return { result: 10096, desc: 'category不合法' };
    if (body.classification !== undefined && body.classification !== classification) return { result: 10097, desc: 'category与classification不对应' };
  }
  return undefined;
}

/** vivo's count: a CJK character two, any other one. */
function width(text: string): number {
  let count = 0;
  for (const character of text) count += /[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]/u.test(character) ? 2 : 1;
  return count;
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
