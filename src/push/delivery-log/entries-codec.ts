import type { GatewayName } from '../gateways/delivery.ts';
import { deliveryEventVersion, tokenSuffixOf, type DeliveryEvent, type DeliveryEventOutcome } from '../outcomes/delivery-event.ts';
import { entryLineBound, writeEntryLine } from './entry-line.ts';
import type { Platform } from '../requests/push-request.ts';

/**
 * The stored form of a slice's entries of one outcome (format 2): UTF-8
 * lines of JSON, written as each device's outcome becomes known, so that no
 * object per device waits for the slice's end.
 * - The first line: `{"f":2,"b":<at of the first entry>}`.
 * - `{…}` lines: the fields entries share until the next such line
 *   (`o` outcome, `p` platform, `g` gateway, `r` reason, `u` unregistered,
 *   `s` status, `a` attempts). A slice of a thousand delivered iOS devices writes them
 *   once.
 * - `[…]` lines: one entry each, `[installation, tokenSuffix, messageId,
 *   latencyMs, at - b]`.
 * JSON escapes line breaks inside strings, so a line is always one value.
 * The app, push and slice are the row's, not the entries'.
 *
 * Format 1 (one JSON object of columns), written before, is still read.
 */
const format = 2;

/** The fields consecutive entries usually share. */
interface SharedFields {
  o: DeliveryEventOutcome;
  p: Platform;
  g: GatewayName;
  r: string | null;
  u: boolean;
  s: number | null;
  a: number;
}

const empty = Buffer.alloc(0);
const newline = 0x0a;

/** One slice's entries of one outcome, encoded as they are added. */
export class EntryEncoder {
  #buffer: Buffer = empty;
  #length = 0;
  #base = 0;
  #outcome: DeliveryEventOutcome | undefined;
  #platform: Platform | undefined;
  #gateway: GatewayName | undefined;
  #reason: string | null | undefined;
  #unregistered: boolean | undefined;
  #status: number | null | undefined;
  #attempts: number | undefined;

  /** `token`: the device's token or registrationId sent to, or its suffix (`tokenSuffixOf`); the suffix is what is kept. */
  add(
    installation: string | null,
    token: string | null,
    platform: Platform,
    gateway: GatewayName,
    outcome: DeliveryEventOutcome,
    reason: string | null,
    unregistered: boolean,
    status: number | null,
    messageId: string | null,
    attempts: number,
    latencyMs: number,
    at: number,
  ): void {
    if (this.#length === 0) {
      this.#base = at;
      this.#line(JSON.stringify({ f: format, b: at }));
    }
    if (
      outcome !== this.#outcome ||
      platform !== this.#platform ||
      gateway !== this.#gateway ||
      reason !== this.#reason ||
      unregistered !== this.#unregistered ||
      status !== this.#status ||
      attempts !== this.#attempts
    ) {
      this.#outcome = outcome;
      this.#platform = platform;
      this.#gateway = gateway;
      this.#reason = reason;
      this.#unregistered = unregistered;
      this.#status = status;
      this.#attempts = attempts;
      const shared: SharedFields = { o: outcome, p: platform, g: gateway, r: reason, u: unregistered, s: status, a: attempts };
      this.#line(JSON.stringify(shared));
    }
    const offset = at - this.#base;
    this.#reserve(entryLineBound(installation, messageId));
    const end = writeEntryLine(this.#buffer, this.#length, installation, token, messageId, latencyMs, offset);
    if (end >= 0) this.#length = end;
    else this.#line(JSON.stringify([installation, token === null ? null : tokenSuffixOf(token), messageId, latencyMs, offset]));
  }

  /** Room for `bytes` more. */
  #reserve(bytes: number): void {
    const needed = this.#length + bytes;
    if (needed <= this.#buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(needed, this.#buffer.length * 2, 16_384));
    this.#buffer.copy(grown, 0, 0, this.#length);
    this.#buffer = grown;
  }

  /** The entries as stored; an empty buffer for none. */
  finish(): Buffer {
    return this.#length === 0 ? empty : Buffer.from(this.#buffer.subarray(0, this.#length));
  }

  #line(text: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 code unit.
    this.#reserve(text.length * 3 + 1);
    this.#length += this.#buffer.write(text, this.#length);
    this.#buffer[this.#length] = newline;
    this.#length += 1;
  }
}

