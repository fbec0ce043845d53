import { createReadStream } from 'node:fs';
import { RowScanner, defaultMaxRowBytes, type RawRow, type ScanPosition } from './row-scanner.ts';
import type { ExportFile } from './export-file.ts';

/** Bytes read from disk at a time. */
const chunkBytes = 1024 * 1024;

export interface ExportRowsOptions {
  /** Where to start: the file's `dataStart`, or a checkpoint of an earlier run. */
  from: ScanPosition;
  maxRowBytes?: number;
  /** Told about a problem with the file as a whole (e.g. an array that is never closed). */
  onFileProblem?: (problem: string) => void;
}

/**
 * The rows of an export file, streamed: memory holds one chunk and one row
 * at most, whatever the file's size. Stopping the iteration closes the file.
 */
export async function* readExportRows(file: ExportFile, options: ExportRowsOptions): AsyncGenerator<RawRow> {
  const scanner = new RowScanner(file.layout, options.from, options.maxRowBytes ?? defaultMaxRowBytes);
  if (options.from.offset >= file.size) return;
  const stream = createReadStream(file.path, { start: options.from.offset, highWaterMark: chunkBytes });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      yield* scanner.push(chunk);
      if (scanner.closed) break;
    }
    const { rows, problem } = scanner.finish();
    yield* rows;
    if (problem !== undefined) options.onFileProblem?.(problem);
  } finally {
    stream.destroy();
  }
}
