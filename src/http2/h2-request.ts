import type { H2Failure } from './h2-failure.ts';

/** One POST: `:method`, `:scheme` and `:authority` are the connection's. */
export interface H2Request {
  readonly path: string;
  /**
   * Whether the path is the same on every request, so that it may enter the
   * header table; a path that changes with each request stays out of it.
   */
  readonly pathRepeats: boolean;
  /** Other headers as names and values alternating; lower-case names, octet-string values. */
  readonly headers: readonly string[];
  readonly body: Buffer;
}

/** The answer to one request, or why none came. */
export interface H2Answer {
  /** HTTP status; 0 when no answer arrived (`failure` says why). */
  readonly status: number;
  /** The body of an answer other than 200, at most `keptBodyLimit` of it (a 200's is not kept). */
  readonly body: Buffer | undefined;
  readonly failure: H2Failure | undefined;
  /** The first value of a header of the answer. */
  header(name: string): string | undefined;
}
