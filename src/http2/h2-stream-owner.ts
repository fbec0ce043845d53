import type { H2Failure } from './h2-failure.ts';
import type { H2Request } from './h2-request.ts';
import type { HeaderList } from './hpack-decoder.ts';

/** What a stream reports to whoever sent it, exactly once: an answer, or why there is none. */
export interface H2StreamOwner {
  readonly request: H2Request;
  /** The whole answer arrived. `body` is kept only for answers other than 200, and at most `keptBodyLimit` of it. */
  answered(status: number, headers: HeaderList, body: Buffer | undefined): void;
  failed(failure: H2Failure): void;
}
