import type { H2Connection } from './h2-connection.ts';
import type { H2Failure } from './h2-failure.ts';
import type { H2Answer, H2Request } from './h2-request.ts';
import type { H2StreamOwner } from './h2-stream-owner.ts';
import type { H2Stream } from './h2-stream.ts';
import type { HeaderList } from './hpack-decoder.ts';

/** Receives an exchange once it has settled; the pool, which counts and times them. */
export interface H2ExchangeOwner {
  settled(exchange: H2Exchange): void;
}

const noHeaders: HeaderList = [];

/** One request of an `H2Pool` and its answer: queued, then on a stream, then settled once. */
export class H2Exchange implements H2StreamOwner, H2Answer {
  readonly request: H2Request;
  status = 0;
  body: Buffer | undefined = undefined;
  failure: H2Failure | undefined = undefined;
  /** `performance.now()` when the request was handed to the pool. */
  readonly startedAt: number;
  /** `performance.now()` after which the exchange times out. */
  readonly deadline: number;
  readonly promise: Promise<H2Exchange>;
  #headers: HeaderList = noHeaders;
  #resolve!: (exchange: H2Exchange) => void;
  #connection: H2Connection | undefined = undefined;
  #stream: H2Stream | undefined = undefined;
  #done = false;
  readonly #owner: H2ExchangeOwner;

  constructor(owner: H2ExchangeOwner, request: H2Request, startedAt: number, deadline: number) {
    this.#owner = owner;
    this.request = request;
    this.startedAt = startedAt;
    this.deadline = deadline;
    this.promise = new Promise((resolve) => (this.#resolve = resolve));
  }

  get done(): boolean {
    return this.#done;
  }

  /** Whether the request was given a stream (it may have failed since). */
  get started(): boolean {
    return this.#connection !== undefined;
  }

  header(name: string): string | undefined {
    const headers = this.#headers;
    for (let index = 0; index < headers.length; index += 2) if (headers[index] === name) return headers[index + 1];
    return undefined;
  }

  /** Starts the request on `connection`, which has room for it. */
  startOn(connection: H2Connection): void {
    const stream = connection.start(this);
    if (this.#done || stream === undefined) return;
    this.#connection = connection;
    this.#stream = stream;
  }

  /** @internal H2StreamOwner */
  answered(status: number, headers: HeaderList, body: Buffer | undefined): void {
    if (this.#done) return;
    this.status = status;
    this.#headers = headers;
    this.body = body;
    this.#settle();
  }

  /** @internal H2StreamOwner */
  failed(failure: H2Failure): void {
    if (this.#done) return;
    this.failure = failure;
    this.#settle();
  }

  /** Settles without an answer (timeout, pool closed); a stream, if any, is cancelled. */
  fail(failure: H2Failure): void {
    if (this.#done) return;
    if (this.#stream !== undefined) this.#connection?.cancel(this.#stream);
    this.failed(failure);
  }

  #settle(): void {
    this.#done = true;
    this.#stream = undefined;
    this.#connection = undefined;
    this.#owner.settled(this);
    this.#resolve(this);
  }
}
