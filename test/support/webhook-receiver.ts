import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { withDeadline } from './with-deadline.ts';

/** One event of a batch, as the receiver read it. */
export interface ReceivedEvent {
  id: string;
  type: string;
  createdAt: string;
  // The wire is untyped JSON; tests read the fields they expect.
  data: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** A POST the receiver took, whatever it answered. */
export interface ReceivedBatch {
  headers: IncomingMessage['headers'];
  body: string;
  /** The signature checked out: the secret, the body and a time within the window. */
  verified: boolean;
  /** Why not, when it did not. */
  refusal: string | undefined;
  /** When the whole body had arrived, `performance.now()`. */
  receivedAt: number;
  /** What the receiver answered: a status, or `stalled` / `dropped` for a request it never answered. */
  answer: number | 'stalled' | 'dropped';
  events: ReceivedEvent[];
}

/** How the receiver answers a batch. */
export type Reply =
  | { kind: 'ok' }
  | { kind: 'status'; status: number; headers?: Record<string, string>; body?: string }
  /** Never answers; the request is held until `release()`, `down()` or `close()`. */
  | { kind: 'stall' }
  /** Answers 200 with a body of `bytes` bytes, sent slowly. */
  | { kind: 'large'; bytes: number };

export interface WebhookReceiverOptions {
  /** The signing secret it verifies with. */
  secret: string;
  /** Its clock, Unix ms: the engine's, when Herald runs on a manual one. Default `Date.now`. */
  now?: () => number;
  /** The replay window: signatures older or newer than this are refused (400). Default 300 s, as docs/webhooks.md advises. */
  toleranceSeconds?: number;
  /** Serve HTTPS with this certificate and key instead of HTTP. */
  tls?: { certPem: string; keyPem: string };
}

/**
 * A local webhook endpoint that does what docs/webhooks.md asks of a
 * receiver: it verifies each batch's `Herald-Signature` (HMAC-SHA256 of
 * `<t>.<body>`, within the replay window) and refuses a bad one with 400. Tests
 * make it misbehave: answer errors (500, 429 with Retry-After), stall, answer
 * too much, or be down for a while on the same port.
 */
export class WebhookReceiver {
  readonly batches: ReceivedBatch[] = [];
  readonly #options: WebhookReceiverOptions;
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  readonly #held = new Map<ServerResponse, ReceivedBatch>();
  #replies: Reply[] = [];
  #fallback: Reply = { kind: 'ok' };
  #port = 0;
  #listeners: (() => void)[] = [];

  private constructor(options: WebhookReceiverOptions) {
    this.#options = options;
    const handler = (request: IncomingMessage, response: ServerResponse) => this.#take(request, response);
    this.#server = options.tls === undefined ? createHttpServer(handler) : createHttpsServer({ cert: options.tls.certPem, key: options.tls.keyPem }, handler);
    this.#server.on('connection', (socket: Socket) => {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
  }

  static async start(options: WebhookReceiverOptions): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver(options);
    await receiver.up();
    return receiver;
  }

  get url(): string {
    return `${this.#options.tls === undefined ? 'http' : 'https'}://127.0.0.1:${this.#port}/hooks/herald`;
  }

  /** Every event of the batches it answered 2xx, in arrival order, repeats included. */
  get accepted(): ReceivedEvent[] {
    return this.batches.filter((batch) => typeof batch.answer === 'number' && batch.answer < 300).flatMap((batch) => batch.events);
  }

  /** The accepted events by id, each once: what a receiver that drops repeats keeps. */
  get unique(): Map<string, ReceivedEvent> {
    return new Map(this.accepted.map((event) => [event.id, event]));
  }

  /** Requests held open right now by `stall`. */
  get stalled(): number {
    return this.#held.size;
  }

  /** The next batches get these answers, in order; then the fallback's. */
  answerNext(...replies: Reply[]): void {
    this.#replies.push(...replies);
  }

  /** How every batch is answered once the queued answers are used. */
  answerAll(reply: Reply): void {
    this.#fallback = reply;
  }

  /** Answers the held requests with 200, as if they had been slow. */
  release(): void {
    for (const [response, batch] of this.#held) {
      batch.answer = 200;
      response.writeHead(200).end();
    }
    this.#held.clear();
  }

