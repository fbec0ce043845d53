import { gaveUpField, type PushCounts, type PushDoc, type SliceReport, type SliceResult, type UnregisteredInstallation } from '../core/ports/push-store.ts';

/** A result row as the adapters read it back. */
export interface SliceRow {
  counts: PushCounts;
  final: boolean;
}

/**
 * Most distinct `errorReasons` keys a record shows, `Other` included;
 * further ones add to `Other`. The sender writes only the documented reasons (well below this),
 * so the cap only bounds rows from before reasons were bounded, or a bad writer.
 */
export const maxReasonKeys = 128;

export function emptyPushCounts(): PushCounts {
  return { devices: 0, successes: 0, errors: 0, invalidTokens: 0, iosSuccesses: 0, androidSuccesses: 0, errorReasons: {} };
}

/** Reads counts stored as JSON, taking only finite numbers, so that a bad row cannot poison a sum. */
export function parsePushCounts(json: string): PushCounts {
  return countsOf(JSON.parse(json));
}

function countsOf(raw: unknown): PushCounts {
  const counts = emptyPushCounts();
  if (typeof raw !== 'object' || raw === null) return counts;
  const source = raw as Record<string, unknown>;
  for (const field of ['devices', 'successes', 'errors', 'invalidTokens', 'iosSuccesses', 'androidSuccesses'] as const) {
    counts[field] = finite(source[field]);
  }
  if (typeof source.errorReasons === 'object' && source.errorReasons !== null) {
    for (const [reason, count] of Object.entries(source.errorReasons)) addReason(counts.errorReasons, reason, finite(count));
  }
  return counts;
}

/**
 * The record as readers see it: the counters summed over its result rows, and
 * the status `Error` once the push was given up, or an `in-queue` status read
 * as `done` once as many final slices as the record's `expectedTasks` have
 * reported.
 */
export function withTotals(record: PushDoc, rows: Iterable<SliceRow>): PushDoc {
  const total = emptyPushCounts();
  let finalSlices = 0;
  for (const row of rows) {
    total.devices += row.counts.devices;
    total.successes += row.counts.successes;
    total.errors += row.counts.errors;
    total.invalidTokens += row.counts.invalidTokens;
    total.iosSuccesses += row.counts.iosSuccesses;
    total.androidSuccesses += row.counts.androidSuccesses;
    for (const [reason, count] of Object.entries(row.counts.errorReasons)) addReason(total.errorReasons, reason, count);
    if (row.final) finalSlices += 1;
  }
  const done = record.status === 'in-queue' && typeof record.expectedTasks === 'number' && finalSlices >= record.expectedTasks;
  const derived = record[gaveUpField] === true ? 'Error' : done ? 'done' : undefined;
  return { ...record, ...total, ...(derived === undefined ? {} : { status: derived }) };
}

/** Adds `count` to `reason`, or to `Other` once `reasons` holds `maxReasonKeys` keys with `Other`. */
function addReason(reasons: Record<string, number>, reason: string, count: number): void {
  const held = Object.hasOwn(reasons, reason);
  const key = held || reason === 'Other' || Object.keys(reasons).length < maxReasonKeys - 1 ? reason : 'Other';
  reasons[key] = (Object.hasOwn(reasons, key) ? (reasons[key] as number) : 0) + count;
}

function finite(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/** A slice's counts, continuation and installations still to remove as one JSON text, the form both adapters store. */
export function encodeSliceReport(result: SliceResult): string {
  const unregistered = result.unregistered ?? [];
  return JSON.stringify({ ...result.counts, next: result.next ?? null, ...(unregistered.length === 0 ? {} : { unregistered: unregistered.map(({ objectId, updatedAt }) => [objectId, updatedAt]) }) });
}

export function parseSliceReport(json: string, final: boolean): SliceReport {
  const raw: unknown = JSON.parse(json);
  const source = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
  const next = source.next;
  return { final, next: typeof next === 'string' ? next : null, counts: countsOf(raw), unregistered: parseUnregistered(source.unregistered) };
}

/** `[objectId, updatedAt]` pairs; anything else in the list is dropped (at worst an installation stays for the next push to find). */
function parseUnregistered(value: unknown): UnregisteredInstallation[] {
  if (!Array.isArray(value)) return [];
  const found: UnregisteredInstallation[] = [];
  for (const pair of value) {
    if (Array.isArray(pair) && typeof pair[0] === 'string' && typeof pair[1] === 'string') found.push({ objectId: pair[0], updatedAt: pair[1] });
  }
  return found;
}
