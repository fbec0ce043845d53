import type { Logger } from '../core/logger.ts';
import type { StrayFrameBudget } from './frame-limits.ts';
import type { H2Connection } from './h2-connection.ts';

/** How a connection speaks and when it gives up. */
export interface H2ConnectionSettings {
  /** `host:port` of the server, for messages. */
  peer: string;
  /** `:authority` of every request. */
  authority: string;
  /** A connection not ready within this is given up. */
  connectTimeoutMs: number;
  /** A PING goes out every interval; one unanswered for a whole interval drops the connection. */
  pingIntervalMs: number;
  /** The last stream id to use before the connection retires; 2^31-1 but in tests. */
  lastStreamId: number;
  /** Bounds on what the server may make the connection do; the defaults unless a test moves one. */
  limits?: Partial<H2ConnectionLimits>;
  logger: Logger | undefined;
}

/** Bounds on what a server may make a connection do beyond the protocol's own. */
export interface H2ConnectionLimits {
  /** Frames that move nothing forward (`FrameLimits`). */
  strayFrames: StrayFrameBudget;
  /** Control frames owed to a server that does not read them (`ControlFrameQueue`). */
  controlFrames: number;
}

/** What a connection tells its pool. */
export interface H2ConnectionEvents {
  /** The server's settings arrived: streams may start. */
  ready(connection: H2Connection): void;
  /** A stream ended, so one more may start. */
  freed(connection: H2Connection): void;
  /** The connection takes no new streams (GOAWAY either way, stream ids used up, an error); those open go on unless it failed. */
  retired(connection: H2Connection): void;
  /** The socket closed; `error` says why when the connection never became ready. */
  closed(connection: H2Connection, error: Error | undefined): void;
}
