import { setTimeout as delay } from 'node:timers/promises';
import { ErrorCode, HeraldError } from '../core/errors.ts';
import type { StoredObject } from '../core/ports/object-store.ts';
import { maxNestingDepth, nestsTooDeep } from '../query/json-nesting.ts';
import { isJsonObject } from '../query/json-value.ts';
import type { ClassWriter, RowOutcome } from './class-writer.ts';
import type { ExportFile } from './export-file.ts';
import { readExportRows } from './export-rows.ts';
import type { RawRow, ScanPosition } from './row-scanner.ts';

/** One row once settled. */
export interface SettledRow {
  raw: RawRow;
  /** The parsed row, when it was JSON. */
  row: unknown;
  objectId?: string;
  outcome: RowOutcome;
}

export interface FileImportContext {
  file: ExportFile;
  writer: ClassWriter;
  /** Where to start reading: the file's first row, or an earlier run's checkpoint. */
  from: ScanPosition;
  /** How many rows from `from` on an interrupted run may have written: those found stored are repaired. */
  repairRows: number;
  /** Writes in flight at once (each a row, or a batch of installations). */
  concurrency: number;
  dryRun: boolean;
  /** Aborting stops reading; the rows in flight are finished and settled. */
  signal: AbortSignal;
  maxRowBytes?: number;
  /** Rows settled, in file order, with the position after the last of them: a checkpoint. */
  onSettled: (rows: readonly SettledRow[], position: ScanPosition) => void;
  /** How far the file has been read, for progress. */
  onRead: (offset: number) => void;
  onFileProblem: (problem: string) => void;
}

/** Attempts of a write whose store answered "unavailable, retry" before the import stops. */
const maxAttempts = 6;

interface PendingRow {
  raw: RawRow;
  row: unknown;
  object?: StoredObject;
  outcome?: RowOutcome;
}

interface Unit {
  rows: PendingRow[];
  settled: boolean;
  failed: boolean;
}

/**
 * Imports one file: reads its rows in order, writes up to `concurrency`
 * units (rows, or batches) at once, and settles them strictly in file
 * order, so a checkpoint always means "every row before this offset is
 * done". Rows that claim a unique value an earlier row in flight also
 * claims wait for it, so the first row in the file wins, as it would in a
 * one-by-one import. Answers whether the file was read to its end; throws
 * the store's error when it keeps failing, after settling what it can.
 */
export async function importFile(context: FileImportContext): Promise<'done' | 'stopped'> {
  const { writer, signal } = context;
  const units: Unit[] = [];
  const running = new Set<Promise<void>>();
  const keyOwners = new Map<string, Promise<void>>();
  let failure: { error: unknown } | null = null;
  let rowsRead = 0;

  const settleReady = (): void => {
    const settled: SettledRow[] = [];
    let position: ScanPosition | null = null;
    while (units[0]?.settled && !units[0].failed) {
      const unit = units.shift() as Unit;
      for (const pending of unit.rows) {
        const outcome = pending.outcome ?? { kind: 'rejected', code: ErrorCode.internal, reason: 'no outcome' };
        settled.push({ raw: pending.raw, row: pending.row, objectId: pending.object?.objectId, outcome });
      }
      const last = unit.rows.at(-1)?.raw;
      if (last !== undefined) position = { offset: last.end, line: last.endLine };
    }
    if (position !== null) context.onSettled(settled, position);
  };

  const dispatch = async (rows: PendingRow[]): Promise<void> => {
    while (running.size >= context.concurrency) await Promise.race(running);
    const unit: Unit = { rows, settled: false, failed: false };
    const targets = rows.filter((pending) => pending.object !== undefined);
    const objects = targets.map((pending) => pending.object as StoredObject);
    const keys = [...new Set(objects.flatMap((object) => writer.keysOf(object)))];
    const before = [...new Set(keys.flatMap((key) => keyOwners.get(key) ?? []))];
    const repair = rowsRead - rows.length < context.repairRows;
    const work = (async () => {
      await Promise.all(before);
      if (objects.length === 0) return;
      const outcomes = await writeWithRetry(writer, objects, { dryRun: context.dryRun, repair }, signal);
      targets.forEach((pending, index) => {
        pending.outcome = outcomes[index];
      });
    })().then(
      () => {
        unit.settled = true;
      },
      (error: unknown) => {
        unit.settled = true;
        unit.failed = true;
        failure ??= { error };
      },
    );
    const done = work.finally(() => {
      running.delete(done);
      for (const key of keys) if (keyOwners.get(key) === done) keyOwners.delete(key);
      settleReady();
    });
    running.add(done);
    for (const key of keys) keyOwners.set(key, done);
    units.push(unit);
  };

  let batch: PendingRow[] = [];
  let complete = true;
  for await (const raw of readExportRows(context.file, { from: context.from, maxRowBytes: context.maxRowBytes, onFileProblem: context.onFileProblem })) {
    if (signal.aborted || failure !== null) {
      complete = false;
      break;
    }
    rowsRead += 1;
    batch.push(prepareRow(writer, raw));
    context.onRead(raw.end);
    if (batch.length >= writer.batchSize) {
      await dispatch(batch);
      batch = [];
    }
  }
  if (complete && batch.length > 0) await dispatch(batch);
  while (running.size > 0) await Promise.race(running);
  settleReady();
  if (failure !== null) throw (failure as { error: unknown }).error;
  return complete && !signal.aborted ? 'done' : 'stopped';
}

/** Parses and checks one row; a row that cannot be taken gets its outcome here. */
function prepareRow(writer: ClassWriter, raw: RawRow): PendingRow {
  if (raw.text === null) return { raw, row: null, outcome: rejected(ErrorCode.internal, raw.problem ?? 'the row cannot be read') };
  let row: unknown;
  try {
    row = JSON.parse(raw.text);
  } catch (error) {
    return { raw, row: raw.text, outcome: rejected(ErrorCode.invalidJson, `the row is not JSON: ${(error as Error).message}`) };
  }
  // As deep a row as the API would refuse in a body: nothing after this walks it (the reject file keeps its text).
  if (nestsTooDeep(row)) return { raw, row: raw.text, outcome: rejected(ErrorCode.invalidJson, `the row nests deeper than ${maxNestingDepth} levels`) };
  if (!isJsonObject(row)) return { raw, row, outcome: rejected(ErrorCode.invalidJson, 'the row is not a JSON object') };
  try {
    return { raw, row, object: writer.prepare(row) };
  } catch (error) {
    if (!(error instanceof HeraldError)) throw error;
    return { raw, row, outcome: rejected(error.code, error.message) };
  }
}

function rejected(code: number, reason: string): RowOutcome {
  return { kind: 'rejected', code, reason };
}

/** Writes, trying again with growing pauses while the store answers that it is unavailable for now. */
async function writeWithRetry(writer: ClassWriter, objects: StoredObject[], options: { dryRun: boolean; repair: boolean }, signal: AbortSignal): Promise<RowOutcome[]> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await writer.write(objects, options);
    } catch (error) {
      if (!(error instanceof HeraldError && error.retryable) || attempt >= maxAttempts || signal.aborted) throw error;
      await delay(Math.min(5000, 200 * 2 ** attempt));
    }
  }
}
