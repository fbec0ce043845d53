import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/core/logger.ts';

/** One parsed log line. */
export type LogLine = Record<string, unknown> & { level: number; msg?: string };

export interface MemoryLogger {
  /** The production logger (with its redaction), writing into `lines`. */
  logger: Logger;
  lines: LogLine[];
  /** Every line as written, for "this secret never appears" checks. */
  text(): string;
}

/** A real pino logger at `level` that keeps its output in memory. */
export function memoryLogger(level = 'debug'): MemoryLogger {
  const lines: LogLine[] = [];
  const raw: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      for (const line of String(chunk).split('\n').filter(Boolean)) {
        raw.push(line);
        lines.push(JSON.parse(line) as LogLine);
      }
      callback();
    },
  });
  return { logger: createLogger({ level }, destination), lines, text: () => raw.join('\n') };
}
