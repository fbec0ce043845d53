import type { TransportFailure } from '../transport-failure.ts';
import type { HeaderList } from './hpack-decoder.ts';

/** One POST to a gateway: `:method`, `:scheme` and `:authority` are the connection's. */
export interface H2Request {
  readonly path: string;
  /**
   * Whether the path is the same on every request (FCM's), so that it enters
   * the header table; APNs's carries the device token and stays out of it.
   */
  readonly pathRepeats: boolean;
  /** Other headers as names and values alternating; lower-case names, octet-string values. */
  readonly headers: readonly string[];
  readonly body: Buffer;
}

/** What a stream reports to whoever sent it, exactly once: an answer, or why there is none. */
export interface H2StreamOwner {
  readonly request: H2Request;
  /** The whole answer arrived. `body` is kept only for answers other than 200, and at most 64 KiB of it. */
  answered(status: number, headers: HeaderList, body: Buffer | undefined): void;
  failed(failure: TransportFailure): void;
}
