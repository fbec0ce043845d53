import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { systemClock, type Clock } from '../../../src/core/clock.ts';
import { DeliveryLog, type DeliveryTagger, type RecordMode } from './delivery-log.ts';

/** An app the fake knows: its AppSecret and package. */
export interface FakeXiaomiApp {
  appSecret: string;
  packageName: string;
}

/** Which of Xiaomi's services a request reached: mainland China (`api.xmpush.xiaomi.com`) or global. */
export type XiaomiRegion = 'china' | 'global';

/** A scripted answer to the next send requests, whatever they carry: a status with its body (JSON, or text as it is). */
export interface XiaomiScriptedAnswer {
  status: number;
  body: unknown;
  retryAfter?: number | string;
}

/** One `/v3/message/regid` request the fake received. */
export interface XiaomiRequestRecord {
  region: XiaomiRegion;
  headers: Record<string, string>;
  /** The body exactly as sent. */
  body: Buffer;
  /** The form fields, decoded. */
  form: Record<string, string>;
  regIds: string[];
  status: number;
  /** The answer's `code`, as digits. */
  code: string;
  /** Which TLS connection carried it (keep-alive reuse shows as few). */
  connection: number;
}

/** One regId of an accepted request, as the per-token log keeps it. */
export interface XiaomiDeliveryRecord {
  token: string;
  status: number;
  request: XiaomiRequestRecord;
}

export interface FakeXiaomiOptions {
  cert: string;
  key: string;
  apps: FakeXiaomiApp[];
  clock?: Clock;
  record?: RecordMode;
  tagger?: DeliveryTagger;
  /** Most regIds a request may carry; default 1000. */
  maxRegIds?: number;
}

/** Xiaomi's limit on a message's payload: 4 KB (65009). */
const maxPayloadBytes = 4096;

type Answer = { status: number; body: unknown; headers?: Record<string, string> };

/**
 * A local Xiaomi Mi Push over HTTPS/1.1 keep-alive with the test PKI's
 * certificate, on two origins as Xiaomi has two services (mainland China and
 * global), each serving `POST /v3/message/regid` (form-encoded). It checks
 * what Xiaomi checks: `Authorization: key=<AppSecret>` of a registered app
 * (21301 otherwise), `restricted_package_name` of that app (22022), 1 to
 * `maxRegIds` regIds (10017), `pass_through` 0 or 1, a notification's
 * `title` (fewer than 50 characters) and `description` (fewer than 128),
 * neither blank (10016 missing, 10017 too long), the payload's 4 KB (65009),
 * then answers per regId: `{result: "ok", code: 0, data: {id, bad_regids}}`
 * listing the regIds made invalid (`invalidate`), or 20301 when all are.
 * Knobs: the day's quota (10034 once spent), QPS throttling (10027), and
 * scripted answers (`respondNext`) for server errors and any code. Business
 * errors come with HTTP 200, as Xiaomi's server SDK reads them from the
 * body. Every request and every accepted regId is recorded.
 */
export class FakeXiaomi {
  /** Accepted regIds (a device would see those), with the request that carried each. */
  readonly log: DeliveryLog<XiaomiDeliveryRecord>;
  /** Every send request, in arrival order. */
  readonly requests: XiaomiRequestRecord[] = [];
  readonly #servers: Record<XiaomiRegion, Server>;
  readonly #ports: Record<XiaomiRegion, number> = { china: 0, global: 0 };
  readonly #options: FakeXiaomiOptions;
  readonly #clock: Clock;
  readonly #apps = new Map<string, FakeXiaomiApp>();
  readonly #invalid = new Set<string>();
  readonly #script: XiaomiScriptedAnswer[] = [];
  readonly #sockets = new Map<Socket, number>();
  /** Messages each app (by secret) may still send on a day (in China, UTC+8); no entry, or another day: no limit. */
  readonly #quota = new Map<string, { day: number; left: number }>();
  #throttled = 0;
  #connections = 0;

