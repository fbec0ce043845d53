import { ConnectionError, ErrorCode } from './connection-error.ts';
import { FrameFlag, frameHeaderLength, FrameType } from './frame-types.ts';
import type { FrameWriter } from './frame-writer.ts';
import type { H2Request } from './h2-request.ts';
import type { H2Stream } from './h2-stream.ts';
import { checkHeaderValue, HpackEncoder, InvalidHeaderValue } from './hpack-encoder.ts';
import { largestRequestHeaders } from './our-settings.ts';
import type { PeerSettings } from './peer-settings.ts';
import { largestWindow, type StreamTable } from './stream-table.ts';

/** Room in a header block for a table size update, `:method`, `:scheme` and the name and length prefixes of `:authority` and `:path`. */
const fixedHeadersBound = 32;

/**
 * Writes a connection's requests: each one's HEADERS frame, encoded with
 * the connection's HPACK encoder, and its body in DATA frames as the
 * server's flow-control windows allow; a body that does not fit waits for
 * WINDOW_UPDATE and goes out in the order it blocked.
 */
export class RequestWriter {
  readonly #writer: FrameWriter;
  readonly #streams: StreamTable;
  readonly #peer: PeerSettings;
  readonly #authority: string;
  readonly #encoder = new HpackEncoder();
  /** What the server lets us send more on the connection. */
  #sendWindow = 65_535;

  constructor(writer: FrameWriter, streams: StreamTable, peer: PeerSettings, authority: string) {
    this.#writer = writer;
    this.#streams = streams;
    this.#peer = peer;
    this.#authority = authority;
  }

  /**
   * Checks that HTTP/2 can carry `request`'s headers and answers the most
   * their block can take; throws `InvalidHeaderValue` for a value with a
   * control character or beyond one octet, or for headers of more than 8 KiB.
   */
  check(request: H2Request): number {
    // The most the header block can take: each header literal, with its length prefixes.
    let blockBound = fixedHeadersBound + this.#authority.length + request.path.length;
    checkHeaderValue(':path', request.path);
    const headers = request.headers;
    let length = request.path.length;
    for (let index = 1; index < headers.length; index += 2) {
      const name = headers[index - 1] as string;
      const value = headers[index] as string;
      this.#encoder.check(name, value);
      length += value.length;
      blockBound += name.length + value.length + 12;
    }
    // Our blocks are a few hundred bytes; one beyond the smallest frame a server may allow would need CONTINUATION frames.
    if (length > largestRequestHeaders) throw new InvalidHeaderValue(`request headers of ${length} bytes`);
    return blockBound;
  }

  /** Writes the request of a new stream: its HEADERS, and as much of its body as the windows allow. */
  start(stream: H2Stream, blockBound: number): void {
    const { request } = stream.owner;
    const writer = this.#writer;
    const encoder = this.#encoder;
    const headers = request.headers;
    writer.reserve(frameHeaderLength + blockBound);
    const endStream = request.body.length === 0 ? FrameFlag.endStream : 0;
    const header = writer.frameHeader(0, FrameType.headers, FrameFlag.endHeaders | endStream, stream.id);
    encoder.begin(writer);
    encoder.indexed(writer, ':method', 'POST');
    encoder.indexed(writer, ':scheme', 'https');
    encoder.indexed(writer, ':authority', this.#authority);
    if (request.pathRepeats) encoder.indexed(writer, ':path', request.path);
    else encoder.literal(writer, ':path', request.path);
    for (let index = 1; index < headers.length; index += 2) encoder.indexed(writer, headers[index - 1] as string, headers[index] as string);
    writer.patchLength(header);
    if (request.body.length > 0) this.#sendData(stream);
  }

  /** Applies the server's SETTINGS_HEADER_TABLE_SIZE to our encoder. */
  peerTableSize(size: number): void {
    this.#encoder.setPeerTableSize(size);
  }

  /** The server's WINDOW_UPDATE on the connection; a window past 2^31-1 is a connection error. Answers whether anything was written. */
  widen(increment: number): boolean {
    this.#sendWindow += increment;
    if (this.#sendWindow > largestWindow) throw new ConnectionError(ErrorCode.flowControlError, 'connection window over 2^31-1');
    return this.unblock();
  }

  /** Sends what blocked streams can now, in the order they blocked; answers whether they were any. */
  unblock(): boolean {
    const waiting = this.#streams.unblockAll();
    for (const stream of waiting) this.#sendData(stream);
    return waiting.length > 0;
  }

  /** Sends as much of the stream's body as the windows allow; the rest waits for WINDOW_UPDATE. */
  #sendData(stream: H2Stream): void {
    const body = stream.owner.request.body;
    const writer = this.#writer;
    while (stream.sent < body.length) {
      const room = Math.min(stream.window, this.#sendWindow, this.#peer.maxFrameSize);
      if (room <= 0) {
        this.#streams.block(stream);
        return;
      }
      const length = Math.min(room, body.length - stream.sent);
      writer.data(stream.id, body, stream.sent, stream.sent + length, stream.sent + length === body.length);
      stream.sent += length;
      stream.window -= length;
      this.#sendWindow -= length;
    }
  }
}