/** What takes entries one by one, in `DeliveryEvent`'s fields (`EntryEncoder`, `SliceLog`). */
export interface EntryTarget {
  add: EntryEncoder['add'];
}

/** Adds each of `events` to `target`. */
export function addEvents(target: EntryTarget, events: readonly DeliveryEvent[]): void {
  for (const event of events) {
    target.add(
      event.installation,
      event.tokenSuffix,
      event.platform,
      event.gateway,
      event.outcome,
      event.reason,
      event.unregistered,
      event.status,
      event.messageId,
      event.attempts,
      event.latencyMs,
      event.at,
    );
  }
}

/** Entries as stored; an empty buffer for none. */
export function encodeEntries(events: readonly DeliveryEvent[]): Buffer {
  const encoder = new EntryEncoder();
  addEvents(encoder, events);
  return encoder.finish();
}

/** The entries of a stored blob as events of `row` (the app, push and slice the row is of). */
export function decodeEntries(blob: Buffer | undefined, row: Pick<DeliveryEvent, 'appId' | 'pushId' | 'sliceKey'>): DeliveryEvent[] {
  if (blob === undefined || blob.length === 0) return [];
  const text = blob.toString('utf8');
  return text.startsWith('{"f":1,') ? decodeColumns(text, row) : decodeLines(text, row);
}

function decodeLines(text: string, row: Pick<DeliveryEvent, 'appId' | 'pushId' | 'sliceKey'>): DeliveryEvent[] {
  const lines = text.split('\n');
  const header = JSON.parse(lines[0] ?? '') as { f: number; b: number };
  if (header.f !== format) throw new Error(`delivery log entries of an unknown format (${String(header.f)})`);
  const events: DeliveryEvent[] = [];
  let shared: SharedFields | undefined;
  for (let index = 1; index < lines.length; index += 1) {
    const line = lines[index] as string;
    if (line === '') continue;
    if (line.startsWith('{')) {
      shared = JSON.parse(line) as SharedFields;
      continue;
    }
    if (shared === undefined) throw new Error('delivery log entry before its shared fields');
    const [installation, tokenSuffix, messageId, latencyMs, offset] = JSON.parse(line) as [string | null, string | null, string | null, number, number];
    events.push({
      version: deliveryEventVersion,
      appId: row.appId,
      pushId: row.pushId,
      sliceKey: row.sliceKey,
      installation,
      tokenSuffix,
      platform: shared.p,
      gateway: shared.g,
      outcome: shared.o,
      reason: shared.r,
      unregistered: shared.u,
      status: shared.s,
      messageId,
      attempts: shared.a,
      latencyMs,
      at: header.b + offset,
    });
  }
  return events;
}

/** Format 1: one JSON object of columns (one array per field, or a single value every entry has), `at` as offsets from `b`. */
interface EntryColumns {
  f: 1;
  n: number;
  b: number;
  i: Column<string | null>;
  t: Column<string | null>;
  p: Column<Platform>;
  g: Column<GatewayName>;
  o: Column<DeliveryEventOutcome>;
  r: Column<string | null>;
  u: Column<boolean>;
  s: Column<number | null>;
  m: Column<string | null>;
  a: Column<number>;
  l: Column<number>;
  at: Column<number>;
}

type Column<T> = T | T[];

function decodeColumns(text: string, row: Pick<DeliveryEvent, 'appId' | 'pushId' | 'sliceKey'>): DeliveryEvent[] {
  const columns = JSON.parse(text) as EntryColumns;
  const events: DeliveryEvent[] = [];
  for (let index = 0; index < columns.n; index += 1) {
    events.push({
      version: deliveryEventVersion,
      appId: row.appId,
      pushId: row.pushId,
      sliceKey: row.sliceKey,
      installation: at(columns.i, index),
      tokenSuffix: at(columns.t, index),
      platform: at(columns.p, index),
      gateway: at(columns.g, index),
      outcome: at(columns.o, index),
      reason: at(columns.r, index),
      unregistered: at(columns.u, index),
      status: at(columns.s, index),
      messageId: at(columns.m, index),
      attempts: at(columns.a, index),
      latencyMs: at(columns.l, index),
      at: columns.b + at(columns.at, index),
    });
  }
  return events;
}

function at<T>(values: Column<T>, index: number): T {
  return Array.isArray(values) ? (values[index] as T) : values;
}
