import type { Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import { ConnectionError, ErrorCode, errorCodeName } from './connection-error.ts';
import { defaultControlFrameLimit } from './control-frame-queue.ts';
import { defaultStrayFrameBudget, FrameLimits } from './frame-limits.ts';
import { dataContent, headersContent } from './frame-payload.ts';
import { FrameReader, type FrameHandler } from './frame-reader.ts';
import { FrameFlag, FrameType } from './frame-types.ts';
import type { FrameWriter } from './frame-writer.ts';
import type { H2ConnectionEvents, H2ConnectionSettings } from './h2-connection-options.ts';
import { errorCause, failureWithCause, h2Failures, type H2Failure } from './h2-failure.ts';
import type { H2StreamOwner } from './h2-stream-owner.ts';
import type { H2Stream } from './h2-stream.ts';
import { HeaderBlockAssembler } from './header-block.ts';
import { HpackDecoder, type HeaderList } from './hpack-decoder.ts';
import { InvalidHeaderValue } from './hpack-encoder.ts';
import { headerBlockLimits, ourConnectionWindow, ourMaxFrameSize, ourSettings } from './our-settings.ts';
import { PeerSettings, SettingId } from './peer-settings.ts';
import { PingKeepAlive } from './ping-keep-alive.ts';
import { RequestWriter } from './request-writer.ts';
import { OutgoingFrames } from './outgoing-frames.ts';
import { largestWindow, StreamTable } from './stream-table.ts';

const connectionPreface = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

/** How long a connection that failed waits for its GOAWAY to leave before the socket is dropped. */
const goAwayGraceMs = 1000;

/** Streams of a connection that closed without an error (the server ended it without a GOAWAY). */
const closedUnderStreams = failureWithCause(h2Failures.connectionLost, 'the connection closed before the answer');

/**
 * One HTTP/2 connection (RFC 9113), client side only and only what a client
 * of a push gateway needs: POST requests with small bodies, answers read
 * whole. Frames of every request started in one turn of the event loop leave
 * in one socket write. Flow control, SETTINGS, PING, GOAWAY, RST_STREAM and
 * HPACK are handled as the RFCs ask; server push is refused in our SETTINGS.
 *
 * Whatever the server sends, the connection holds a bounded amount: a frame
 * 16 KiB, a header block 80 KiB in at most 8 CONTINUATION frames and 64 KiB
 * decoded, a kept body 64 KiB, 1000 control frames owed to a server that does
 * not read them, and a budget of frames that move nothing forward
 * (`FrameLimits`). A breach ends the connection with a GOAWAY naming the
 * error and fails its open streams as lost, to be sent again; it is logged
 * once, as is every other end of a connection.
 *
 * The socket is TLS with ALPN `h2`, or a connected cleartext socket that
 * speaks HTTP/2 with prior knowledge (RFC 9113, 3.3), which tests use.
 */
export class H2Connection implements FrameHandler {
  readonly #settings: H2ConnectionSettings;
  readonly #events: H2ConnectionEvents;
  readonly #socket: Socket;
  readonly #reader: FrameReader;
  readonly #out: OutgoingFrames;
  readonly #writer: FrameWriter;
  readonly #decoder = new HpackDecoder(4096, ourSettings.maxHeaderListSize);
  readonly #streams = new StreamTable();
  readonly #peer = new PeerSettings();
  readonly #requests: RequestWriter;
  readonly #limits: FrameLimits;
  readonly #headerBlocks = new HeaderBlockAssembler(headerBlockLimits);
  readonly #keepAlive: PingKeepAlive;
  #ready = false;
  #retired = false;
  /** Our side of the socket is ended: nothing more is written. */
  #ended = false;
  #goAwaySent = false;
  #goAwayReceived = false;
  /** The server broke the protocol, or asked for more than we hold: nothing more it sends is read. */
  #broken = false;
  #closed = false;
  /** Whether the connection's end has been logged: it is, once. */
  #endLogged = false;
  /** Bytes received on the connection not yet given back by a WINDOW_UPDATE. */
  #unacked = 0;
  /** Acks of our SETTINGS still to come. */
  #settingsAcksDue = 1;
  #connectTimer: NodeJS.Timeout | undefined;
  /** Drops a socket that has not closed in its grace time; cleared when it closes, so that a closed connection is not held. */
  #dropTimer: NodeJS.Timeout | undefined;
  /** Why the connection failed before it became ready. */
  #failure: Error | undefined;

  constructor(settings: H2ConnectionSettings, events: H2ConnectionEvents, socket: Socket) {
    this.#settings = settings;
    this.#events = events;
    this.#reader = new FrameReader(this, ourMaxFrameSize);
    this.#out = new OutgoingFrames(socket, settings.limits?.controlFrames ?? defaultControlFrameLimit);
    this.#writer = this.#out.writer;
    this.#requests = new RequestWriter(this.#writer, this.#streams, this.#peer, settings.authority);
    this.#limits = new FrameLimits(settings.limits?.strayFrames ?? defaultStrayFrameBudget);
    this.#keepAlive = new PingKeepAlive(
      settings.pingIntervalMs,
      (payload) => {
        if (!this.#ended && !this.#broken && this.#oweUnprompted('PING')) this.#writer.ping(false, payload);
      },
      () => {
        this.#logEnd('warn', {}, 'HTTP/2 server did not answer a ping; dropping the connection');
        this.#failure ??= new Error(`the server did not answer a PING within ${settings.pingIntervalMs} ms`);
        this.#socket.destroy();
      },
    );
    this.#socket = socket;
    socket.setNoDelay(true);
    if (socket instanceof TLSSocket) socket.once('secureConnect', () => this.#opened());
    else if (socket.connecting) socket.once('connect', () => this.#opened());
    else process.nextTick(() => this.#opened());
    socket.on('data', (chunk: Buffer) => this.#read(chunk));
    socket.on('error', (error: Error) => {
      this.#failure ??= error;
      this.#logEnd('debug', { err: error.message }, 'HTTP/2 connection error');
    });
    socket.once('close', () => this.#finish());
    this.#connectTimer = setTimeout(() => this.#giveUp(new Error(`no HTTP/2 settings from ${settings.peer} within ${settings.connectTimeoutMs} ms`)), settings.connectTimeoutMs);
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
      owner.failed(this.#closed || this.#broken ? h2Failures.connectionLost : h2Failures.connectionUnavailable);
      return undefined;
    }
    let blockBound: number;
    try {
      blockBound = this.#requests.check(owner.request);
    } catch (error) {
      if (!(error instanceof InvalidHeaderValue)) throw error;
      this.#settings.logger?.warn({ err: error.message }, 'request not sent: a header value HTTP/2 cannot carry');
      owner.failed(h2Failures.invalidHeader);
      return undefined;
    }
    // An idle connection does not keep the process alive; one with streams open does.
    if (this.#streams.size === 0) this.#socket.ref();
    const stream = this.#streams.open(owner, this.#peer.initialWindowSize);
    this.#requests.start(stream, blockBound);
    this.#out.schedule();
    if (this.#streams.nextId > this.#settings.lastStreamId) this.#retire('stream ids used up');
    return stream;
  }

  /** Gives up on a stream whose owner stopped waiting: RST_STREAM(CANCEL), and its owner is not called again. */
  cancel(stream: H2Stream): void {
    if (!this.#streams.holds(stream)) return;
    this.#endStream(stream);
    if (this.#closed || this.#broken) return;
    if (this.#oweUnprompted('RST_STREAM')) this.#writer.rstStream(stream.id, ErrorCode.cancel);
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
    // A connection that failed has said its GOAWAY and has nothing left to finish.
    if (!this.#ready || this.#broken) {
      this.#socket.destroy();
    } else {
      this.#goAwayFrame(ErrorCode.noError);
      this.#out.schedule();
      if (this.#streams.size === 0) this.#endSocket();
    }
    this.#dropLater(graceMs);
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
    // The server's preface is a SETTINGS frame (RFC 9113, 3.4).
    if (!this.#ready && type !== FrameType.settings) throw new ConnectionError(ErrorCode.protocolError, 'a first frame other than SETTINGS');
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
      case FrameType.priority:
        this.#limits.stray('PRIORITY');
        return;
      default:
        // Unknown frame types are ignored (RFC 9113, 4.1), within the budget.
        this.#limits.stray(`a frame of type ${type}`);
        return;
    }
  }

  #onData(flags: number, streamId: number, buffer: Buffer, start: number, end: number): void {
    if (streamId === 0) throw new ConnectionError(ErrorCode.protocolError, 'DATA on stream 0');
    // Most frames are unpadded: their content is the payload, and nothing is allocated for it.
    let from = start;
    let to = end;
    if (flags & FrameFlag.padded) ({ from, to } = dataContent(flags, buffer, start, end));
    // Padding counts against flow control too.
    this.#consumed(end - start);
    const stream = this.#streams.find(streamId, 'DATA');
    if (stream === undefined) {
      this.#limits.stray('DATA on an ended stream');
      return;
    }
    if (stream.status === 0) throw new ConnectionError(ErrorCode.protocolError, `DATA before the answer's headers on stream ${streamId}`);
    const endStream = (flags & FrameFlag.endStream) !== 0;
    if (to === from && !endStream) this.#limits.stray('empty DATA');
    stream.keep(buffer, from, to);
    if (endStream) {
      this.#answered(stream);
      return;
    }
    stream.unacked += end - start;
    if (stream.unacked >= ourSettings.initialWindowSize / 2) {
      const increment = stream.unacked;
      stream.unacked = 0;
      this.#out.owe('WINDOW_UPDATE');
      this.#writer.windowUpdate(streamId, increment);
    }
  }

  #onHeaders(flags: number, streamId: number, buffer: Buffer, start: number, end: number): void {
    if (streamId === 0) throw new ConnectionError(ErrorCode.protocolError, 'HEADERS on stream 0');
    let from = start;
    let to = end;
    if (flags & (FrameFlag.padded | FrameFlag.priority)) ({ from, to } = headersContent(flags, buffer, start, end));
    const endStream = (flags & FrameFlag.endStream) !== 0;
    if (flags & FrameFlag.endHeaders) this.#headerBlock(streamId, endStream, buffer, from, to);
    else this.#headerBlocks.begin(streamId, endStream, buffer, from, to);
  }

  #onContinuation(flags: number, streamId: number, buffer: Buffer, start: number, end: number): void {
    const whole = this.#headerBlocks.continue(streamId, (flags & FrameFlag.endHeaders) !== 0, buffer, start, end);
    if (whole !== undefined) this.#headerBlock(whole.streamId, whole.endStream, whole.block, 0, whole.block.length);
  }

  #headerBlock(streamId: number, endStream: boolean, block: Buffer, start: number, end: number): void {
    const headers: HeaderList = [];
    // Every block goes through the decoder, even one nobody waits for: the table must follow the server's.
    this.#decoder.decode(block, start, end, headers);
    const stream = this.#streams.find(streamId, 'HEADERS');
    if (stream === undefined) {
      this.#limits.stray('HEADERS on an ended stream');
      return;
    }
    const effect = stream.headerBlock(headers, endStream);
    if (effect === 'whole') this.#answered(stream);
    else if (effect === 'interim') this.#limits.stray('an interim answer');
  }

  #onRstStream(streamId: number, buffer: Buffer, start: number, end: number): void {
    if (streamId === 0) throw new ConnectionError(ErrorCode.protocolError, 'RST_STREAM on stream 0');
    if (end - start !== 4) throw new ConnectionError(ErrorCode.frameSizeError, 'RST_STREAM of the wrong length');
    const stream = this.#streams.find(streamId, 'RST_STREAM');
    if (stream === undefined) {
      this.#limits.stray('RST_STREAM on an ended stream');
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
    stream.owner.failed(code === ErrorCode.refusedStream ? h2Failures.streamRefused : failureWithCause(h2Failures.streamReset, `RST_STREAM ${errorCodeName(code)}`));
    this.#freed();
  }

  #onSettings(flags: number, streamId: number, buffer: Buffer, start: number, end: number): void {
    if (streamId !== 0) throw new ConnectionError(ErrorCode.protocolError, 'SETTINGS on a stream');
    if (flags & FrameFlag.ack) {
      if (end !== start) throw new ConnectionError(ErrorCode.frameSizeError, 'SETTINGS ack with a payload');
      if (this.#settingsAcksDue === 0) this.#limits.stray('a SETTINGS ack nobody asked for');
      else this.#settingsAcksDue -= 1;
      return;
    }
    if (this.#ready) this.#limits.stray('SETTINGS');
    const windowDelta = this.#peer.apply(buffer, start, end);
    this.#requests.peerTableSize(this.#peer.headerTableSize);
    if (windowDelta !== 0) this.#streams.moveWindows(windowDelta);
    if (windowDelta > 0) this.#requests.unblock();
    this.#out.owe('SETTINGS ack');
    this.#writer.settings([], true);
    if (this.#ready) {
      this.#freed();
      return;
    }
    this.#ready = true;
    clearTimeout(this.#connectTimer);
    this.#keepAlive.start();
    this.#events.ready(this);
    if (this.#streams.size === 0) this.#socket.unref();
  }

  #onPing(flags: number, streamId: number, buffer: Buffer, start: number, end: number): void {
    if (streamId !== 0) throw new ConnectionError(ErrorCode.protocolError, 'PING on a stream');
    if (end - start !== 8) throw new ConnectionError(ErrorCode.frameSizeError, 'PING of the wrong length');
    if (flags & FrameFlag.ack) {
      if (!this.#keepAlive.acked(buffer, start, end)) this.#limits.stray('a PING ack nobody asked for');
      return;
    }
    this.#limits.stray('PING');
    this.#out.owe('PING ack');
    this.#writer.ping(true, buffer, start);
  }

  #onGoaway(streamId: number, buffer: Buffer, start: number, end: number): void {
    if (streamId !== 0) throw new ConnectionError(ErrorCode.protocolError, 'GOAWAY on a stream');
    if (end - start < 8) throw new ConnectionError(ErrorCode.frameSizeError, 'GOAWAY too short');
    const last = buffer.readUInt32BE(start) & 0x7fffffff;
    const code = buffer.readUInt32BE(start + 4);
    if (this.#goAwayReceived) {
      // A server may send another GOAWAY with a lower last stream; a flood of them is budgeted, and logged once.
      this.#limits.stray('another GOAWAY');
    } else {
      this.#goAwayReceived = true;
      const debug = buffer.toString('latin1', start + 8, Math.min(end, start + 8 + 256));
      this.#logEnd('info', { code, lastStreamId: last, debug }, 'HTTP/2 server sent GOAWAY; the connection takes no new streams');
      this.#retire('GOAWAY');
    }
    // Streams after the last one the server names were never processed: sending them again doubles nothing.
    let goAway: H2Failure | undefined;
    for (const stream of [...this.#streams.values()]) {
      if (stream.id <= last) continue;
      this.#endStream(stream);
      stream.owner.failed((goAway ??= failureWithCause(h2Failures.goAway, `GOAWAY ${errorCodeName(code)}`)));
    }
    if (this.#streams.size === 0) this.#endSocket();
  }

  #onWindowUpdate(streamId: number, buffer: Buffer, start: number, end: number): void {
    if (end - start !== 4) throw new ConnectionError(ErrorCode.frameSizeError, 'WINDOW_UPDATE of the wrong length');
    const increment = buffer.readUInt32BE(start) & 0x7fffffff;
    if (streamId === 0) {
      if (increment === 0) throw new ConnectionError(ErrorCode.protocolError, 'WINDOW_UPDATE of 0 on the connection');
      if (this.#requests.widen(increment)) this.#out.schedule();
      return;
    }
    const stream = this.#streams.find(streamId, 'WINDOW_UPDATE');
    if (stream === undefined) {
      this.#limits.stray('WINDOW_UPDATE on an ended stream');
      return;
    }
    stream.window += increment;
    if (increment === 0 || stream.window > largestWindow) {
      // A stream error (RFC 9113, 6.9): that stream is reset, the connection goes on.
      this.#endStream(stream);
      this.#out.owe('RST_STREAM');
      this.#writer.rstStream(streamId, increment === 0 ? ErrorCode.protocolError : ErrorCode.flowControlError);
      stream.owner.failed(failureWithCause(h2Failures.streamReset, `reset by us: the server's WINDOW_UPDATE took the window ${increment === 0 ? 'nowhere' : 'past 2^31-1'}`));
      this.#freed();
      return;
    }
    if (stream.blocked && this.#requests.unblock()) this.#out.schedule();
  }

  /** Counts received DATA against our connection window and gives it back once half is used. */
  #consumed(length: number): void {
    this.#unacked += length;
    if (this.#unacked < ourConnectionWindow / 2) return;
    const increment = this.#unacked;
    this.#unacked = 0;
    this.#out.owe('WINDOW_UPDATE');
    this.#writer.windowUpdate(0, increment);
  }

  #answered(stream: H2Stream, resetUnsent = true): void {
    // The answer came before our whole body went: stop sending it (RFC 9113, 8.1).
    const unsent = stream.sent < stream.owner.request.body.length;
    this.#endStream(stream);
    if (unsent && resetUnsent) {
      this.#out.owe('RST_STREAM');
      this.#writer.rstStream(stream.id, ErrorCode.cancel);
    }
    stream.owner.answered(stream.status, stream.headers ?? [], stream.body);
    this.#freed();
  }

  #endStream(stream: H2Stream): void {
    this.#streams.remove(stream);
    this.#limits.streamEnded();
    if (this.#streams.size === 0) this.#socket.unref();
  }

  #freed(): void {
    if (this.#retired) {
      if (this.#streams.size === 0) this.#endSocket();
      return;
    }
    this.#events.freed(this);
  }

  // Writing

  /**
   * Counts a control frame we write of our own accord (our PING, a cancel),
   * outside any frame's handling: one too many ends the connection here
   * rather than in the reader. Answers whether to write it.
   */
  #oweUnprompted(what: string): boolean {
    try {
      this.#out.owe(what);
      return true;
    } catch (error) {
      this.#protocolFailure(error);
      return false;
    }
  }

  /** Our GOAWAY, once; the server starts no streams, so the last one we processed is always 0. */
  #goAwayFrame(code: number): void {
    if (this.#goAwaySent) return;
    this.#goAwaySent = true;
    this.#writer.goAway(0, code);
  }

  // Lifecycle

  #opened(): void {
    const socket = this.#socket;
    if (this.#closed) return;
    if (socket instanceof TLSSocket && socket.alpnProtocol !== 'h2') {
      this.#giveUp(new Error(`${this.#settings.peer} did not agree to HTTP/2 (ALPN ${String(socket.alpnProtocol)})`));
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
    this.#out.flush();
  }

  #retire(why: string): void {
    if (this.#retired) return;
    this.#retired = true;
    this.#settings.logger?.debug({ why }, 'HTTP/2 connection retired');
    this.#events.retired(this);
  }

  /** Closes our side once nothing is open, telling the server first unless a GOAWAY went already. */
  #endSocket(): void {
    if (this.#ended || this.#closed) return;
    if (this.#ready) this.#goAwayFrame(ErrorCode.noError);
    this.#out.flush();
    this.#out.stop();
    this.#ended = true;
    this.#socket.end();
  }

  /**
   * The server broke the protocol or asked for more than we hold: nothing
   * more of it is read, the open streams fail as lost (to be sent again
   * elsewhere), and our GOAWAY names the error before our side ends; a
   * server that does not read it is dropped a second later.
   */
  #protocolFailure(error: unknown): void {
    if (this.#broken || this.#closed) return;
    this.#broken = true;
    const code = error instanceof ConnectionError ? error.code : ErrorCode.internalError;
    this.#logEnd('warn', { code, err: (error as Error).message }, 'HTTP/2 server broke the protocol or sent more than a connection holds; dropping the connection');
    this.#failure ??= error as Error;
    this.#keepAlive.stop();
    // Nothing more the server sends is read: let its writes back up rather than spend a second discarding them.
    this.#socket.pause();
    this.#retire('protocol error');
    const open = this.#streams.clear();
    if (open.length > 0) {
      const lost = failureWithCause(h2Failures.connectionLost, `dropped by us: ${errorCodeName(code)}: ${(error as Error).message}`);
      for (const stream of open) stream.owner.failed(lost);
    }
    if (!this.#ready) {
      this.#socket.destroy();
      return;
    }
    this.#goAwayFrame(code);
    this.#endSocket();
    this.#dropLater(goAwayGraceMs);
  }

  /** Drops the socket after `ms` unless it has closed by then. */
  #dropLater(ms: number): void {
    this.#dropTimer ??= setTimeout(() => this.#socket.destroy(), ms).unref();
  }

  #giveUp(error: Error): void {
    this.#failure ??= error;
    this.#socket.destroy();
  }

  /** Logs how the connection ends, the first time only: a server sending GOAWAY after GOAWAY gets one line. */
  #logEnd(level: 'debug' | 'info' | 'warn', fields: Record<string, unknown>, message: string): void {
    if (this.#endLogged) return;
    this.#endLogged = true;
    this.#settings.logger?.[level](fields, message);
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#out.stop();
    clearTimeout(this.#connectTimer);
    clearTimeout(this.#dropTimer);
    this.#keepAlive.stop();
    const open = this.#streams.clear();
    this.#retire('closed');
    if (open.length > 0) {
      const lost = this.#failure === undefined ? closedUnderStreams : failureWithCause(h2Failures.connectionLost, errorCause(this.#failure));
      for (const stream of open) stream.owner.failed(lost);
    }
    this.#events.closed(this, this.#ready ? undefined : (this.#failure ?? new Error('connection closed before HTTP/2 settings')));
  }
}
