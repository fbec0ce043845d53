import { loggedOutcomes, type LoggedOutcome, type RangeKey } from '../../core/ports/delivery-log-store.ts';
import { ErrorCode, fail } from '../../core/errors.ts';

/** Where a push's listing goes on: entry `index` of `outcome` in slice `sliceKey` of push `pushId`. */
export interface PushCursor {
  pushId: string;
  sliceKey: string;
  outcome: LoggedOutcome;
  index: number;
}

/**
 * Cursors are opaque to callers: base64url of a small JSON array, tagged by
 * the listing that gave it, so that one is never taken for the other. They
 * name a position, not an offset: a page goes on where the last ended even
 * when entries were written meanwhile.
 */
export function encodePushCursor(cursor: PushCursor): string {
  return encode(['p', cursor.pushId, cursor.sliceKey, loggedOutcomes.indexOf(cursor.outcome), cursor.index]);
}

export function decodePushCursor(text: string): PushCursor {
  const parts = decode(text);
  const [tag, pushId, sliceKey, outcome, index] = parts;
  if (tag !== 'p' || typeof pushId !== 'string' || typeof sliceKey !== 'string' || !isIndex(outcome) || loggedOutcomes[outcome] === undefined || !isIndex(index)) return badCursor();
  return { pushId, sliceKey, outcome: loggedOutcomes[outcome], index };
}

/** An installation's listing goes on after this range row. */
export function encodeRangeCursor(key: RangeKey): string {
  return encode(['i', key.writtenAt, key.pushId, key.sliceKey]);
}

export function decodeRangeCursor(text: string): RangeKey {
  const [tag, writtenAt, pushId, sliceKey] = decode(text);
  if (tag !== 'i' || !isIndex(writtenAt) || typeof pushId !== 'string' || typeof sliceKey !== 'string') return badCursor();
  return { writtenAt, pushId, sliceKey };
}

function encode(parts: unknown[]): string {
  return Buffer.from(JSON.stringify(parts)).toString('base64url');
}

function decode(text: string): unknown[] {
  if (text.length > 1024 || !/^[A-Za-z0-9_-]+$/.test(text)) return badCursor();
  try {
    const parsed: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    return Array.isArray(parsed) ? parsed : badCursor();
  } catch {
    return badCursor();
  }
}

function isIndex(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function badCursor(): never {
  return fail(ErrorCode.internal, 'cursor is not one this listing answered: pass the nextCursor of the page before, unchanged');
}
