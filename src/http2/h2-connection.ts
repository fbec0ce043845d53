import { connect, type SecureContext, type TLSSocket } from 'node:tls';
import type { Logger } from '../core/logger.ts';
import type { TransportFailure } from '../push/gateways/transport-failure.ts';
import { ConnectionError, ErrorCode, FrameReader, type FrameHandler } from './frame-reader.ts';
import { FrameFlag, frameHeaderLength, FrameType, FrameWriter } from './frame-writer.ts';
import { HeaderBlockAssembler } from './header-block.ts';
import { CompressionError, HpackDecoder, type HeaderList } from './hpack-decoder.ts';
import { checkHeaderValue, HpackEncoder, InvalidHeaderValue } from './hpack-encoder.ts';
import type { H2StreamOwner } from './h2-request.ts';
import { H2Stream } from './h2-stream.ts';
import { PeerSettings, SettingId } from './peer-settings.ts';

/** Where and how to connect; the TLS context carries the CA and any client certificate. */
export interface H2ConnectionSettings {
  gateway: string;
  host: string;
  port: number;
  /** The TLS server name; undefined sends no SNI (an IP address) and checks the certificate against `host`. */
  servername: string | undefined;
  /** `:authority` of every request. */
  authority: string;
  secureContext: SecureContext;
  /** A connection not ready within this is given up. */
  connectTimeoutMs: number;
  /** A PING goes out every interval; one unanswered for a whole interval drops the connection. */
  pingIntervalMs: number;
  /** The last stream id to use before the connection retires; 2^31-1 but in tests. */
  lastStreamId: number;
  logger: Logger | undefined;
}

/** What a connection tells its pool. */
export interface H2ConnectionEvents {
  /** The server's settings arrived: streams may start. */
  ready(connection: H2Connection): void;
  /** A stream ended, so one more may start. */
  freed(connection: H2Connection): void;
  /** The connection takes no new streams (GOAWAY either way, stream ids used up); those open go on. */
  retired(connection: H2Connection): void;
  /** The socket closed; `error` says why when the connection never became ready. */
  closed(connection: H2Connection, error: Error | undefined): void;
}

const connectionPreface = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

/** What we tell the server (RFC 9113, 6.5.2). */
const ourSettings = {
  /** SETTINGS_ENABLE_PUSH: a gateway has nothing to push. */
  enablePush: 0,
  /** SETTINGS_INITIAL_WINDOW_SIZE: answers are small; this lets any of them arrive whole. */
  initialWindowSize: 256 * 1024,
  /** SETTINGS_MAX_HEADER_LIST_SIZE: more than any gateway answer needs. */
  maxHeaderListSize: 64 * 1024,
} as const;
/** Our connection receive window, raised from 65,535 at the start so that answers on many streams never wait for it. */
const ourConnectionWindow = 16 * 1024 * 1024;
/** The default frame size, which we never raise. */
const ourMaxFrameSize = 16_384;
const largestWindow = 2 ** 31 - 1;
/** Stream ids are 31 bits and odd from the client; past the last one the connection is replaced. */
export const largestStreamId = 2 ** 31 - 1;
/** A header block (with its CONTINUATION frames) longer than this is a connection error. */
const largestHeaderBlock = ourSettings.maxHeaderListSize + ourMaxFrameSize;
/** Header values in one request, at most: their block then fits the smallest frame a server may allow (16,384). */
const largestRequestHeaders = 8 * 1024;
/** Room in a header block for a table size update, `:method`, `:scheme` and the name and length prefixes of `:authority` and `:path`. */
const fixedHeadersBound = 32;

const connectionLost: TransportFailure = { reason: 'ConnectionLost', retryable: true };
const goAwayFailure: TransportFailure = { reason: 'GoAway', retryable: true };
const refusedFailure: TransportFailure = { reason: 'StreamRefused', retryable: true };
const resetFailure: TransportFailure = { reason: 'StreamReset', retryable: true };
const invalidHeaderFailure: TransportFailure = { reason: 'InvalidHeader', retryable: false };
const unavailableFailure: TransportFailure = { reason: 'ConnectionUnavailable', retryable: true };

