/**
 * The JSON line of one delivery log entry, `[installation, tokenSuffix,
 * messageId, latencyMs, offset]`, written straight into the slice's buffer
 * without a string or an array per device: the common entry (ASCII ids
 * with nothing to escape, a latency in 0.1 ms steps, a whole offset) is
 * written byte by byte; anything else answers -1, and the encoder writes
 * that entry through `JSON.stringify` instead. Both give the same JSON
 * value.
 */

const quote = 0x22;
const backslash = 0x5c;
const comma = 0x2c;
const dot = 0x2e;
const zero = 0x30;
const open = 0x5b;
const close = 0x5d;
const newline = 0x0a;
/** Characters of a token kept: its suffix. */
export const tokenSuffixLength = 8;

/** Bytes the line may take on the fast path: each id's characters, the numbers and the punctuation. */
export function entryLineBound(installation: string | null, messageId: string | null): number {
  return (installation?.length ?? 4) + tokenSuffixLength + (messageId?.length ?? 4) + 64;
}

/** Writes the entry's line (with its line break) at `at`, which must have `entryLineBound` bytes free; the position after it, or -1 when this entry needs `JSON.stringify`. */
export function writeEntryLine(
  buffer: Buffer,
  at: number,
  installation: string | null,
  token: string | null,
  messageId: string | null,
  latencyMs: number,
  offset: number,
): number {
  let position = at;
  buffer[position++] = open;
  position = writeString(buffer, position, installation, 0);
  if (position < 0) return -1;
  buffer[position++] = comma;
  position = writeString(buffer, position, token, token === null ? 0 : Math.max(0, token.length - tokenSuffixLength));
  if (position < 0) return -1;
  buffer[position++] = comma;
  position = writeString(buffer, position, messageId, 0);
  if (position < 0) return -1;
  buffer[position++] = comma;
  const tenths = Math.round(latencyMs * 10);
  if (!(tenths >= 0 && tenths <= Number.MAX_SAFE_INTEGER && tenths / 10 === latencyMs)) return -1;
  position = writeWhole(buffer, position, Math.floor(tenths / 10));
  const fraction = tenths % 10;
  if (fraction !== 0) {
    buffer[position++] = dot;
    buffer[position++] = zero + fraction;
  }
  buffer[position++] = comma;
  if (!(Number.isSafeInteger(offset) && offset >= 0)) return -1;
  position = writeWhole(buffer, position, offset);
  buffer[position++] = close;
  buffer[position++] = newline;
  return position;
}

/** `text` from `from` as a JSON string, or `null`; -1 when a character would need escaping or is not ASCII. */
function writeString(buffer: Buffer, at: number, text: string | null, from: number): number {
  let position = at;
  if (text === null) {
    buffer[position++] = 0x6e; // n
    buffer[position++] = 0x75; // u
    buffer[position++] = 0x6c; // l
    buffer[position++] = 0x6c; // l
    return position;
  }
  buffer[position++] = quote;
  for (let index = from; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || code > 0x7e || code === quote || code === backslash) return -1;
    buffer[position++] = code;
  }
  buffer[position++] = quote;
  return position;
}

/** A non-negative safe integer in decimal digits. */
function writeWhole(buffer: Buffer, at: number, value: number): number {
  let digits = 1;
  for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) digits += 1;
  let rest = value;
  for (let index = at + digits - 1; index >= at; index -= 1) {
    buffer[index] = zero + (rest % 10);
    rest = Math.floor(rest / 10);
  }
  return at + digits;
}
