import { randomBytes, verify, type KeyObject } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { constants, createSecureServer, type Http2SecureServer, type Http2ServerRequest, type Http2ServerResponse, type ServerHttp2Session } from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import { systemClock, type Clock } from '../../../src/core/clock.ts';
import { DeliveryLog, type DeliveryTagger, type RecordMode } from './delivery-log.ts';
import { StreamCounter, type StreamCounts } from './stream-counter.ts';

const fcmScope = 'https://www.googleapis.com/auth/firebase.messaging';
const jwtBearerGrant = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const fcmErrorType = 'type.googleapis.com/google.firebase.fcm.v1.FcmError';
const badRequestType = 'type.googleapis.com/google.rpc.BadRequest';

/** FCM's error codes with the HTTP status and canonical status they come with. */
const errorCodes: Record<string, { code: number; status: string; message: string }> = {
  UNREGISTERED: { code: 404, status: 'NOT_FOUND', message: 'Requested entity was not found.' },
  INVALID_ARGUMENT: { code: 400, status: 'INVALID_ARGUMENT', message: 'The registration token is not a valid FCM registration token' },
  SENDER_ID_MISMATCH: { code: 403, status: 'PERMISSION_DENIED', message: 'SenderId mismatch' },
  QUOTA_EXCEEDED: { code: 429, status: 'RESOURCE_EXHAUSTED', message: 'Quota exceeded for quota metric' },
  UNAVAILABLE: { code: 503, status: 'UNAVAILABLE', message: 'The service is currently unavailable.' },
  INTERNAL: { code: 500, status: 'INTERNAL', message: 'Internal error encountered.' },
  THIRD_PARTY_AUTH_ERROR: { code: 401, status: 'UNAUTHENTICATED', message: 'Auth error from APNS or Web Push Service' },
};

/** A scripted answer for a registration token: an FCM error by its errorCode, or a stall. */
export type FcmAnswer =
  | { status: 200; delayMs?: number }
  | { errorCode: keyof typeof errorCodes | (string & {}); retryAfter?: number | string; delayMs?: number }
  | { stall: true };

/**
 * How the token endpoint answers: as Google does, or as a broken or hostile
 * one would: a valid answer one byte at a time, a body that never ends, an
 * error status with a body, or nothing at all.
 */
export type TokenEndpointBehaviour =
  | { kind: 'normal' }
  | { kind: 'trickle'; intervalMs: number }
  | { kind: 'stream' }
  | { kind: 'error'; status: number; body: string }
  | { kind: 'hang' };

/** What the token endpoint did, whatever its behaviour. */
export interface TokenEndpointStats {
  /** Requests received. */
  requests: number;
  /** Body bytes written to answers. */
  bytesSent: number;
  /** Answers still open (not ended, not closed by the client). */
  open: number;
}

/** One `messages:send` request the fake received. */
export interface FcmRequestRecord {
  token: string;
  headers: Record<string, string>;
  /** The body exactly as sent. */
  body: Buffer;
  /** The parsed `message`, when the body was valid. */
  message: Record<string, unknown> | undefined;
  receivedAt: number;
  sessionId: number;
  status: number | 'stalled';
  errorCode: string | undefined;
}

/** The service account the fake's token endpoint accepts assertions from. */
export interface FakeServiceAccount {
  clientEmail: string;
  publicKey: KeyObject;
  projectId: string;
}

export interface FakeFcmOptions {
  cert: string;
  key: string;
  accounts: FakeServiceAccount[];
  /** `expires_in` of issued access tokens; default 3599 s as Google. */
  accessTokenTtlSeconds?: number;
  clock?: Clock;
  record?: RecordMode;
  /** Names the push of each send body, for counts of accepted ones per push and token (`log.deliveriesTagged`) and last answers (`log.lastAnswersTagged`). */
  tagger?: DeliveryTagger;
  port?: number;
  /**
   * SETTINGS_MAX_CONCURRENT_STREAMS of every HTTP/2 session; default 100, what
   * FCM's front ends allow per connection (a client that opens more is sent
   * a GOAWAY there).
   */
  maxConcurrentStreams?: number;
}

interface SessionState {
  id: number;
  /** Streams open on the session now. */
  streams: number;
  lastStreamId: number;
  /** Streams above this id arrived after our GOAWAY and are refused. */
  goawayAfter: number;
}

