/** Error codes (RFC 9113, 7). */
export const ErrorCode = {
  noError: 0x0,
  protocolError: 0x1,
  internalError: 0x2,
  flowControlError: 0x3,
  settingsTimeout: 0x4,
  streamClosed: 0x5,
  frameSizeError: 0x6,
  refusedStream: 0x7,
  cancel: 0x8,
  compressionError: 0x9,
  connectError: 0xa,
  enhanceYourCalm: 0xb,
  inadequateSecurity: 0xc,
  http11Required: 0xd,
} as const;

const names: readonly string[] = [
  'NO_ERROR',
  'PROTOCOL_ERROR',
  'INTERNAL_ERROR',
  'FLOW_CONTROL_ERROR',
  'SETTINGS_TIMEOUT',
  'STREAM_CLOSED',
  'FRAME_SIZE_ERROR',
  'REFUSED_STREAM',
  'CANCEL',
  'COMPRESSION_ERROR',
  'CONNECT_ERROR',
  'ENHANCE_YOUR_CALM',
  'INADEQUATE_SECURITY',
  'HTTP_1_1_REQUIRED',
];

/** An error code as RFC 9113 names it (`ENHANCE_YOUR_CALM`), or its number in hex when it names none. */
export function errorCodeName(code: number): string {
  return names[code] ?? `0x${code.toString(16)}`;
}

/** A breach of the protocol by the peer, or more than it may make us hold: the connection ends with a GOAWAY carrying `code`. */
export class ConnectionError extends Error {
  readonly code: number;

  constructor(code: number, message: string) {
    super(message);
    this.code = code;
  }
}
