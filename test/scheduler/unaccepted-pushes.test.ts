import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { isoTime } from '../../src/core/clock.ts';
import { silentLogger } from '../../src/core/logger.ts';
import type { PushDoc } from '../../src/core/ports/push-store.ts';
import { scheduledEntry } from '../../src/push/submit/scheduled-entry.ts';
import { unacceptedGraceMs, UnacceptedPushes } from '../../src/scheduler/unaccepted-pushes.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { ManualClock } from '../support/manual-clock.ts';

const minute = 60_000;
const lookbackMs = 3 * 60 * minute;
const clock = new ManualClock();
let dir: string;
let store: SqliteStore;
/** Each test's own app, so that records of one test never reach another's sweep. */
let appId: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'herald-unaccepted-'));
  store = new SqliteStore({ file: join(dir, 'herald.db'), classes: {}, clock });
});
let apps = 0;
beforeEach(() => {
  apps += 1;
  appId = `unaccepted-app-${apps}`;
});
afterAll(async () => {
  await store?.close();
  await rm(dir, { recursive: true, force: true });
});

let serial = 0;
/** A record written `minutesAgo` before the clock's now, as submitPush writes it. */
async function written(minutesAgo: number, fields: Record<string, unknown> = {}): Promise<PushDoc> {
  serial += 1;
  const at = isoTime(clock.now() - minutesAgo * minute);
  const record: PushDoc = { objectId: `r${serial}`, createdAt: at, updatedAt: at, notificationId: `n${serial}`, status: 'in-queue', data: { alert: 'hi' }, _accepted: false, ...fields };
  await store.pushes.insert(appId, record);
  return record;
}

function sweep(): Promise<number> {
  return new UnacceptedPushes({ store, clock, logger: silentLogger(), appIds: () => [appId], lookbackMs }).remove(new AbortController().signal);
}

async function read(record: PushDoc): Promise<PushDoc | null> {
  return store.pushes.getRecord(appId, record.objectId);
}

it('removes what a stopped API node left unaccepted past the grace, and nothing else', async () => {
  const graceMinutes = unacceptedGraceMs / minute;
  const orphan = await written(graceMinutes + 1);
  const orphanScheduled = await written(graceMinutes + 2, { status: 'scheduled', _scheduledId: 7001, push_time: isoTime(clock.now() + 60 * minute) });
  const young = await written(graceMinutes - 1);
  const accepted = await written(graceMinutes + 3, { _accepted: true });
  const fromAnOlderVersion = await written(graceMinutes + 4, { _accepted: undefined });
  const fannedOut = await written(graceMinutes + 5, { expectedTasks: 4 });
  const failedByTheEngine = await written(graceMinutes + 6, { status: 'Error', errorMessage: 'Sending failed: x' });
  const beyondLookback = await written(lookbackMs / minute + 1);

  expect(await sweep()).toBe(2);

  for (const removed of [orphan, orphanScheduled]) expect(await read(removed)).toBeNull();
  for (const untouched of [young, accepted, fromAnOlderVersion, fannedOut, failedByTheEngine, beyondLookback]) {
    expect(await read(untouched)).toMatchObject({ status: untouched.status, updatedAt: untouched.updatedAt });
  }
  // Removed once: a second sweep finds nothing left.
  expect(await sweep()).toBe(0);
});

it('flags a scheduled record whose entry was written as accepted instead of removing it', async () => {
  const dueAt = clock.now() + 60 * minute;
  const record = await written(unacceptedGraceMs / minute + 1, { status: 'scheduled', _scheduledId: 7002, push_time: isoTime(dueAt) });
  await store.scheduled.add(scheduledEntry(appId, 7002, record, dueAt));

  expect(await sweep()).toBe(0);

  expect(await read(record)).toMatchObject({ status: 'scheduled', _accepted: true });
  expect(await store.scheduled.get(appId, 7002)).not.toBeNull();
});

it('removes a record once its grace has passed, on a later sweep', async () => {
  const record = await written(1);
  expect(await sweep()).toBe(0);
  expect(await read(record)).toMatchObject({ status: 'in-queue' });

  clock.advance(unacceptedGraceMs);
  expect(await sweep()).toBe(1);
  expect(await read(record)).toBeNull();
});
