import type { LogLine } from './memory-logger.ts';

/** A request Herald answered, as its request log recorded it. */
export interface ServedRequest {
  method: string;
  /** The path without the query string. */
  path: string;
  /** The query string's parameters. */
  query: URLSearchParams;
  status: number;
  /** Names of the headers sent, lowercase (their values may be redacted in the log). */
  headers: string[];
}

interface RequestLogLine {
  req: { method: string; url: string; headers: Record<string, unknown> };
  res: { statusCode: number };
}

function isRequestLine(line: LogLine): line is LogLine & RequestLogLine {
  const { req, res } = line as Partial<RequestLogLine>;
  return typeof req?.method === 'string' && typeof req.url === 'string' && typeof res?.statusCode === 'number';
}

/**
 * The requests in a Herald's log (a `memoryLogger` at debug level, where the
 * HTTP layer logs every answered request), in the order they were answered:
 * what a client really sent, seen from Herald's side.
 */
export function servedRequests(lines: readonly LogLine[]): ServedRequest[] {
  return lines.filter(isRequestLine).map(({ req, res }) => {
    const url = new URL(req.url, 'http://herald.invalid');
    return { method: req.method, path: url.pathname, query: url.searchParams, status: res.statusCode, headers: Object.keys(req.headers) };
  });
}
