import type { GatewayName } from '../gateways/delivery.ts';
import { deliveryEventVersion, type DeliveryEvent } from '../outcomes/delivery-event.ts';
import type { Platform } from '../requests/push-request.ts';

/**
 * The stored form of a slice's entries of one outcome: one JSON object of
 * columns (one array per field, or a single value when every entry has the
 * same), times as offsets from the slice's first. A slice of a thousand
 * delivered iOS devices repeats its platform, gateway, reason, status and
 * attempts once, not a thousand times; what stays per entry is the
 * installation, the token's suffix, the `apns-id`, the latency and the time.
 * The app, push and slice are the row's, not the entries'.
 */
interface EntryColumns {
  /** Format version of this blob. */
  f: 1;
  n: number;
  /** `at` of the first entry; `at` holds offsets from it. */
  b: number;
  i: Column<string | null>;
  t: Column<string | null>;
  p: Column<Platform>;
  g: Column<GatewayName>;
  o: Column<DeliveryEvent['outcome']>;
  r: Column<string | null>;
  u: Column<boolean>;
  s: Column<number | null>;
  m: Column<string | null>;
  a: Column<number>;
  l: Column<number>;
  at: Column<number>;
}

/** Every entry's value, or the one value they all have. */
type Column<T> = T | T[];

const empty = Buffer.alloc(0);

/** Entries of one slice and outcome as stored; an empty buffer for none. */
export function encodeEntries(events: readonly DeliveryEvent[]): Buffer {
  const n = events.length;
  if (n === 0) return empty;
  const base = (events[0] as DeliveryEvent).at;
  const columns: EntryColumns = {
    f: 1,
    n,
    b: base,
    i: column(events, (event) => event.installation),
    t: column(events, (event) => event.tokenSuffix),
    p: column(events, (event) => event.platform),
    g: column(events, (event) => event.gateway),
    o: column(events, (event) => event.outcome),
    r: column(events, (event) => event.reason),
    u: column(events, (event) => event.unregistered),
    s: column(events, (event) => event.status),
    m: column(events, (event) => event.messageId),
    a: column(events, (event) => event.attempts),
    l: column(events, (event) => event.latencyMs),
    at: column(events, (event) => event.at - base),
  };
  return Buffer.from(JSON.stringify(columns));
}

/** The entries of a stored blob as events of `row` (the app, push and slice the row is of). */
export function decodeEntries(blob: Buffer | undefined, row: Pick<DeliveryEvent, 'appId' | 'pushId' | 'sliceKey'>): DeliveryEvent[] {
  if (blob === undefined || blob.length === 0) return [];
  const columns = JSON.parse(blob.toString('utf8')) as EntryColumns;
  if (columns.f !== 1) throw new Error(`delivery log entries of an unknown format (${String(columns.f)})`);
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

function column<T extends string | number | boolean | null>(events: readonly DeliveryEvent[], read: (event: DeliveryEvent) => T): Column<T> {
  const first = read(events[0] as DeliveryEvent);
  let same = true;
  const values: T[] = new Array<T>(events.length);
  for (let index = 0; index < events.length; index += 1) {
    const value = read(events[index] as DeliveryEvent);
    values[index] = value;
    if (value !== first) same = false;
  }
  return same ? first : values;
}

function at<T>(values: Column<T>, index: number): T {
  return Array.isArray(values) ? (values[index] as T) : values;
}
