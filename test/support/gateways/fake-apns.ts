import { randomUUID } from 'node:crypto';
import {
  constants,
  createSecureServer,
  type Http2SecureServer,
  type IncomingHttpHeaders,
  type ServerHttp2Session,
  type ServerHttp2Stream,
} from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { systemClock, type Clock } from '../../../src/core/clock.ts';
import { ApnsTokenCheck, type RegisteredApnsKey } from './apns-token-check.ts';
import { StreamCounter } from './stream-counter.ts';
import { DeliveryLog, type DeliveryTagger, type RecordMode } from './delivery-log.ts';

/** A scripted answer of the fake, or a stall (no answer at all). */
export type ApnsAnswer =
  | {
      status: number;
      /** APNs `reason`; required for non-200 answers. */
      reason?: string;
      /** The 410 `timestamp` (ms). */
      timestamp?: number;
      /** A `Retry-After` header value. */
      retryAfter?: number | string;
      /** Answer after this long instead of at once. */
      delayMs?: number;
    }
  | { stall: true };

/** One request the fake received, as it saw it. */
export interface ApnsRequestRecord {
  token: string;
  headers: Record<string, string>;
  payload: Buffer;
  receivedAt: number;
  /** Which session (connection) carried it, numbered from 1. */
  sessionId: number;
  apnsId: string;
  status: number | 'stalled';
  reason: string | undefined;
}

export interface FakeApnsOptions {
  /** Server certificate and key (PEM); clients must trust their CA. */
  cert: string;
  key: string;
  /** CAs whose client certificates are accepted (certificate auth). */
  clientCa?: string[];
  /** Which certificates the fake accepts: Apple's production or sandbox environment; default production. */
  environment?: 'production' | 'development';
  /** SETTINGS_MAX_CONCURRENT_STREAMS per session; default 1000 as APNs. */
  maxConcurrentStreams?: number;
  /** `count` keeps only counts per token (benchmarks); default full. */
  record?: RecordMode;
  /** Names the push of each payload, for counts of accepted ones per push and token (`log.deliveriesTagged`) and last answers (`log.lastAnswersTagged`). */
  tagger?: DeliveryTagger;
  /** Judges provider token age; default the system clock. */
  clock?: Clock;
  keys?: RegisteredApnsKey[];
  /** Answer to requests without a script; default 200. */
  defaultAnswer?: ApnsAnswer;
  port?: number;
}

/** Counters of what clients did to the fake. */
export interface FakeApnsStats {
  /** TLS connections accepted. */
  connections: number;
  /** HTTP/2 sessions opened. */
  sessions: number;
  openSessions: number;
  /** Streams open now, over all sessions. */
  streams: number;
  /** Most streams ever open at once on one session. */
  peakStreamsPerSession: number;
  /** Most streams ever open at once over all sessions. */
  peakStreams: number;
  /** Distinct provider tokens whose signature was verified. */
  tokenVerifications: number;
  /** GOAWAY frames sent, by `goaway()` or while `goawayEverySession` is on. */
  goaways: number;
}

const pushTypes = new Set(['alert', 'background', 'location', 'voip', 'complication', 'fileprovider', 'mdm', 'liveactivity', 'pushtotalk', 'widgets', 'controls']);
const topicSuffixes = ['', '.voip', '.complication', '.pushkit.fileprovider'];
const maxPayloadBytes = 4096;
const maxVoipPayloadBytes = 5120;
const tokenMaxAgeMs = 3_600_000;
const ok: ApnsAnswer = { status: 200 };
const answeredHeaders = { ':status': 200 };

interface SessionState {
  id: number;
  streams: number;
  lastStreamId: number;
  /** Streams above this id arrived after our GOAWAY and are refused. */
  goawayAfter: number;
  /** Streams received and not answered yet (body still coming, answer delayed, stalled). */
  unanswered: Set<ServerHttp2Stream>;
  certificate: { topic: string; environment: 'production' | 'development' } | 'untrusted' | undefined;
}

type Answer = Extract<ApnsAnswer, { status: number }>;
type Check = Answer | undefined;

/**
 * A local APNs over TLS HTTP/2 that checks what APNs checks: provider tokens
 * (signature once per distinct token, age on every request) or client
 * certificates (chain, environment, topic), method, path, device token,
 * headers and payload. Tests script answers per device token, stall
 * requests, send GOAWAY, and read back every request.
 */
