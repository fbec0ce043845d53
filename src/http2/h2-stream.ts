import type { HeaderList } from './hpack-decoder.ts';
import type { H2StreamOwner } from './h2-request.ts';

/** Most of an answer's body kept: gateway error bodies are a few hundred bytes. */
const keptBody = 64 * 1024;

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
  body: Buffer | undefined = undefined;
  /** Bytes received on the stream not yet given back by a WINDOW_UPDATE. */
  unacked = 0;

  constructor(id: number, owner: H2StreamOwner, window: number) {
    this.id = id;
    this.owner = owner;
    this.window = window;
  }

  /** Keeps body bytes of an answer other than 200 (whose body nobody reads), up to `keptBody`. */
  keep(buffer: Buffer, start: number, end: number): void {
    if (this.status === 200 || end === start) return;
    const have = this.body?.length ?? 0;
    const take = Math.min(end - start, keptBody - have);
    if (take <= 0) return;
    const piece = Buffer.from(buffer.subarray(start, start + take));
    this.body = this.body === undefined ? piece : Buffer.concat([this.body, piece]);
  }
}