interface IssuedToken {
  projectId: string;
  expiresAt: number;
}

type Request = Http2ServerRequest | IncomingMessage;
type Response = Http2ServerResponse | ServerResponse;

/**
 * A local FCM HTTP v1 with its own OAuth2 token endpoint (`/token`, also
 * over HTTP/1.1): assertions are checked as Google does (RS256 signature of a
 * registered service account, iss, aud, scope, exp) and answered with random
 * bearer tokens; `messages:send` requires a live token for the right project
 * and a well-formed message, answers errors in FCM's format, and records
 * every request.
 */
export class FakeFcm {
  readonly log: DeliveryLog<FcmRequestRecord>;
  readonly #server: Http2SecureServer;
  readonly #options: FakeFcmOptions;
  readonly #clock: Clock;
  readonly #accounts = new Map<string, FakeServiceAccount>();
  readonly #issued = new Map<string, IssuedToken>();
  readonly #scripts = new Map<string, FcmAnswer[]>();
  readonly #sessions = new Map<ServerHttp2Session, SessionState>();
  readonly #sockets = new Set<Socket>();
  #tokenRequests = 0;
  #tokenBehaviour: TokenEndpointBehaviour = { kind: 'normal' };
  readonly #tokenStats: TokenEndpointStats = { requests: 0, bytesSent: 0, open: 0 };
  #tokenWaiters: { count: number; resolve: () => void }[] = [];
  #sessionCount = 0;
  #goaways = 0;
  #goingAway = false;
  #defaultAnswer: FcmAnswer = { status: 200 };
  #port = 0;
  readonly #streams = new StreamCounter();

  static async start(options: FakeFcmOptions): Promise<FakeFcm> {
    const fake = new FakeFcm(options);
    await new Promise<void>((resolve, reject) => {
      fake.#server.once('error', reject);
      fake.#server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
    });
    fake.#port = (fake.#server.address() as AddressInfo).port;
    return fake;
  }