/**
 * One HTTP/2 connection to a gateway (RFC 9113), client side only and only
 * what a gateway client needs: POST requests with small bodies, answers read
 * whole. Frames of every request started in one turn of the event loop leave
 * in one socket write. Flow control, SETTINGS, PING, GOAWAY, RST_STREAM and
 * HPACK are handled as the RFCs ask; server push is refused in our SETTINGS.
 */
export class H2Connection implements FrameHandler {
  readonly #settings: H2ConnectionSettings;
  readonly #events: H2ConnectionEvents;
  readonly #socket: TLSSocket;
  readonly #reader: FrameReader;
  readonly #writer = new FrameWriter();
  readonly #encoder = new HpackEncoder();
  readonly #decoder = new HpackDecoder();
  readonly #streams = new Map<number, H2Stream>();
  /** Streams with body left to send, waiting for flow-control window. */
  #blocked: H2Stream[] = [];
  #nextStreamId = 1;
  #ready = false;
  #retired = false;
  /** Our side of the socket is ended: nothing more is written. */
  #ended = false;
  #goAwaySent = false;
  /** The server broke the protocol: nothing more it sends is read. */
  #broken = false;
  #closed = false;
  readonly #peer = new PeerSettings();
  /** What the server lets us send more on the connection. */
  #sendWindow = 65_535;
  /** Bytes received on the connection not yet given back by a WINDOW_UPDATE. */
  #unacked = 0;
  readonly #headerBlocks = new HeaderBlockAssembler(largestHeaderBlock);
  #flushScheduled = false;
  #pingOutstanding = false;
  #ping: NodeJS.Timeout | undefined;
  #connectTimer: NodeJS.Timeout | undefined;
  /** Why the connection failed before it became ready. */
  #failure: Error | undefined;
  readonly #flush = (): void => this.#flushNow();