  static async start(options: FakeXiaomiOptions): Promise<FakeXiaomi> {
    const fake = new FakeXiaomi(options);
    for (const region of ['china', 'global'] as const) {
      const server = fake.#servers[region];
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve());
      });
      fake.#ports[region] = (server.address() as AddressInfo).port;
    }
    return fake;
  }

  private constructor(options: FakeXiaomiOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.log = new DeliveryLog(options.record ?? 'full');
    for (const app of options.apps) this.#apps.set(app.appSecret, app);
    const serve = (region: XiaomiRegion): Server => {
      const server = createServer({ cert: options.cert, key: options.key, keepAlive: true }, (req, res) => this.#onRequest(region, req, res));
      server.on('secureConnection', (socket: Socket) => {
        this.#sockets.set(socket, ++this.#connections);
        socket.once('close', () => this.#sockets.delete(socket));
      });
      return server;
    };
    this.#servers = { china: serve('china'), global: serve('global') };
  }

  /** The China service's send URL, as a block's `endpoints.send`. */
  get sendUrl(): string {
    return `https://127.0.0.1:${this.#ports.china}/v3/message/regid`;
  }

  /** The global service's send URL, as a block's `endpoints.sendGlobal`. */
  get globalSendUrl(): string {
    return `https://127.0.0.1:${this.#ports.global}/v3/message/regid`;
  }

  /** TLS connections accepted so far, both services together. */
  get connections(): number {
    return this.#connections;
  }

  /** Makes `regIds` invalid: Xiaomi lists them in `bad_regids` from now on. */
  invalidate(...regIds: string[]): void {
    for (const regId of regIds) this.#invalid.add(regId);
  }

  /** Answers the next send requests with `answers`, in order, whatever they carry. */
  respondNext(...answers: XiaomiScriptedAnswer[]): void {
    this.#script.push(...answers);
  }

  /** The app of `appSecret` may send `messages` more today (one a regId; the day ends at midnight in China); beyond, requests answer 10034. */
  limitDailyQuota(appSecret: string, messages: number): void {
    this.#quota.set(appSecret, { day: this.#today(), left: messages });
  }

  /** The next `requests` send requests of a known app answer 10027 (the app calls the API too often). */
  throttleNext(requests: number): void {
    this.#throttled += requests;
  }

  /** Send requests that carried `regId`. */
  requestsWith(regId: string): XiaomiRequestRecord[] {
    return this.requests.filter((request) => request.regIds.includes(regId));
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets.keys()) socket.destroy();
    await Promise.all(Object.values(this.#servers).map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  }

  #today(): number {
    return Math.floor((this.#clock.now() + chinaOffsetMs) / dayMs);
  }

  #onRequest(region: XiaomiRegion, req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.method !== 'POST') return reply(res, { status: 405, body: error(10012, 'method not allowed') });
      if (req.url !== '/v3/message/regid') return reply(res, { status: 404, body: error(10012, 'not found') });
      this.#send(region, req, res, body);
    });
  }

  #send(region: XiaomiRegion, req: IncomingMessage, res: ServerResponse, body: Buffer): void {
    const form = Object.fromEntries(new URLSearchParams(body.toString('utf8')));
    const regIds = (form.registration_id ?? '').split(',').filter((regId) => regId !== '');
    const answer = this.#answer(req, form, regIds);
    const parsed = answer.body as { code?: unknown; data?: { bad_regids?: unknown } } | undefined;
    const code = typeof parsed?.code === 'number' || typeof parsed?.code === 'string' ? String(parsed.code) : '';
    const record: XiaomiRequestRecord = {
      region,
      headers: plainHeaders(req.headers),
      body,
      form,
      regIds,
      status: answer.status,
      code,
      connection: this.#sockets.get(req.socket) ?? 0,
    };
    this.requests.push(record);
    const bad = new Set(typeof parsed?.data?.bad_regids === 'string' ? parsed.data.bad_regids.split(',') : []);
    for (const regId of regIds) {
      const accepted = answer.status === 200 && code === '0' && !bad.has(regId);
      const entry = this.log.mode === 'full' ? { token: regId, status: accepted ? 200 : answer.status === 200 ? 400 : answer.status, request: record } : undefined;
      this.log.add(regId, accepted, entry, accepted ? this.#options.tagger?.(body) : undefined);
    }
    reply(res, answer);
  }

  #answer(req: IncomingMessage, form: Record<string, string>, regIds: string[]): Answer {
    const authorization = /^key=(.+)$/.exec(req.headers.authorization ?? '');
    const app = authorization === null ? undefined : this.#apps.get(authorization[1] ?? '');
    if (app === undefined) return { status: 200, body: error(21301, 'Authentication failed', '认证失败') };
    const scripted = this.#script.shift();
    if (scripted !== undefined) {
      const headers = scripted.retryAfter === undefined ? undefined : { 'retry-after': String(scripted.retryAfter) };
      return { status: scripted.status, body: scripted.body, ...(headers === undefined ? {} : { headers }) };
    }
    if (this.#throttled > 0) {
      this.#throttled -= 1;
      return { status: 200, body: error(10027, 'The app calls the API too frequently', '应用的API调用太频繁') };
    }
    if (form.restricted_package_name !== app.packageName) return { status: 200, body: error(22022, 'Invalid package name', '应用程序package name不合法') };
    if (regIds.length === 0) return { status: 200, body: error(10016, 'registration_id is missing', '缺失必选参数') };
    if (regIds.length > (this.#options.maxRegIds ?? 1000)) return { status: 200, body: error(10017, 'Too many registration ids', '参数值非法') };
    const passThrough = form.pass_through ?? '0';
    if (passThrough !== '0' && passThrough !== '1') return { status: 200, body: error(10017, 'pass_through must be 0 or 1', '参数值非法') };
    if (passThrough === '0') {
      const { title, description } = form;
      if (title === undefined || description === undefined || title.trim() === '' || description.trim() === '') {
        return { status: 200, body: error(10016, 'A notification needs a title and a description', '缺失必选参数') };
      }
      if ([...title].length >= 50 || [...description].length >= 128) return { status: 200, body: error(10017, 'The title or description is too long', '参数值非法') };
    }
    if (Buffer.byteLength(form.payload ?? '') > maxPayloadBytes) return { status: 200, body: error(65009, 'The message is too long', '消息内容太长') };
    const quota = this.#quota.get(app.appSecret);
    const left = quota?.day === this.#today() ? quota.left : undefined;
    if (left !== undefined && left < regIds.length) return { status: 200, body: error(10034, 'Too many messages sent today', '应用当日发送消息数量过多') };
    const bad = regIds.filter((regId) => this.#invalid.has(regId));
    if (bad.length === regIds.length) return { status: 200, body: error(20301, 'No valid targets!', '发送消息失败') };
    if (left !== undefined) this.#quota.set(app.appSecret, { day: this.#today(), left: left - (regIds.length - bad.length) });
    const data: Record<string, string> = { id: `scm${randomBytes(10).toString('hex')}` };
    if (bad.length > 0) data.bad_regids = bad.join(',');
    return {
      status: 200,
      body: { result: 'ok', trace_id: `Xcm${randomBytes(10).toString('hex')}`, code: 0, data, description: '成功', info: `Received push messages for ${regIds.length} REGID` },
    };
  }
}

/** Xiaomi's days start at midnight in China (UTC+8). */
const chinaOffsetMs = 8 * 3600 * 1000;
const dayMs = 24 * 3600 * 1000;

function error(code: number, reason: string, description = reason): Record<string, unknown> {
  return { result: 'error', code, reason, description, trace_id: `Xcm${randomBytes(10).toString('hex')}` };
}

function reply(res: ServerResponse, answer: Answer): void {
  const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body ?? {});
  res.writeHead(answer.status, { 'content-type': 'application/json;charset=UTF-8', ...answer.headers });
  res.end(text);
}

function plainHeaders(headers: IncomingMessage['headers']): Record<string, string> {
  const plain: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) plain[name] = String(value);
  return plain;
}
