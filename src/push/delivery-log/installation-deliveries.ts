import type { Caller } from '../../accounts/account-deps.ts';
import type { LoggedOutcome, RangeKey } from '../../core/ports/delivery-log-store.ts';
import { ErrorCode, fail } from '../../core/errors.ts';
import { deliveryEventJson, type DeliveryEvent } from '../outcomes/delivery-event.ts';
import { decodeRangeCursor, encodeRangeCursor } from './delivery-cursor.ts';
import { readDeliveryFilter } from './delivery-filter.ts';
import type { DeliveryLogDeps } from './delivery-log-deps.ts';
import { deliveryLogPolicy } from './delivery-log-policy.ts';
import { decodeEntries } from './entries-codec.ts';
import { deliveryLogBucket, filterMayHold } from './installation-filter.ts';
import { requireMaster, type DeliveryPage } from './push-deliveries.ts';

const objectIdPattern = /^[A-Za-z0-9]{1,64}$/;
const rangePage = 200;
/** Range rows looked at and slices read for one page at most; then the page ends with a cursor. */
const maxRangeRows = 5000;
const maxSliceReads = 200;

export interface InstallationScanOptions {
  outcomes: readonly LoggedOutcome[];
  reason: string | null;
  /** Only this push's entries. */
  pushId?: string;
  /** Slices written before this time (Unix ms) are not looked at. */
  since: number;
  before: RangeKey | null;
  limit: number;
}

/** What a scan of an installation's slices found, and the range row to go on after (null when it read them all). */
export interface InstallationScan {
  events: DeliveryEvent[];
  next: RangeKey | null;
}

/**
 * An installation's entries, newest first: the range rows of its bucket
 * whose lowest and highest objectId enclose it and whose filter may hold it
 * name the slices to read (about 2% of the others are read for nothing); a
 * range row older than its slice (a slice redone since) is skipped, the
 * redone slice's own row counts.
 */
export async function scanInstallation(deps: DeliveryLogDeps, appId: string, objectId: string, options: InstallationScanOptions): Promise<InstallationScan> {
  const log = deps.store.deliveries;
  const bucket = deliveryLogBucket(objectId);
  const events: DeliveryEvent[] = [];
  let before = options.before;
  let looked = 0;
  let reads = 0;
  for (;;) {
    const rows = await log.listRanges(appId, bucket, { before, since: options.since, limit: rangePage });
    for (const row of rows) {
      looked += 1;
      before = row;
      if ((options.pushId !== undefined && row.pushId !== options.pushId) || objectId < row.low || objectId > row.high || !filterMayHold(row.filter, objectId)) continue;
      reads += 1;
      const read = await log.readSlice(appId, row.pushId, row.sliceKey, options.outcomes);
      if (read === null || read.writtenAt !== row.writtenAt) continue;
      for (const outcome of options.outcomes) {
        for (const event of decodeEntries(read.entries[outcome], { appId, pushId: row.pushId, sliceKey: row.sliceKey })) {
          if (event.installation === objectId && (options.reason === null || event.reason === options.reason)) events.push(event);
        }
      }
      if (events.length >= options.limit || looked >= maxRangeRows || reads >= maxSliceReads) return { events, next: row };
    }
    if (rows.length < rangePage) return { events, next: null };
  }
}

/** How far back an app's entries may go: its retention, and a day for clocks and slices that ended late. */
export function logHorizon(deps: DeliveryLogDeps, caller: Caller): number {
  const policy = deliveryLogPolicy(deps.settings, caller.app.config.settings);
  return deps.clock.now() - policy.retentionMs - 86_400_000;
}

/**
 * `GET /1.1/installations/<objectId>/deliveries`: the installation's entries
 * of every push within the retention, newest first, filtered and paged like
 * a push's. The installation need not exist any more: one removed because
 * its token was unregistered keeps its entries, that one included.
 */
export async function listInstallationDeliveries(deps: DeliveryLogDeps, caller: Caller, objectId: string, params: Readonly<Record<string, unknown>>): Promise<DeliveryPage> {
  requireMaster(caller);
  if (!objectIdPattern.test(objectId)) fail(ErrorCode.objectNotFound, 'Could not find the installation.');
  const filter = readDeliveryFilter(params);
  const outcomes = filter.reason === null ? filter.outcomes : filter.outcomes.filter((outcome) => outcome !== 'delivered');
  if (outcomes.length === 0) return { results: [], nextCursor: null };
  const scan = await scanInstallation(deps, caller.app.config.id, objectId, {
    outcomes,
    reason: filter.reason,
    since: logHorizon(deps, caller),
    before: filter.cursor === null ? null : decodeRangeCursor(filter.cursor),
    limit: filter.limit,
  });
  // A slice holds an installation once: a page ends at a slice, never inside one.
  return { results: scan.events.map(deliveryEventJson), nextCursor: scan.next === null ? null : encodeRangeCursor(scan.next) };
}
