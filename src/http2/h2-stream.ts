import { answerStatus, checkTrailers } from './answer-headers.ts';
import { ConnectionError, ErrorCode } from './connection-error.ts';
import type { HeaderList } from './hpack-decoder.ts';
import type { H2StreamOwner } from './h2-stream-owner.ts';
import { KeptBody } from './kept-body.ts';

/** What a header block did to a stream's answer: an interim answer came, the answer's headers came with its body to follow, or the answer is whole. */
export type HeaderBlockEffect = 'interim' | 'open' | 'whole';

/** One stream of an `H2Connection`: what is sent of the request and what has come of the answer. */
export class H2Stream {
  readonly id: number;
  readonly owner: H2StreamOwner;
  /** Body bytes sent. */
  sent = 0;
  /** What the server lets us send more on this stream. */
  window: number;
  /** Whether the stream waits in the connection's blocked list. */
  blocked = false;
  /** The answer's status; 0 until its headers arrive. */
  status = 0;
  headers: HeaderList | undefined = undefined;
  #body: KeptBody | undefined = undefined;
  /** Bytes received on the stream not yet given back by a WINDOW_UPDATE. */
  unacked = 0;

  constructor(id: number, owner: H2StreamOwner, window: number) {
    this.id = id;
    this.owner = owner;
    this.window = window;
  }

  /** The body kept so far. */
  get body(): Buffer | undefined {
    return this.#body?.take();
  }

  /**
   * Takes a decoded header block: the answer's headers, an interim answer
   * before them, or trailers after them. A malformed block is a connection
   * error: no valid `:status`, an interim answer that ends the stream, or
   * trailers with a pseudo-header or that do not end it (RFC 9113, 8.1).
   */
  headerBlock(headers: HeaderList, endStream: boolean): HeaderBlockEffect {
    if (this.status === 0) {
      const status = answerStatus(headers, this.id);
      if (status < 200) {
        if (endStream) throw new ConnectionError(ErrorCode.protocolError, `an interim answer that ends stream ${this.id}`);
        return 'interim';
      }
      this.status = status;
      this.headers = headers;
      return endStream ? 'whole' : 'open';
    }
    checkTrailers(headers, this.id);
    if (!endStream) throw new ConnectionError(ErrorCode.protocolError, `trailers that do not end stream ${this.id}`);
    return 'whole';
  }

  /** Keeps body bytes of an answer other than 200 (whose body nobody reads), up to `keptBodyLimit`; a copy, as the read buffer is reused. */
  keep(buffer: Buffer, start: number, end: number): void {
    if (this.status === 200 || end === start) return;
    this.#body ??= new KeptBody();
    this.#body.add(buffer, start, end, true);
  }
}
