/** What we tell the server (RFC 9113, 6.5.2). */
export const ourSettings = {
  /** SETTINGS_ENABLE_PUSH: a client of a gateway has nothing to be pushed. */
  enablePush: 0,
  /** SETTINGS_INITIAL_WINDOW_SIZE: answers are small; this lets any of them arrive whole. */
  initialWindowSize: 256 * 1024,
  /** SETTINGS_MAX_HEADER_LIST_SIZE: more than any gateway answer needs; a decoded list over it is refused. */
  maxHeaderListSize: 64 * 1024,
} as const;

/** Our connection receive window, raised from 65,535 at the start so that answers on many streams never wait for it. */
export const ourConnectionWindow = 16 * 1024 * 1024;

/** The default frame size, which we never raise: a longer frame is a connection error. */
export const ourMaxFrameSize = 16_384;

/** Stream ids are 31 bits and odd from the client; past the last one the connection is replaced. */
export const largestStreamId = 2 ** 31 - 1;

/** What an answer's header block may take: the list we allow and a frame, in at most 8 CONTINUATION frames. */
export const headerBlockLimits = { bytes: ourSettings.maxHeaderListSize + ourMaxFrameSize, continuations: 8 } as const;

/** Header values in one request, at most: their block then fits the smallest frame a server may allow (16,384). */
export const largestRequestHeaders = 8 * 1024;
