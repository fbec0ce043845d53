import { open } from 'node:fs/promises';

/** How many log lines a failure shows. */
export const logTailLines = 40;

/** The last `lines` lines of a log file, or a note saying why there are none. */
export async function readLogTail(file: string, lines = logTailLines): Promise<string> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    return `(no log at ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)})`;
  }
  try {
    const { size } = await handle.stat();
    // A window large enough for 40 lines of Java stack traces, small enough to read on every failure.
    const length = Math.min(size, 256 * 1024);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, size - length);
    const text = buffer.toString('utf8').replace(/\n+$/, '');
    if (!text) return `(${file} is empty)`;
    return text.split('\n').slice(-lines).join('\n');
  } finally {
    await handle.close();
  }
}