export class FakeApns {
  readonly log: DeliveryLog<ApnsRequestRecord>;
  readonly #server: Http2SecureServer;
  readonly #options: FakeApnsOptions;
  readonly #clock: Clock;
  readonly #tokens = new ApnsTokenCheck();
  readonly #scripts = new Map<string, ApnsAnswer[]>();
  readonly #stalled = new Set<string>();
  readonly #sessions = new Map<ServerHttp2Session, SessionState>();
  readonly #heldStreams = new Set<ServerHttp2Stream>();
  #defaultAnswer: ApnsAnswer;
  #stats = { connections: 0, sessions: 0, goaways: 0 };
  readonly #streams = new StreamCounter();
  #port = 0;
  #goingAway = false;

  static async start(options: FakeApnsOptions): Promise<FakeApns> {
    const fake = new FakeApns(options);
    await fake.#listen(options.port ?? 0);
    return fake;
  }

  private constructor(options: FakeApnsOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#defaultAnswer = options.defaultAnswer ?? ok;
    this.log = new DeliveryLog(options.record ?? 'full');
    for (const key of options.keys ?? []) this.#tokens.register(key);
    this.#server = createSecureServer({
      cert: options.cert,
      key: options.key,
      ca: options.clientCa,
      requestCert: options.clientCa !== undefined,
      // Checked per request instead, to answer 403 BadCertificate as APNs does.
      rejectUnauthorized: false,
      settings: { maxConcurrentStreams: options.maxConcurrentStreams ?? 1000 },
    });
    this.#server.on('secureConnection', () => this.#stats.connections++);
    this.#server.on('session', (session) => this.#openSession(session));
    this.#server.on('stream', (stream, headers) => this.#onStream(stream, headers));
  }

  get port(): number {
    return this.#port;
  }

  /** `https://127.0.0.1:<port>`, the endpoint setting of a client. */
  get origin(): string {
    return `https://127.0.0.1:${this.#port}`;
  }

  get stats(): FakeApnsStats {
    return { ...this.#stats, ...this.#streams.counts(), openSessions: this.#sessions.size, tokenVerifications: this.#tokens.verifications };
  }

  registerKey(key: RegisteredApnsKey): void {
    this.#tokens.register(key);
  }

  /** Answers the next requests to `token` with `answers`, in order; then the default answer. */
  respondTo(token: string, answers: ApnsAnswer[]): void {
    this.#scripts.set(token, [...(this.#scripts.get(token) ?? []), ...answers]);
  }

  setDefaultAnswer(answer: ApnsAnswer): void {
    this.#defaultAnswer = answer;
  }

  /** Every request to `token` from now on gets no answer until `close()`. */
  stall(token: string): void {
    this.#stalled.add(token);
  }

  /**
   * Sends GOAWAY (NO_ERROR) on every session and closes each once its
   * streams are answered, as APNs does when it takes a connection down; later
   * streams are refused. The last stream id is the last one received, or with
   * `refuseInFlight` the one below the oldest unanswered stream: the streams
   * received but not yet answered are then refused (never acted on) and must
   * be sent again. `keepConnection` leaves the connections open after the
   * GOAWAY, as a misbehaving server might.
   */
  goaway(options: { refuseInFlight?: boolean; keepConnection?: boolean } = {}): void {
    for (const [session, state] of this.#sessions) {
      if (session.closed || session.destroyed) continue;
      let lastStreamId = state.lastStreamId;
      if (options.refuseInFlight === true) {
        for (const stream of state.unanswered) lastStreamId = Math.min(lastStreamId, (stream.id ?? 1) - 1);
      }
      this.#sendGoaway(session, state, lastStreamId);
      // Then the connection goes, once its remaining streams are answered.
      if (options.keepConnection !== true) session.close();
    }
  }

  /**
   * While on, the fake acts as an APNs node taken out of service for a
   * while: the open sessions get a GOAWAY now (their streams received so far
   * are still answered), and every session opened meanwhile gets a GOAWAY
   * with last stream id 0 as soon as it opens and is closed: its requests are
   * refused, never acted on, and must be sent again once this is turned off.
   */
  goawayEverySession(on: boolean): void {
    this.#goingAway = on;
    if (on) this.goaway();
  }

  deliveriesTo(token: string): ApnsRequestRecord[] {
    return this.log.deliveriesTo(token);
  }

  waitForDeliveries(count: number, timeoutMs?: number): Promise<void> {
    return this.log.waitForDeliveries(count, timeoutMs);
  }

  waitForRequests(count: number, timeoutMs?: number): Promise<void> {
    return this.log.waitForRequests(count, timeoutMs);
  }

  /** Forgets requests, scripts, stalls and counters; sessions stay open. */
  reset(): void {
    this.log.reset();
    this.#scripts.clear();
    this.#stalled.clear();
    this.#defaultAnswer = this.#options.defaultAnswer ?? ok;
    this.#stats = { connections: 0, sessions: 0, goaways: 0 };
    this.#streams.resetPeaks(this.#sessions.values());
    this.#goingAway = false;
  }

  /** Drops every connection and stops listening. */
  async close(): Promise<void> {
    for (const stream of this.#heldStreams) stream.close(constants.NGHTTP2_CANCEL);
    for (const session of this.#sessions.keys()) session.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #listen(port: number): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, '127.0.0.1', () => resolve());
    });
    this.#port = (this.#server.address() as AddressInfo).port;
  }

  #openSession(session: ServerHttp2Session): void {
    this.#stats.sessions++;
    const state: SessionState = {
      id: this.#stats.sessions,
      streams: 0,
      lastStreamId: 0,
      goawayAfter: Infinity,
      unanswered: new Set(),
      certificate: undefined,
    };
    const socket = session.socket as TLSSocket;
    const peer = socket.getPeerCertificate();
    if (peer !== null && Object.keys(peer).length > 0) {
      const commonName = String(peer.subject.CN ?? '');
      const topic = String(peer.subject.UID ?? '');
      // Apple's subjects name the environment: "Apple Development IOS Push Services: …" is sandbox only.
      const environment = commonName.startsWith('Apple Development') ? 'development' : 'production';
      state.certificate = socket.authorized ? { topic, environment } : 'untrusted';
    }
    this.#sessions.set(session, state);
    session.on('error', () => {});
    session.once('close', () => this.#sessions.delete(session));
    if (this.#goingAway) {
      this.#sendGoaway(session, state, 0);
      session.close();
    }
  }

  /** GOAWAY (NO_ERROR) naming `lastStreamId`; streams above it, received or still to come, are refused. */
  #sendGoaway(session: ServerHttp2Session, state: SessionState, lastStreamId: number): void {
    state.goawayAfter = lastStreamId;
    session.goaway(constants.NGHTTP2_NO_ERROR, lastStreamId);
    this.#stats.goaways++;
    for (const stream of state.unanswered) {
      if ((stream.id ?? 0) > lastStreamId) stream.close(constants.NGHTTP2_REFUSED_STREAM);
    }
  }

  #onStream(stream: ServerHttp2Stream, headers: IncomingHttpHeaders): void {
    stream.on('error', () => {});
    const state = this.#sessions.get(stream.session as ServerHttp2Session);
    const id = stream.id ?? 0;
    if (state === undefined || id > state.goawayAfter) {
      stream.close(constants.NGHTTP2_REFUSED_STREAM);
      return;
    }
    state.lastStreamId = Math.max(state.lastStreamId, id);
    state.unanswered.add(stream);
    stream.once('close', () => state.unanswered.delete(stream));
    this.#streams.track(state, stream);
    let body: Buffer | undefined;
    stream.on('data', (chunk: Buffer) => (body = body === undefined ? chunk : Buffer.concat([body, chunk])));
    stream.on('end', () => this.#handle(stream, headers, body ?? Buffer.alloc(0), state));
  }

  #handle(stream: ServerHttp2Stream, headers: IncomingHttpHeaders, payload: Buffer, state: SessionState): void {
    if (stream.destroyed || stream.closed) return;
    const path = String(headers[':path'] ?? '');
    const token = path.startsWith('/3/device/') ? path.slice('/3/device/'.length) : '';
    const requested = headers['apns-id'];
    const apnsId = typeof requested === 'string' && requested !== '' ? requested : randomUUID();
    const failure = this.#check(headers, path, token, payload, state);
    const answer = failure ?? this.#nextAnswer(token);
    if ('stall' in answer) {
      this.#note(token, headers, payload, state, apnsId, 'stalled', undefined);
      this.#heldStreams.add(stream);
      stream.once('close', () => this.#heldStreams.delete(stream));
      return;
    }
    // A request counts as received when it is answered: one refused by a GOAWAY before that was never acted on.
    const answerNow = (): void => {
      if (stream.destroyed || stream.closed) return;
      state.unanswered.delete(stream);
      this.#note(token, headers, payload, state, apnsId, answer.status, answer.reason);
      respond(stream, answer, apnsId);
    };
    if (answer.delayMs === undefined) answerNow();
    else setTimeout(answerNow, answer.delayMs);
  }

  #note(
    token: string,
    headers: IncomingHttpHeaders,
    payload: Buffer,
    state: SessionState,
    apnsId: string,
    status: number | 'stalled',
    reason: string | undefined,
  ): void {
    const record = this.log.mode === 'full' ? this.#record(token, headers, payload, state, apnsId, status, reason) : undefined;
    const accepted = status === 200;
    this.log.add(token, accepted, record, this.#options.tagger?.(payload), status);
  }

  #nextAnswer(token: string): ApnsAnswer {
    if (this.#stalled.has(token)) return { stall: true };
    const script = this.#scripts.get(token);
    const next = script?.shift();
    if (script !== undefined && script.length === 0) this.#scripts.delete(token);
    return next ?? this.#defaultAnswer;
  }

  /** APNs's checks, in roughly its order; undefined when the request is acceptable. */
  #check(headers: IncomingHttpHeaders, path: string, token: string, payload: Buffer, state: SessionState): Check {
    if (headers[':method'] !== 'POST') return { status: 405, reason: 'MethodNotAllowed' };
    if (!path.startsWith('/3/device/')) return { status: 404, reason: 'BadPath' };
    if (token === '') return { status: 400, reason: 'MissingDeviceToken' };
    if (!/^[0-9a-fA-F]{16,200}$/.test(token)) return { status: 400, reason: 'BadDeviceToken' };

    let topic = headers['apns-topic'];
    const certificate = state.certificate;
    if (certificate === 'untrusted') return { status: 403, reason: 'BadCertificate' };
    if (certificate !== undefined) {
      if (certificate.environment !== (this.#options.environment ?? 'production')) return { status: 403, reason: 'BadCertificateEnvironment' };
      topic ??= certificate.topic;
      if (!topicSuffixes.some((suffix) => topic === certificate.topic + suffix)) return { status: 400, reason: 'TopicDisallowed' };
    } else {
      const authorization = headers.authorization;
      if (authorization === undefined) return { status: 403, reason: 'MissingProviderToken' };
      const verdict = this.#tokens.check(authorization);
      if (!verdict.ok) return { status: 403, reason: verdict.reason };
      if (this.#clock.now() - verdict.issuedAtMs > tokenMaxAgeMs) return { status: 403, reason: 'ExpiredProviderToken' };
      if (topic === undefined || topic === '') return { status: 400, reason: 'MissingTopic' };
      const topics = verdict.key.topics;
      if (topics !== undefined && !topics.some((allowed) => topicSuffixes.some((suffix) => topic === allowed + suffix))) {
        return { status: 400, reason: 'TopicDisallowed' };
      }
    }

    const pushType = headers['apns-push-type'];
    if (pushType !== undefined && !pushTypes.has(pushType as string)) return { status: 400, reason: 'InvalidPushType' };
    const priority = headers['apns-priority'];
    if (priority !== undefined && priority !== '10' && priority !== '5' && priority !== '1') return { status: 400, reason: 'BadPriority' };
    const expiration = headers['apns-expiration'];
    if (expiration !== undefined && !/^\d+$/.test(expiration as string)) return { status: 400, reason: 'BadExpirationDate' };
    const collapseId = headers['apns-collapse-id'];
    if (collapseId !== undefined && Buffer.byteLength(collapseId as string) > 64) return { status: 400, reason: 'BadCollapseId' };
    const apnsId = headers['apns-id'];
    if (apnsId !== undefined && !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(apnsId as string)) {
      return { status: 400, reason: 'BadMessageId' };
    }

    if (payload.length === 0) return { status: 400, reason: 'PayloadEmpty' };
    if (payload.length > (pushType === 'voip' ? maxVoipPayloadBytes : maxPayloadBytes)) return { status: 413, reason: 'PayloadTooLarge' };
    // APNs documents no reason for a body that is not a JSON object; the fake
    // is stricter than needed so that a malformed payload shows up in tests.
    if (!isJsonObject(payload)) return { status: 400, reason: 'BadPayload' };
    return undefined;
  }

  #record(
    token: string,
    headers: IncomingHttpHeaders,
    payload: Buffer,
    state: SessionState,
    apnsId: string,
    status: number | 'stalled',
    reason: string | undefined,
  ): ApnsRequestRecord {
    const plain: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) if (value !== undefined) plain[name] = String(value);
    return { token, headers: plain, payload, receivedAt: this.#clock.now(), sessionId: state.id, apnsId, status, reason };
  }
}

function respond(stream: ServerHttp2Stream, answer: Answer, apnsId: string): void {
  if (stream.destroyed || stream.closed) return;
  if (answer.status === 200) {
    stream.respond({ ...answeredHeaders, 'apns-id': apnsId }, { endStream: true });
    return;
  }
  const headers: Record<string, string | number> = { ':status': answer.status, 'apns-id': apnsId, 'content-type': 'application/json' };
  if (answer.retryAfter !== undefined) headers['retry-after'] = answer.retryAfter;
  const body: { reason: string | undefined; timestamp?: number } = { reason: answer.reason };
  if (answer.timestamp !== undefined) body.timestamp = answer.timestamp;
  stream.respond(headers);
  stream.end(JSON.stringify(body));
}

function isJsonObject(payload: Buffer): boolean {
  try {
    const value: unknown = JSON.parse(payload.toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}
