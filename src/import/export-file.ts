import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { classFromFileName } from './export-classes.ts';
import type { ExportLayout, ScanPosition } from './row-scanner.ts';

/** What an import needs to know about one export file before reading its rows. */
export interface ExportFile {
  /** As given on the command line. */
  path: string;
  size: number;
  /** From the file's header, else from its name; null when neither tells. */
  className: string | null;
  layout: ExportLayout;
  /** Where the first row may start. */
  dataStart: ScanPosition;
  /** Size and digests of the file's first and last bytes: a resumed import refuses a file that changed. */
  fingerprint: string;
}

const headBytes = 64 * 1024;
const headerPrefix = '#filetype:JSON-streaming ';

/**
 * Reads the start of an export file: the hosted service's console exports
 * JSON Lines (`.jsonl`) whose first line is `#filetype:JSON-streaming
 * {"type":"Class","class":"_User"}`; its older exports and its import
 * format are a JSON array, or an object `{"results": [...]}`. A `.jsonl`
 * file is always read as JSON Lines.
 */
export async function describeExportFile(path: string): Promise<ExportFile> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    const head = Buffer.alloc(Math.min(size, headBytes));
    await handle.read(head, 0, head.length, 0);
    const tail = Buffer.alloc(Math.min(size, headBytes));
    await handle.read(tail, 0, tail.length, size - tail.length);
    const fingerprint = `${size}:${createHash('sha256').update(head).update(tail).digest('hex').slice(0, 32)}`;
    const bom = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
    const text = head.toString('latin1', bom);
    const headerClass = classFromHeader(text);
    const className = headerClass ?? classFromFileName(path);
    const forcedLines = /\.(jsonl|ndjson)$/i.test(path);
    const array = forcedLines ? null : /^\s*(\{\s*"results"\s*:\s*)?\[/.exec(text);
    if (array === null) return { path, size, className, layout: 'lines', dataStart: { offset: bom, line: 1 }, fingerprint };
    const opened = array[0];
    return { path, size, className, layout: 'array', dataStart: { offset: bom + opened.length, line: 1 + countNewlines(opened) }, fingerprint };
  } finally {
    await handle.close();
  }
}

function classFromHeader(text: string): string | null {
  if (!text.startsWith(headerPrefix)) return null;
  const end = text.indexOf('\n');
  const json = text.slice(headerPrefix.length, end < 0 ? undefined : end).trim();
  try {
    const header: unknown = JSON.parse(Buffer.from(json, 'latin1').toString('utf8'));
    const className = header !== null && typeof header === 'object' ? (header as Record<string, unknown>).class : undefined;
    return typeof className === 'string' && className !== '' ? className : null;
  } catch {
    return null;
  }
}

function countNewlines(text: string): number {
  let count = 0;
  for (const char of text) if (char === '\n') count += 1;
  return count;
}