  private constructor(options: FakeFcmOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.log = new DeliveryLog(options.record ?? 'full');
    for (const account of options.accounts) this.#accounts.set(account.clientEmail, account);
    this.#server = createSecureServer({
      cert: options.cert,
      key: options.key,
      allowHTTP1: true,
      settings: { maxConcurrentStreams: options.maxConcurrentStreams ?? 100 },
    });
    this.#server.on('session', (session) => this.#openSession(session));
    this.#server.on('request', (req: Request, res: Response) => this.#onRequest(req, res));
    this.#server.on('connection', (socket: Socket) => {
      this.#sockets.add(socket);
      socket.once('close', () => this.#sockets.delete(socket));
    });
  }

  get origin(): string {
    return `https://127.0.0.1:${this.#port}`;
  }

  /** The `token_uri` to put in service-account files. */
  get tokenUri(): string {
    return `${this.origin}/token`;
  }

  /** Access tokens issued so far. */
  get tokenRequests(): number {
    return this.#tokenRequests;
  }

  /** Resolves once `count` access tokens have been issued in all. */
  untilTokenRequests(count: number): Promise<void> {
    if (this.#tokenRequests >= count) return Promise.resolve();
    return new Promise((resolve) => this.#tokenWaiters.push({ count, resolve }));
  }

  /** Makes the token endpoint answer as `behaviour` from now on. */
  setTokenEndpoint(behaviour: TokenEndpointBehaviour): void {
    this.#tokenBehaviour = behaviour;
  }

  get tokenEndpointStats(): TokenEndpointStats {
    return { ...this.#tokenStats };
  }

  /** HTTP/2 sessions opened (the token endpoint's HTTP/1.1 connections not counted). */
  get sessions(): number {
    return this.#sessionCount;
  }

  /** GOAWAY frames sent while `goawayEverySession` was on. */
  get goaways(): number {
    return this.#goaways;
  }

  /** Open streams now, and the most seen open at once since the start or `resetStreamPeaks`. */
  get streamStats(): StreamCounts {
    return this.#streams.counts();
  }

  /** Starts the peaks over from the streams open now. */
  resetStreamPeaks(): void {
    this.#streams.resetPeaks(this.#sessions.values());
  }

  /** Answers the next requests for `token` with `answers`, in order; then the default answer. */
  respondTo(token: string, answers: FcmAnswer[]): void {
    this.#scripts.set(token, [...(this.#scripts.get(token) ?? []), ...answers]);
  }

  /** The answer to sends without a script; 200 unless set. */
  setDefaultAnswer(answer: FcmAnswer): void {
    this.#defaultAnswer = answer;
  }

  /**
   * While on, the fake acts as an FCM front end taken out of service for a
   * while: open HTTP/2 sessions get a GOAWAY now (the sends received so far
   * are still answered), and every session opened meanwhile gets a GOAWAY
   * with last stream id 0 as soon as it opens and is closed, so its sends are
   * refused, never acted on. The token endpoint's HTTP/1.1 is not affected.
   */
  goawayEverySession(on: boolean): void {
    this.#goingAway = on;
    if (!on) return;
    for (const [session, state] of this.#sessions) {
      if (session.closed || session.destroyed) continue;
      this.#sendGoaway(session, state, state.lastStreamId);
    }
  }

  /** Makes every access token issued so far invalid, as a revocation would. */
  revokeAccessTokens(): void {
    this.#issued.clear();
  }

  deliveriesTo(token: string): FcmRequestRecord[] {
    return this.log.deliveriesTo(token);
  }

  waitForDeliveries(count: number, timeoutMs?: number): Promise<void> {
    return this.log.waitForDeliveries(count, timeoutMs);
  }

  /** Drops every connection (stalled requests included) and stops listening. */
  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #openSession(session: ServerHttp2Session): void {
    this.#sessionCount++;
    const state: SessionState = { id: this.#sessionCount, streams: 0, lastStreamId: 0, goawayAfter: Infinity };
    this.#sessions.set(session, state);
    session.on('stream', (stream) => this.#streams.track(state, stream));
    session.on('error', () => {});
    session.once('close', () => this.#sessions.delete(session));
    if (this.#goingAway) this.#sendGoaway(session, state, 0);
  }

  /** GOAWAY (NO_ERROR) naming `lastStreamId`, then the session closes once its remaining streams are answered. */
  #sendGoaway(session: ServerHttp2Session, state: SessionState, lastStreamId: number): void {
    state.goawayAfter = lastStreamId;
    session.goaway(constants.NGHTTP2_NO_ERROR, lastStreamId);
    this.#goaways++;
    session.close();
  }

  #onRequest(req: Request, res: Response): void {
    if ('stream' in req) {
      const state = this.#sessions.get(req.stream.session as ServerHttp2Session);
      const id = req.stream.id ?? 0;
      if (state !== undefined && id > state.goawayAfter) {
        // Above the GOAWAY's last stream id: refused, never acted on.
        req.stream.close(constants.NGHTTP2_REFUSED_STREAM);
        return;
      }
      if (state !== undefined) state.lastStreamId = Math.max(state.lastStreamId, id);
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const path = req.url ?? '';
      if (path === '/token') this.#tokenEndpoint(req, res, body);
      else this.#send(req, res, body, path);
    });
  }

  /** The token endpoint as its behaviour says. */
  #tokenEndpoint(req: Request, res: Response, body: Buffer): void {
    const stats = this.#tokenStats;
    const behaviour = this.#tokenBehaviour;
    stats.requests += 1;
    stats.open += 1;
    let open = true;
    const ended = (): void => {
      if (!open) return;
      open = false;
      stats.open -= 1;
    };
    res.once('close', ended);
    res.once('finish', ended);
    const plain = res as ServerResponse;
    switch (behaviour.kind) {
      case 'normal':
        return this.#token(req, res, body);
      case 'hang':
        return;
      case 'error':
        plain.writeHead(behaviour.status, { 'content-type': 'application/json' });
        stats.bytesSent += Buffer.byteLength(behaviour.body);
        plain.end(behaviour.body);
        return;
      case 'trickle': {
        const text = Buffer.from(JSON.stringify({ access_token: `ya29.fake-${randomBytes(24).toString('base64url')}`, expires_in: 3599, token_type: 'Bearer' }));
        plain.writeHead(200, { 'content-type': 'application/json', 'content-length': text.length });
        let at = 0;
        const timer = setInterval(() => {
          if (!open || at >= text.length) return clearInterval(timer);
          stats.bytesSent += 1;
          plain.write(text.subarray(at, (at += 1)));
        }, behaviour.intervalMs);
        res.once('close', () => clearInterval(timer));
        return;
      }
      case 'stream': {
        plain.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(16 * 1024, 0x20);
        const pour = (): void => {
          while (open) {
            stats.bytesSent += chunk.length;
            if (!plain.write(chunk)) return void plain.once('drain', pour);
          }
        };
        pour();
        return;
      }
    }
  }

  /** The OAuth2 token endpoint: JWT-bearer grant only. */
  #token(req: Request, res: Response, body: Buffer): void {
    if (req.method !== 'POST') return json(res, 405, { error: 'invalid_request' });
    const form = new URLSearchParams(body.toString('utf8'));
    if (form.get('grant_type') !== jwtBearerGrant) return json(res, 400, { error: 'unsupported_grant_type' });
    const verdict = this.#checkAssertion(form.get('assertion') ?? '');
    if (typeof verdict === 'string') return json(res, 400, { error: 'invalid_grant', error_description: verdict });
    this.#tokenRequests++;
    const token = `ya29.fake-${randomBytes(24).toString('base64url')}`;
    const ttl = this.#options.accessTokenTtlSeconds ?? 3599;
    this.#issued.set(token, { projectId: verdict.projectId, expiresAt: this.#clock.now() + ttl * 1000 });
    json(res, 200, { access_token: token, expires_in: ttl, token_type: 'Bearer' });
    const ready = this.#tokenWaiters.filter((waiter) => waiter.count <= this.#tokenRequests);
    this.#tokenWaiters = this.#tokenWaiters.filter((waiter) => waiter.count > this.#tokenRequests);
    for (const waiter of ready) waiter.resolve();
  }

  /** Answers the service account of a valid assertion, or why it is invalid. */
  #checkAssertion(assertion: string): FakeServiceAccount | string {
    const parts = assertion.split('.');
    if (parts.length !== 3) return 'Invalid JWT: malformed';
    const [headerPart, claimsPart, signaturePart] = parts as [string, string, string];
    const header = decode(headerPart);
    const claims = decode(claimsPart);
    if (header === undefined || claims === undefined) return 'Invalid JWT: not JSON';
    if (header.alg !== 'RS256') return 'Invalid JWT: alg must be RS256';
    const account = typeof claims.iss === 'string' ? this.#accounts.get(claims.iss) : undefined;
    if (account === undefined) return 'Invalid JWT Signature.';
    const signed = Buffer.from(`${headerPart}.${claimsPart}`);
    if (!verify('RSA-SHA256', signed, account.publicKey, Buffer.from(signaturePart, 'base64url'))) return 'Invalid JWT Signature.';
    if (claims.aud !== this.tokenUri) return 'Invalid JWT: Token must be a short-lived token and in a reasonable timeframe (aud)';
    const scopes = typeof claims.scope === 'string' ? claims.scope.split(' ') : [];
    if (!scopes.includes(fcmScope)) return 'Invalid JWT: scope does not include firebase.messaging';
    const now = this.#clock.now() / 1000;
    if (typeof claims.iat !== 'number' || typeof claims.exp !== 'number') return 'Invalid JWT: iat and exp required';
    if (claims.exp <= now || claims.iat > now + 60 || claims.exp - claims.iat > 3600) {
      return 'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.';
    }
    return account;
  }

  #send(req: Request, res: Response, body: Buffer, path: string): void {
    const match = /^\/v1\/projects\/([^/]+)\/messages:send$/.exec(path);
    if (match === null) return googleError(res, 404, 'NOT_FOUND', 'Not found', []);
    if (req.method !== 'POST') return googleError(res, 405, 'METHOD_NOT_ALLOWED', 'Method not allowed', []);
    const authorization = req.headers.authorization;
    const issued = authorization?.startsWith('Bearer ') ? this.#issued.get(authorization.slice('Bearer '.length)) : undefined;
    if (issued === undefined || issued.expiresAt <= this.#clock.now()) {
      return googleError(res, 401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials. Expected OAuth 2 access token.', []);
    }
    if (decodeURIComponent(match[1] ?? '') !== issued.projectId) {
      return googleError(res, 403, 'PERMISSION_DENIED', 'Permission denied on resource project', []);
    }

    const checked = checkMessage(body);
    const token = checked.message !== undefined && typeof checked.message.token === 'string' ? checked.message.token : '';
    const answer: FcmAnswer = checked.problem === undefined ? this.#nextAnswer(token) : { errorCode: 'INVALID_ARGUMENT' };
    const status: number | 'stalled' = 'stall' in answer ? 'stalled' : 'errorCode' in answer ? (errorCodes[answer.errorCode]?.code ?? 400) : 200;
    const errorCode = 'errorCode' in answer ? answer.errorCode : undefined;
    const record =
      this.log.mode === 'full'
        ? {
            token,
            headers: plainHeaders(req.headers),
            body,
            message: checked.message,
            receivedAt: this.#clock.now(),
            sessionId: 'stream' in req ? (this.#sessions.get(req.stream.session as ServerHttp2Session)?.id ?? 0) : 0,
            status,
            errorCode,
          }
        : undefined;
    const accepted = status === 200;
    this.log.add(token, accepted, record, this.#options.tagger?.(body), status);

    if ('stall' in answer) return;
    const respond = (): void => {
      if (checked.problem !== undefined) {
        const violation = { '@type': badRequestType, fieldViolations: [{ field: checked.problem.field, description: checked.problem.description }] };
        return googleError(res, 400, 'INVALID_ARGUMENT', checked.problem.description, [{ '@type': fcmErrorType, errorCode: 'INVALID_ARGUMENT' }, violation]);
      }
      if ('errorCode' in answer) return fcmError(res, answer.errorCode, answer.retryAfter);
      json(res, 200, { name: `projects/${issued.projectId}/messages/${randomBytes(8).toString('hex')}` });
    };
    if (answer.delayMs === undefined) respond();
    else setTimeout(respond, answer.delayMs);
  }

  #nextAnswer(token: string): FcmAnswer {
    const script = this.#scripts.get(token);
    const next = script?.shift();
    if (script !== undefined && script.length === 0) this.#scripts.delete(token);
    return next ?? this.#defaultAnswer;
  }
}

