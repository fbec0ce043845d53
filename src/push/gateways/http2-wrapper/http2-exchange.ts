import { constants, type ClientHttp2Stream, type IncomingHttpHeaders, type IncomingHttpStatusHeader } from 'node:http2';
import { KeptBody } from '../../../http2/kept-body.ts';
import type { GatewayAnswer } from '../gateway-transport.ts';
import type { TransportFailure } from '../transport-failure.ts';
import { streamFailure } from './stream-failure.ts';

/** Receives an exchange once it has settled; the pool, which counts and times them. */
export interface ExchangeOwner {
  settled(exchange: Http2Exchange): void;
}

const kExchange = Symbol('exchange');

type ExchangeStream = ClientHttp2Stream & { [kExchange]?: Http2Exchange };

/**
 * One request and its answer on a pooled HTTP/2 stream. The stream handlers
 * are shared functions that find their exchange on the stream, so a request
 * costs one object and one promise rather than a set of closures.
 */
export class Http2Exchange implements GatewayAnswer {
  /** HTTP status of the answer; 0 while none has arrived (and for transport failures). */
  status = 0;
  headers: IncomingHttpHeaders | undefined = undefined;
  /** Set when no answer arrived. */
  failure: TransportFailure | undefined = undefined;
  /** `performance.now()` when the request was handed to the pool. */
  readonly startedAt: number;
  /** `performance.now()` after which the exchange times out. */
  readonly deadline: number;
  readonly promise: Promise<Http2Exchange>;
  #resolve!: (exchange: Http2Exchange) => void;
  #stream: ExchangeStream | undefined = undefined;
  #error: Error | undefined = undefined;
  /** The answer's body, kept only for non-200 answers (200 bodies are not needed), up to `keptBodyLimit` as on Herald's transport. */
  #body: KeptBody | undefined = undefined;
  #done = false;
  readonly #owner: ExchangeOwner;
  readonly #requestBody: Buffer;

  constructor(owner: ExchangeOwner, requestBody: Buffer, startedAt: number, deadline: number) {
    this.#owner = owner;
    this.#requestBody = requestBody;
    this.startedAt = startedAt;
    this.deadline = deadline;
    this.promise = new Promise((resolve) => (this.#resolve = resolve));
  }

  /** The body of an answer other than 200, at most `keptBodyLimit` of it. */
  get body(): Buffer | undefined {
    return this.#body?.take();
  }

  header(name: string): string | undefined {
    const value = this.headers?.[name];
    return Array.isArray(value) ? value[0] : value;
  }

  /** Sends the body on `stream` and listens for the answer; a stream that arrives too late is cancelled unused. */
  attach(stream: ClientHttp2Stream): void {
    if (this.#done) {
      // Timed out while waiting for a stream: nothing has been sent but the
      // headers, and a cancelled stream without a body delivers nothing.
      stream.on('error', ignore);
      stream.close(constants.NGHTTP2_CANCEL);
      return;
    }
    const target = stream as ExchangeStream;
    target[kExchange] = this;
    this.#stream = target;
    target.on('response', onResponse);
    target.on('error', onError);
    target.on('close', onClose);
    target.end(this.#requestBody);
  }

  /** Settles without an answer; the stream, if any, is cancelled. */
  fail(failure: TransportFailure): void {
    if (this.#done) return;
    this.failure = failure;
    const stream = this.#stream;
    if (stream !== undefined && !stream.closed) stream.close(constants.NGHTTP2_CANCEL);
    this.#settle();
  }

  /** @internal stream handlers */
  onResponse(headers: IncomingHttpHeaders & IncomingHttpStatusHeader): void {
    this.status = headers[':status'] ?? 0;
    this.headers = headers;
    // Only error answers have a body worth keeping; a 200's body (FCM's
    // message name) is let flow away so that the stream can end and close.
    if (this.status === 200) this.#stream?.resume();
    else this.#stream?.on('data', onData);
  }

  /** @internal */
  onData(chunk: Buffer): void {
    this.#body ??= new KeptBody();
    // A chunk of the stream's own, never reused: kept without a copy.
    this.#body.add(chunk, 0, chunk.length, false);
  }

  /** @internal */
  onError(error: Error): void {
    this.#error ??= error;
  }

  /** @internal */
  onClose(rstCode: number): void {
    if (this.#done) return;
    if (this.status === 0) this.failure = streamFailure(rstCode, this.#error);
    this.#settle();
  }

  #settle(): void {
    this.#done = true;
    this.#owner.settled(this);
    this.#resolve(this);
  }
}

function onResponse(this: ExchangeStream, headers: IncomingHttpHeaders & IncomingHttpStatusHeader): void {
  this[kExchange]?.onResponse(headers);
}

function onData(this: ExchangeStream, chunk: Buffer): void {
  this[kExchange]?.onData(chunk);
}

function onError(this: ExchangeStream, error: Error): void {
  this[kExchange]?.onError(error);
}

function onClose(this: ExchangeStream): void {
  this[kExchange]?.onClose(this.rstCode ?? 0);
}

function ignore(): void {}