  /** Stops listening and drops every connection: Herald finds nothing at the port. */
  async down(): Promise<void> {
    for (const batch of this.#held.values()) batch.answer = 'dropped';
    this.#held.clear();
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** Listens again, on the same port after `down`. */
  async up(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(this.#port, '127.0.0.1', () => {
        this.#server.off('error', reject);
        resolve();
      });
    });
    this.#port = (this.#server.address() as AddressInfo).port;
  }

  /** Resolves when `done` holds of the accepted events; fails after `timeoutMs` naming what it has. */
  until(what: string, done: (accepted: ReceivedEvent[]) => boolean, timeoutMs?: number): Promise<ReceivedEvent[]> {
    if (done(this.accepted)) return Promise.resolve(this.accepted);
    const { promise, resolve } = Promise.withResolvers<ReceivedEvent[]>();
    const listener = () => {
      if (done(this.accepted)) resolve(this.accepted);
    };
    this.#listeners.push(listener);
    const seen = () => `${this.accepted.length} accepted events (${[...new Set(this.accepted.map((event) => event.type))].join(', ') || 'none'}) in ${this.batches.length} batches`;
    return withDeadline(promise, what, { ...(timeoutMs === undefined ? {} : { timeoutMs }), seen }).finally(() => {
      this.#listeners = this.#listeners.filter((candidate) => candidate !== listener);
    });
  }

  /** Resolves when `count` batches have arrived, whatever was answered. */
  untilBatches(count: number, timeoutMs?: number): Promise<void> {
    if (this.batches.length >= count) return Promise.resolve();
    const { promise, resolve } = Promise.withResolvers<void>();
    const listener = () => {
      if (this.batches.length >= count) resolve();
    };
    this.#listeners.push(listener);
    return withDeadline(promise, `${count} batches`, { ...(timeoutMs === undefined ? {} : { timeoutMs }), seen: () => `${this.batches.length}` }).finally(() => {
      this.#listeners = this.#listeners.filter((candidate) => candidate !== listener);
    });
  }

  async close(): Promise<void> {
    if (this.#server.listening) await this.down();
  }

  #take(request: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const refusal = this.#refusal(request, body);
      const batch: ReceivedBatch = { headers: request.headers, body, verified: refusal === undefined, refusal, receivedAt: performance.now(), answer: 400, events: [] };
      this.batches.push(batch);
      if (refusal !== undefined) {
        response.writeHead(400, { 'content-type': 'text/plain' }).end(refusal);
      } else {
        batch.events = (JSON.parse(body) as { events: ReceivedEvent[] }).events;
        this.#answer(batch, response, this.#replies.shift() ?? this.#fallback);
      }
      for (const listener of this.#listeners) listener();
    });
  }

  #answer(batch: ReceivedBatch, response: ServerResponse, reply: Reply): void {
    switch (reply.kind) {
      case 'ok':
        batch.answer = 200;
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
        return;
      case 'status':
        batch.answer = reply.status;
        response.writeHead(reply.status, reply.headers ?? {}).end(reply.body ?? '');
        return;
      case 'stall':
        batch.answer = 'stalled';
        this.#held.set(response, batch);
        response.on('close', () => {
          if (this.#held.delete(response)) batch.answer = 'dropped';
        });
        return;
      case 'large': {
        batch.answer = 200;
        response.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(reply.bytes) });
        const piece = Buffer.alloc(16 * 1024, 'x');
        let left = reply.bytes;
        const more = () => {
          if (left <= 0 || response.destroyed) return void response.end();
          const size = Math.min(left, piece.length);
          left -= size;
          response.write(piece.subarray(0, size), () => setTimeout(more, 5));
        };
        more();
        return;
      }
    }
  }

  /** Why the batch's signature does not hold, or undefined when it does (the check docs/webhooks.md shows). */
  #refusal(request: IncomingMessage, body: string): string | undefined {
    const header = request.headers['herald-signature'];
    if (typeof header !== 'string') return 'no Herald-Signature';
    const parts = new Map(header.split(',').map((part) => part.split('=', 2) as [string, string]));
    const timestamp = Number(parts.get('t'));
    const given = parts.get('v1');
    if (!Number.isInteger(timestamp) || given === undefined || !/^[0-9a-f]{64}$/.test(given)) return 'unreadable Herald-Signature';
    const now = Math.floor((this.#options.now ?? Date.now)() / 1000);
    if (Math.abs(now - timestamp) > (this.#options.toleranceSeconds ?? 300)) return 'signature outside the replay window';
    const expected = createHmac('sha256', this.#options.secret).update(`${timestamp}.${body}`).digest();
    if (!timingSafeEqual(expected, Buffer.from(given, 'hex'))) return 'signature does not match';
    return undefined;
  }
}