/** FCM's checks of a send body; `problem` names the field at fault as its BadRequest details do. */
function checkMessage(body: Buffer): { message: Record<string, unknown> | undefined; problem?: { field: string; description: string } } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return { message: undefined, problem: { field: '', description: 'Invalid JSON payload received.' } };
  }
  const message = (parsed as { message?: unknown } | null)?.message;
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    return { message: undefined, problem: { field: 'message', description: 'Invalid value at \'message\'' } };
  }
  const fields = message as Record<string, unknown>;
  if (typeof fields.token !== 'string' || fields.token === '') {
    return { message: fields, problem: { field: 'message', description: 'Recipient of the message is not set.' } };
  }
  const data = fields.data;
  if (data !== undefined) {
    if (typeof data !== 'object' || data === null || Array.isArray(data)) {
      return { message: fields, problem: { field: 'message.data', description: 'Invalid value at \'message.data\'' } };
    }
    const entries = Object.entries(data);
    const index = entries.findIndex(([, value]) => typeof value !== 'string');
    if (index !== -1) {
      return { message: fields, problem: { field: `message.data[${index}].value`, description: `Invalid value at 'message.data[${index}].value' (TYPE_STRING)` } };
    }
  }
  return { message: fields };
}

function fcmError(res: Response, errorCode: string, retryAfter: number | string | undefined): void {
  const known = errorCodes[errorCode] ?? { code: 400, status: 'INVALID_ARGUMENT', message: errorCode };
  const details: unknown[] = [{ '@type': fcmErrorType, errorCode }];
  if (errorCode === 'INVALID_ARGUMENT') details.push({ '@type': badRequestType, fieldViolations: [{ field: 'message.token', description: 'Invalid registration token' }] });
  const headers: Record<string, string> = retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) };
  googleError(res, known.code, known.status, known.message, details, headers);
}

function googleError(res: Response, code: number, status: string, message: string, details: unknown[], headers: Record<string, string> = {}): void {
  json(res, code, { error: { code, message, status, ...(details.length > 0 ? { details } : {}) } }, headers);
}

function json(res: Response, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(value);
  (res as ServerResponse).writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers });
  res.end(text);
}

function decode(part: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function plainHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const plain: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) plain[name] = String(value);
  return plain;
}
