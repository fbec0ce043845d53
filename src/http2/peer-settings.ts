import { ConnectionError, ErrorCode } from './connection-error.ts';

/** SETTINGS identifiers (RFC 9113, 6.5.2). */
export const SettingId = {
  headerTableSize: 0x1,
  enablePush: 0x2,
  maxConcurrentStreams: 0x3,
  initialWindowSize: 0x4,
  maxFrameSize: 0x5,
  maxHeaderListSize: 0x6,
} as const;

const largestWindow = 2 ** 31 - 1;

/**
 * The server's settings as far as a client follows them, starting from the
 * protocol's defaults; each SETTINGS frame may change any of them, at any
 * time. SETTINGS_MAX_HEADER_LIST_SIZE is advice, and unknown settings are
 * ignored.
 */
export class PeerSettings {
  /** The most our HPACK encoder may keep in the server's table. */
  headerTableSize = 4096;
  /** Streams we may have open at once; unlimited until the server says. */
  maxStreams = Infinity;
  /** Each new stream's send window. */
  initialWindowSize = 65_535;
  /** The longest frame we may send. */
  maxFrameSize = 16_384;

  /**
   * Applies the payload of one SETTINGS frame (`buffer[start, end)`);
   * answers how much the initial window changed, which every open stream's
   * window changes by too. A value out of range is a connection error.
   */
  apply(buffer: Buffer, start: number, end: number): number {
    if ((end - start) % 6 !== 0) throw new ConnectionError(ErrorCode.frameSizeError, 'SETTINGS of the wrong length');
    let windowDelta = 0;
    for (let at = start; at < end; at += 6) {
      const value = buffer.readUInt32BE(at + 2);
      switch (buffer.readUInt16BE(at)) {
        case SettingId.headerTableSize:
          this.headerTableSize = value;
          break;
        case SettingId.enablePush:
          if (value > 1) throw new ConnectionError(ErrorCode.protocolError, 'SETTINGS_ENABLE_PUSH other than 0 or 1');
          break;
        case SettingId.maxConcurrentStreams:
          this.maxStreams = value;
          break;
        case SettingId.initialWindowSize:
          if (value > largestWindow) throw new ConnectionError(ErrorCode.flowControlError, 'SETTINGS_INITIAL_WINDOW_SIZE over 2^31-1');
          windowDelta += value - this.initialWindowSize;
          this.initialWindowSize = value;
          break;
        case SettingId.maxFrameSize:
          if (value < 16_384 || value > 16_777_215) throw new ConnectionError(ErrorCode.protocolError, 'SETTINGS_MAX_FRAME_SIZE out of range');
          this.maxFrameSize = value;
          break;
        default:
          break;
      }
    }
    return windowDelta;
  }
}
