/** Frame types (RFC 9113, 6). */
export const FrameType = {
  data: 0x0,
  headers: 0x1,
  priority: 0x2,
  rstStream: 0x3,
  settings: 0x4,
  pushPromise: 0x5,
  ping: 0x6,
  goaway: 0x7,
  windowUpdate: 0x8,
  continuation: 0x9,
} as const;

/** Frame flags (RFC 9113, 6). */
export const FrameFlag = {
  endStream: 0x1,
  ack: 0x1,
  endHeaders: 0x4,
  padded: 0x8,
  priority: 0x20,
} as const;

/** Length, type, flags and stream id (RFC 9113, 4.1). */
export const frameHeaderLength = 9;