  constructor(settings: H2ConnectionSettings, events: H2ConnectionEvents) {
    this.#settings = settings;
    this.#events = events;
    this.#reader = new FrameReader(this, ourMaxFrameSize);
    const socket = connect({
      host: settings.host,
      port: settings.port,
      servername: settings.servername,
      secureContext: settings.secureContext,
      ALPNProtocols: ['h2'],
    });
    this.#socket = socket;
    socket.setNoDelay(true);
    socket.once('secureConnect', () => this.#secured());
    socket.on('data', (chunk: Buffer) => this.#read(chunk));
    socket.on('error', (error: Error) => {
      this.#failure ??= error;
      settings.logger?.debug({ gateway: settings.gateway, err: error.message }, 'gateway connection error');
    });
    socket.once('close', () => this.#finish());
    this.#connectTimer = setTimeout(() => this.#giveUp(new Error(`no HTTP/2 settings from ${settings.host}:${settings.port} within ${settings.connectTimeoutMs} ms`)), settings.connectTimeoutMs);
    this.#connectTimer.unref();
  }

  /** Streams open now. */
  get streams(): number {
    return this.#streams.size;
  }

  /** Whether a stream may start now. */
  get free(): boolean {
    return this.#ready && !this.#retired && this.#streams.size < this.#peer.maxStreams;
  }

  /**
   * Starts a stream for `owner`'s request if the connection is `free` (else
   * the request fails at once, to be sent again). A request whose headers
   * cannot be sent fails at once and leaves nothing behind. Answers the
   * stream, to cancel it by.
   */
  start(owner: H2StreamOwner): H2Stream | undefined {
    // A pool checks `free` first; anything else is refused here rather than left hanging or over the server's limit.
    if (!this.free) {
      owner.failed(this.#closed ? connectionLost : unavailableFailure);
      return undefined;
    }
    const { request } = owner;
    // The most the header block can take: each header literal, with its length prefixes.
    let blockBound = fixedHeadersBound + this.#settings.authority.length + request.path.length;
    try {
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
    } catch (error) {
      if (!(error instanceof InvalidHeaderValue)) throw error;
      this.#settings.logger?.warn({ gateway: this.#settings.gateway, err: error.message }, 'request not sent: a header value HTTP/2 cannot carry');
      owner.failed(invalidHeaderFailure);
      return undefined;
    }
    const id = this.#nextStreamId;
    this.#nextStreamId += 2;
    const stream = new H2Stream(id, owner, this.#peer.initialWindowSize);
    // An idle connection does not keep the process alive; one with streams open does.
    if (this.#streams.size === 0) this.#socket.ref();
    this.#streams.set(id, stream);
    this.#writeHeaders(stream, blockBound);
    if (request.body.length > 0) this.#sendData(stream);
    this.#scheduleFlush();
    if (this.#nextStreamId > this.#settings.lastStreamId) this.#retire('stream ids used up');
    return stream;
  }

  /** Gives up on a stream whose owner stopped waiting: RST_STREAM(CANCEL), and its owner is not called again. */
  cancel(stream: H2Stream): void {
    if (this.#streams.get(stream.id) !== stream) return;
    this.#endStream(stream);
    if (this.#closed) return;
    this.#writer.rstStream(stream.id, ErrorCode.cancel);
    this.#scheduleFlush();
  }

  /**
   * Takes no new streams and tells the server so (GOAWAY); the socket closes
   * once the open streams have ended, or after `graceMs` in any case.
   */
  close(graceMs: number): Promise<void> {
    const closed = new Promise<void>((resolve) => {
      if (this.#closed) resolve();
      else this.#socket.once('close', () => resolve());
    });
    if (this.#closed) return closed;
    this.#retire('closing');
    if (!this.#ready) {
      this.#socket.destroy();
    } else {
      this.#goAwayFrame(ErrorCode.noError);
      this.#scheduleFlush();
      if (this.#streams.size === 0) this.#endSocket();
    }
    setTimeout(() => this.#socket.destroy(), graceMs).unref();
    return closed;
  }

  /** Drops the connection at once; open streams fail as lost. */
  destroy(): void {
    this.#socket.destroy();
  }

  // Reading

  #read(chunk: Buffer): void {
    if (this.#closed || this.#broken) return;
    try {
      this.#reader.push(chunk);
    } catch (error) {
      this.#protocolFailure(error);
    }
  }

  /** @internal FrameHandler */
  frame(type: number, flags: number, streamId: number, buffer: Buffer, start: number, end: number): void {
    const pending = this.#headerBlocks.pendingStream;
    if (pending !== undefined && (type !== FrameType.continuation || streamId !== pending)) {
      throw new ConnectionError(ErrorCode.protocolError, 'a header block was interrupted by another frame');
    }
    switch (type) {
      case FrameType.data:
        this.#onData(flags, streamId, buffer, start, end);
        return;
      case FrameType.headers:
        this.#onHeaders(flags, streamId, buffer, start, end);
        return;
      case FrameType.continuation:
        this.#onContinuation(flags, streamId, buffer, start, end);
        return;
      case FrameType.rstStream:
        this.#onRstStream(streamId, buffer, start, end);
        return;
      case FrameType.settings:
        this.#onSettings(flags, streamId, buffer, start, end);
        return;
      case FrameType.ping:
        this.#onPing(flags, streamId, buffer, start, end);
        return;
      case FrameType.goaway:
        this.#onGoaway(streamId, buffer, start, end);
        return;
      case FrameType.windowUpdate:
        this.#onWindowUpdate(streamId, buffer, start, end);
        return;
      case FrameType.pushPromise:
        throw new ConnectionError(ErrorCode.protocolError, 'PUSH_PROMISE although SETTINGS_ENABLE_PUSH is 0');
      default:
        // PRIORITY and unknown frame types are ignored (RFC 9113, 4.1 and 5.3.2).
        return;
    }
  }

  #onData(flags: number, streamId: number, buffer: Buffer, start: number, end: number): void {
    if (streamId === 0) throw new ConnectionError(ErrorCode.protocolError, 'DATA on stream 0');
    const length = end - start;
    let from = start;
    let to = end;
    if (flags & FrameFlag.padded) {
      if (length < 1) throw new ConnectionError(ErrorCode.frameSizeError, 'padded DATA without its pad length');
      const pad = buffer[start] as number;
      if (pad >= length) throw new ConnectionError(ErrorCode.protocolError, 'DATA padding longer than the frame');
      from = start + 1;
      to = end - pad;
    }
    this.#consumed(length);
    const stream = this.#streams.get(streamId);
    if (stream === undefined) {
      this.#checkKnown(streamId);
      return;
    }
    if (stream.status === 0) throw new ConnectionError(ErrorCode.protocolError, `DATA before the answer's headers on stream ${streamId}`);
    stream.keep(buffer, from, to);
    if (flags & FrameFlag.endStream) {
      this.#answered(stream);
      return;
    }
    stream.unacked += length;
    if (stream.unacked >= ourSettings.initialWindowSize / 2) {
      this.#writer.windowUpdate(streamId, stream.unacked);
      stream.unacked = 0;
      this.#scheduleFlush();
    }
  }

  #onHeaders(flags: number, streamId: number, buffer: Buffer, start: number, end: number): void {
    if (streamId === 0) throw new ConnectionError(ErrorCode.protocolError, 'HEADERS on stream 0');
    let from = start;
    let to = end;
    if (flags & FrameFlag.padded) {
      if (end === start) throw new ConnectionError(ErrorCode.frameSizeError, 'padded HEADERS without its pad length');
      const pad = buffer[from] as number;
      from += 1;
      to -= pad;
    }
    if (flags & FrameFlag.priority) from += 5;
    if (from > to) throw new ConnectionError(ErrorCode.protocolError, 'HEADERS padding or priority longer than the frame');
    const endStream = (flags & FrameFlag.endStream) !== 0;
    if (flags & FrameFlag.endHeaders) {
      this.#headerBlock(streamId, endStream, buffer, from, to);
      return;
    }
    this.#headerBlocks.begin(streamId, endStream, buffer, from, to);
  }

  #onContinuation(flags: number, streamId: number, buffer: Buffer, start: number, end: number): void {
    const whole = this.#headerBlocks.continue(streamId, (flags & FrameFlag.endHeaders) !== 0, buffer, start, end);
    if (whole !== undefined) this.#headerBlock(whole.streamId, whole.endStream, whole.block, 0, whole.block.length);
  }

  #headerBlock(streamId: number, endStream: boolean, block: Buffer, start: number, end: number): void {
    const headers: HeaderList = [];
    // Every block goes through the decoder, even one nobody waits for: the table must follow the server's.
    this.#decoder.decode(block, start, end, headers);
    const stream = this.#streams.get(streamId);
    if (stream === undefined) {
      this.#checkKnown(streamId);
      return;
    }
    if (stream.status === 0) {
      const status = headers[0] === ':status' ? Number(headers[1]) : NaN;
      if (!(status >= 100 && status <= 599)) throw new ConnectionError(ErrorCode.protocolError, `an answer without a valid :status on stream ${streamId}`);
      // An interim answer (1xx) is followed by the real one.
      if (status < 200) return;
      stream.status = status;
      stream.headers = headers;
    }
    // A second block is trailers; it must end the stream.
    if (endStream) this.#answered(stream);
  }

  #onRstStream(streamId: number, buffer: Buffer, start: number, end: number): void {
    if (streamId === 0) throw new ConnectionError(ErrorCode.protocolError, 'RST_STREAM on stream 0');
    if (end - start !== 4) throw new ConnectionError(ErrorCode.frameSizeError, 'RST_STREAM of the wrong length');
    const stream = this.#streams.get(streamId);
    if (stream === undefined) {
      this.#checkKnown(streamId);
      return;
    }
    const code = buffer.readUInt32BE(start);
    // RST_STREAM(NO_ERROR) after the answer's headers: the server is done with the stream (RFC 9113, 8.1), and
    // the answer stands with what came of its body; the stream is closed, so nothing is reset back.
    if (code === ErrorCode.noError && stream.status !== 0) {
      this.#answered(stream, false);
      return;
    }
    this.#endStream(stream);
    stream.owner.failed(code === ErrorCode.refusedStream ? refusedFailure : resetFailure);
    this.#freed();
  }

  #onSettings(flags: number, streamId: number, buffer: Buffer, start: number, end: number): void {
    if (streamId !== 0) throw new ConnectionError(ErrorCode.protocolError, 'SETTINGS on a stream');
    if (flags & FrameFlag.ack) {
      if (end !== start) throw new ConnectionError(ErrorCode.frameSizeError, 'SETTINGS ack with a payload');
      return;
    }
    const windowDelta = this.#peer.apply(buffer, start, end);
    this.#encoder.setPeerTableSize(this.#peer.headerTableSize);
    if (windowDelta !== 0) {
      for (const stream of this.#streams.values()) stream.window += windowDelta;
      if (windowDelta > 0) this.#unblock();
    }
    this.#writer.settings([], true);
    this.#scheduleFlush();
    if (!this.#ready) {
      this.#ready = true;
      clearTimeout(this.#connectTimer);
      this.#ping = setInterval(() => this.#keepAlive(), this.#settings.pingIntervalMs);
      this.#ping.unref();
      this.#events.ready(this);
      if (this.#streams.size === 0) this.#socket.unref();
    } else {
      this.#freed();
    }
  }

  #onPing(flags: number, streamId: number, buffer: Buffer, start: number, end: number): void {
    if (streamId !== 0) throw new ConnectionError(ErrorCode.protocolError, 'PING on a stream');
    if (end - start !== 8) throw new ConnectionError(ErrorCode.frameSizeError, 'PING of the wrong length');
    if (flags & FrameFlag.ack) {
      this.#pingOutstanding = false;
      return;
    }
    this.#writer.ping(true, buffer, start);
    this.#scheduleFlush();
  }

  #onGoaway(streamId: number, buffer: Buffer, start: number, end: number): void {
    if (streamId !== 0) throw new ConnectionError(ErrorCode.protocolError, 'GOAWAY on a stream');
    if (end - start < 8) throw new ConnectionError(ErrorCode.frameSizeError, 'GOAWAY too short');
    const last = buffer.readUInt32BE(start) & 0x7fffffff;
    const code = buffer.readUInt32BE(start + 4);
    this.#settings.logger?.info(
      { gateway: this.#settings.gateway, code, lastStreamId: last, debug: buffer.toString('latin1', start + 8, Math.min(end, start + 8 + 256)) },
      'gateway sent GOAWAY; replacing the connection',
    );
    this.#retire('GOAWAY');
    // Streams after the last one the server names were never processed: sending them again doubles nothing.
    for (const stream of [...this.#streams.values()]) {
      if (stream.id <= last) continue;
      this.#endStream(stream);
      stream.owner.failed(goAwayFailure);
    }
    if (this.#streams.size === 0) this.#endSocket();
  }

  #onWindowUpdate(streamId: number, buffer: Buffer, start: number, end: number): void {
    if (end - start !== 4) throw new ConnectionError(ErrorCode.frameSizeError, 'WINDOW_UPDATE of the wrong length');
    const increment = buffer.readUInt32BE(start) & 0x7fffffff;
    if (streamId === 0) {
      if (increment === 0) throw new ConnectionError(ErrorCode.protocolError, 'WINDOW_UPDATE of 0 on the connection');
      this.#sendWindow += increment;
      if (this.#sendWindow > largestWindow) throw new ConnectionError(ErrorCode.flowControlError, 'connection window over 2^31-1');
      this.#unblock();
      return;
    }
    const stream = this.#streams.get(streamId);
    if (stream === undefined) return;
    stream.window += increment;
    if (increment === 0 || stream.window > largestWindow) {
      this.#endStream(stream);
      this.#writer.rstStream(streamId, increment === 0 ? ErrorCode.protocolError : ErrorCode.flowControlError);
      this.#scheduleFlush();
      stream.owner.failed(resetFailure);
      this.#freed();
      return;
    }
    if (stream.blocked) this.#unblock();
  }

  /** A frame for a stream we do not hold: fine if we opened and ended it, an error if it was never opened. */
  #checkKnown(streamId: number): void {
    if (streamId % 2 === 0 || streamId >= this.#nextStreamId) {
      throw new ConnectionError(ErrorCode.protocolError, `a frame on stream ${streamId}, which was never opened`);
    }
  }

  /** Counts received DATA against our connection window and gives it back once half is used. */
  #consumed(length: number): void {
    this.#unacked += length;
    if (this.#unacked >= ourConnectionWindow / 2) {
      this.#writer.windowUpdate(0, this.#unacked);
      this.#unacked = 0;
      this.#scheduleFlush();
    }
  }

  #answered(stream: H2Stream, resetUnsent = true): void {
    // The answer came before our whole body went: stop sending it (RFC 9113, 8.1).
    const unsent = stream.sent < stream.owner.request.body.length;
    this.#endStream(stream);
    if (unsent && resetUnsent) {
      this.#writer.rstStream(stream.id, ErrorCode.cancel);
      this.#scheduleFlush();
    }
    stream.owner.answered(stream.status, stream.headers ?? [], stream.body);
    this.#freed();
  }

  #endStream(stream: H2Stream): void {
    this.#streams.delete(stream.id);
    if (this.#streams.size === 0) this.#socket.unref();
    if (stream.blocked) {
      stream.blocked = false;
      this.#blocked = this.#blocked.filter((other) => other !== stream);
    }
  }

  #freed(): void {
    if (this.#retired) {
      if (this.#streams.size === 0) this.#endSocket();
      return;
    }
    this.#events.freed(this);
  }

  // Writing

  #writeHeaders(stream: H2Stream, blockBound: number): void {
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
    encoder.indexed(writer, ':authority', this.#settings.authority);
    if (request.pathRepeats) encoder.indexed(writer, ':path', request.path);
    else encoder.literal(writer, ':path', request.path);
    for (let index = 1; index < headers.length; index += 2) encoder.indexed(writer, headers[index - 1] as string, headers[index] as string);
    writer.patchLength(header);
  }

  /** Sends as much of the stream's body as the windows allow; the rest waits for WINDOW_UPDATE. */
  #sendData(stream: H2Stream): void {
    const body = stream.owner.request.body;
    const writer = this.#writer;
    while (stream.sent < body.length) {
      const room = Math.min(stream.window, this.#sendWindow, this.#peer.maxFrameSize);
      if (room <= 0) {
        if (!stream.blocked) {
          stream.blocked = true;
          this.#blocked.push(stream);
        }
        return;
      }
      const length = Math.min(room, body.length - stream.sent);
      writer.data(stream.id, body, stream.sent, stream.sent + length, stream.sent + length === body.length);
      stream.sent += length;
      stream.window -= length;
      this.#sendWindow -= length;
    }
  }

  /** Sends what blocked streams can now, in the order they blocked. */
  #unblock(): void {
    if (this.#blocked.length === 0) return;
    const waiting = this.#blocked;
    this.#blocked = [];
    for (const stream of waiting) {
      stream.blocked = false;
      if (this.#streams.get(stream.id) === stream) this.#sendData(stream);
    }
    this.#scheduleFlush();
  }

  /** Our GOAWAY, once; the server starts no streams, so the last one we processed is always 0. */
  #goAwayFrame(code: number): void {
    if (this.#goAwaySent) return;
    this.#goAwaySent = true;
    this.#writer.goAway(0, code);
  }

  #scheduleFlush(): void {
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    setImmediate(this.#flush);
  }

  #flushNow(): void {
    this.#flushScheduled = false;
    if (this.#closed || this.#ended || !this.#writer.pending) return;
    const chunks = this.#writer.take();
    const socket = this.#socket;
    if (chunks.length === 1) {
      socket.write(chunks[0] as Buffer);
      return;
    }
    socket.cork();
    for (const chunk of chunks) socket.write(chunk);
    socket.uncork();
  }

  // Lifecycle

  #secured(): void {
    const socket = this.#socket;
    if (socket.alpnProtocol !== 'h2') {
      this.#giveUp(new Error(`${this.#settings.host}:${this.#settings.port} did not agree to HTTP/2 (ALPN ${String(socket.alpnProtocol)})`));
      return;
    }
    const writer = this.#writer;
    writer.reserve(connectionPreface.length);
    writer.bytes(connectionPreface, 0, connectionPreface.length);
    writer.settings([
      [SettingId.enablePush, ourSettings.enablePush],
      [SettingId.initialWindowSize, ourSettings.initialWindowSize],
      [SettingId.maxHeaderListSize, ourSettings.maxHeaderListSize],
    ]);
    writer.windowUpdate(0, ourConnectionWindow - 65_535);
    this.#flushNow();
  }

  #keepAlive(): void {
    // A whole interval without the last PING's ack: the connection is dead
    // (a half-open socket never errors), and its streams are retried elsewhere.
    if (this.#pingOutstanding) {
      this.#settings.logger?.warn({ gateway: this.#settings.gateway, host: this.#settings.host }, 'gateway connection did not answer a ping; dropping it');
      this.#socket.destroy();
      return;
    }
    this.#pingOutstanding = true;
    this.#writer.ping(false);
    this.#scheduleFlush();
  }

  #retire(why: string): void {
    if (this.#retired) return;
    this.#retired = true;
    this.#settings.logger?.debug({ gateway: this.#settings.gateway, host: this.#settings.host, why }, 'gateway connection retired');
    this.#events.retired(this);
  }

  /** Closes our side once nothing is open, telling the server first unless a GOAWAY went already. */
  #endSocket(): void {
    if (this.#ended || this.#closed) return;
    if (this.#ready) this.#goAwayFrame(ErrorCode.noError);
    this.#flushNow();
    this.#ended = true;
    this.#socket.end();
  }

  #protocolFailure(error: unknown): void {
    this.#broken = true;
    const code = error instanceof ConnectionError ? error.code : error instanceof CompressionError ? ErrorCode.compressionError : ErrorCode.internalError;
    this.#settings.logger?.warn({ gateway: this.#settings.gateway, host: this.#settings.host, code, err: (error as Error).message }, 'gateway broke the HTTP/2 protocol; dropping the connection');
    this.#failure ??= error as Error;
    if (this.#ready) {
      this.#goAwayFrame(code);
      this.#flushNow();
    }
    this.#socket.destroy();
  }

  #giveUp(error: Error): void {
    this.#failure ??= error;
    this.#socket.destroy();
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#connectTimer);
    clearInterval(this.#ping);
    this.#blocked = [];
    const open = [...this.#streams.values()];
    this.#streams.clear();
    this.#retire('closed');
    for (const stream of open) stream.owner.failed(connectionLost);
    this.#events.closed(this, this.#ready ? undefined : (this.#failure ?? new Error('connection closed before HTTP/2 settings')));
  }
}
