import { resolve } from 'node:path';
import type { Clock } from '../core/clock.ts';
import type { BulkInserts, BulkWriteReport } from '../core/ports/bulk-inserts.ts';
import type { ClassWriter } from './class-writer.ts';
import { isImportedClass, skippedClassReason, type ImportedClass } from './export-classes.ts';
import { describeExportFile, type ExportFile } from './export-file.ts';
import { importFile, type SettledRow } from './file-import.ts';
import { ImportStateError, readImportState, removeImportState, writeImportState, type FileCheckpoint, type ImportState } from './import-state.ts';
import type { ImportStore } from './import-store.ts';
import { countOutcome, type Tally } from './import-tally.ts';
import { InstallationWriter } from './installation-writer.ts';
import { RejectFile, RejectSample, type RejectEntry, type RejectSink } from './reject-log.ts';
import type { ScanPosition } from './row-scanner.ts';
import { UserWriter } from './user-writer.ts';

export interface ImportOptions {
  appId: string;
  /** Export files, one class each, imported in this order. */
  files: readonly string[];
  /** Decide every row by reading the store, and write nothing: no objects, no reject file, no state. */
  dryRun: boolean;
  rejectsPath: string;
  statePath: string;
  /** Ignore the state of an interrupted run and read every file from its start. */
  restart: boolean;
  /** Writes in flight at once: statements, where the store takes bulk inserts (then fewer while it is slow); else rows or batches. */
  concurrency: number;
  /** With bulk inserts: how long the store may answer nothing before the import stops (default 60 s). */
  patienceMs?: number;
  installationBatch?: number;
  maxRowBytes?: number;
  /** Aborting stops at a row boundary: the rows in flight are finished, the checkpoint written. */
  signal?: AbortSignal;
  /** How many of a dry run's rejects the summary shows. */
  sampleRejects?: number;
}

export interface ImportDeps {
  store: ImportStore;
  clock: Clock;
  newSessionToken: () => string;
}

/** A file left out whole, and why. */
export interface SkippedFile {
  file: string;
  className: string | null;
  reason: string;
}

/** How an import ended and what it did: the summary the command prints. */
export interface ImportSummary {
  status: 'done' | 'interrupted' | 'failed';
  dryRun: boolean;
  /** By class, over every run of this import (a resumed one adds to the interrupted one's). */
  tally: Tally;
  /** Rows this run settled, and how long it took. */
  rowsThisRun: number;
  seconds: number;
  skippedFiles: SkippedFile[];
  /** Problems with a file as a whole, e.g. a JSON array that never closes. */
  fileProblems: { file: string; problem: string }[];
  /** Files finished by the interrupted run this one resumed. */
  resumedFiles: string[];
  rejectsPath: string | null;
  /** Where the checkpoint is kept when the import did not finish. */
  statePath: string | null;
  /** A dry run's first rejects. */
  sampleRejects: RejectEntry[];
  error?: string;
  /** What the writes met, where the store takes bulk inserts: statements answered and retried, timeouts, and how many it let in flight. */
  writes?: BulkWriteReport;
}

/** Live figures for a progress display. */
export interface ImportProgress {
  file: string;
  /** Bytes of all files to be read by this run, and read so far. */
  totalBytes: number;
  readBytes: number;
  rowsThisRun: number;
  startedAt: number;
}

/** How often the checkpoint is written while rows keep settling. */
const stateIntervalMs = 1000;
/**
 * With bulk inserts: batches of rows in flight at once (the statements in
 * flight are bounded by `concurrency`). A batch is done when its slowest row
 * is, so the rows in flight (this times the writer's batch) must be many for
 * the rows of one Cassandra partition to meet in one statement.
 */
export const bulkBatchesInFlight = 8;
const defaultPatienceMs = 60_000;

/**
 * Imports export files into one app: each file's rows in order, the
 * checkpoint kept in the state file as rows settle, so that an interrupted
 * import (a signal, a crash, a store that stayed down) goes on where it
 * stopped when run again with the same files. An import that finishes
 * removes its state file; running it again reads every row and finds them
 * stored (`present`), writing nothing.
 */
export class ImportRun {
  readonly progress: ImportProgress;
  readonly #options: ImportOptions;
  readonly #deps: ImportDeps;
  readonly #writers: Record<ImportedClass, ClassWriter>;
  readonly #bulk: BulkInserts | null;
  #lastStateWrite = 0;

  constructor(options: ImportOptions, deps: ImportDeps) {
    this.#options = options;
    this.#deps = deps;
    const signal = options.signal;
    this.#bulk = options.dryRun ? null : (deps.store.bulkInserts?.({ maxInFlight: options.concurrency, patienceMs: options.patienceMs ?? defaultPatienceMs, ...(signal ? { signal } : {}) }) ?? null);
    this.#writers = {
      _User: new UserWriter(deps.store, options.appId, deps.newSessionToken, this.#bulk),
      _Installation: new InstallationWriter(deps.store, options.appId, options.installationBatch, this.#bulk),
    };
    this.progress = { file: '', totalBytes: 0, readBytes: 0, rowsThisRun: 0, startedAt: deps.clock.now() };
  }

  /** Runs the import. Throws only for problems found before any row is read (a missing file, an unusable state file). */
  async run(): Promise<ImportSummary> {
    const options = this.#options;
    const files = await this.#describeFiles();
    const { state, resumed } = this.#startingState(files);
    const rejects: RejectSink = options.dryRun ? new RejectSample(options.sampleRejects ?? 20) : new RejectFile(options.rejectsPath, resumed ? state.rejectBytes : 0);
    const summary: ImportSummary = {
      status: 'done',
      dryRun: options.dryRun,
      tally: state.tally,
      rowsThisRun: 0,
      seconds: 0,
      skippedFiles: [],
      fileProblems: [],
      resumedFiles: [],
      rejectsPath: options.dryRun ? null : options.rejectsPath,
      statePath: null,
      sampleRejects: rejects instanceof RejectSample ? rejects.entries : [],
    };
    const signal = options.signal ?? new AbortController().signal;
    this.progress.totalBytes = files.reduce((sum, file) => sum + file.size - (state.files[resolve(file.path)]?.offset ?? file.dataStart.offset), 0);
    try {
      for (const file of files) {
        if (signal.aborted) break;
        const outcome = await this.#importOne(file, state, rejects, summary, signal);
        if (outcome === 'stopped') break;
      }
      if (signal.aborted) summary.status = 'interrupted';
    } catch (error) {
      summary.status = 'failed';
      summary.error = error instanceof Error ? error.message : String(error);
    } finally {
      rejects.close();
    }
    if (this.#bulk !== null) summary.writes = this.#bulk.report();
    summary.rowsThisRun = this.progress.rowsThisRun;
    summary.seconds = (this.#deps.clock.now() - this.progress.startedAt) / 1000;
    if (!options.dryRun) {
      if (summary.status === 'done') removeImportState(options.statePath);
      else {
        writeImportState(options.statePath, state);
        summary.statePath = options.statePath;
      }
    }
    return summary;
  }

  async #describeFiles(): Promise<ExportFile[]> {
    const seen = new Set<string>();
    const files: ExportFile[] = [];
    for (const path of this.#options.files) {
      const absolute = resolve(path);
      if (seen.has(absolute)) continue;
      seen.add(absolute);
      files.push(await describeExportFile(path));
    }
    return files;
  }

  /** The state of the interrupted run to resume, checked against the files; or a fresh one. */
  #startingState(files: readonly ExportFile[]): { state: ImportState; resumed: boolean } {
    const options = this.#options;
    const fresh: ImportState = { version: 1, appId: options.appId, files: {}, tally: {}, rejectBytes: 0, inFlightRows: this.#inFlightRows() };
    if (options.dryRun || options.restart) return { state: fresh, resumed: false };
    const state = readImportState(options.statePath);
    if (state === null) return { state: fresh, resumed: false };
    if (state.appId !== options.appId) {
      throw new ImportStateError(`the state file ${options.statePath} belongs to an import into app ${state.appId}; give that app, another --state, or --restart`);
    }
    for (const file of files) {
      const checkpoint = state.files[resolve(file.path)];
      if (checkpoint !== undefined && checkpoint.fingerprint !== file.fingerprint) {
        throw new ImportStateError(
          `${file.path} changed since the interrupted import began (its size or content differ); pass --restart to import every file from its start (rows already stored are found and left as they are)`,
        );
      }
    }
    return { state: { ...state, inFlightRows: Math.max(state.inFlightRows, fresh.inFlightRows) }, resumed: true };
  }

  /** Units (rows or batches) written at once. */
  #unitsInFlight(): number {
    return this.#bulk === null ? this.#options.concurrency : bulkBatchesInFlight;
  }

  #inFlightRows(): number {
    return this.#unitsInFlight() * Math.max(this.#writers._User.batchSize, this.#writers._Installation.batchSize);
  }

  async #importOne(file: ExportFile, state: ImportState, rejects: RejectSink, summary: ImportSummary, signal: AbortSignal): Promise<'done' | 'stopped'> {
    const key = resolve(file.path);
    const previous = state.files[key];
    if (previous?.done) {
      summary.resumedFiles.push(file.path);
      return 'done';
    }
    if (file.className === null) {
      summary.skippedFiles.push({ file: file.path, className: null, reason: 'cannot tell its class: it has no #filetype header, and its name is not <Class>.<n>.jsonl (or a schema file, which holds no rows)' });
      return 'done';
    }
    if (!isImportedClass(file.className)) {
      summary.skippedFiles.push({ file: file.path, className: file.className, reason: skippedClassReason(file.className) });
      return 'done';
    }
    const className = file.className;
    const from: ScanPosition = previous === undefined ? file.dataStart : { offset: previous.offset, line: previous.line };
    const checkpoint: FileCheckpoint = { fingerprint: file.fingerprint, offset: from.offset, line: from.line, done: false };
    state.files[key] = checkpoint;
    this.progress.file = file.path;
    const readStart = this.progress.readBytes;
    // A file's first settled rows are checkpointed at once, so that the state
    // file shows where the import is even in a file shorter than the interval.
    let firstSettled = true;
    const outcome = await importFile({
      file,
      writer: this.#writers[className],
      from,
      repairRows: previous === undefined ? 0 : state.inFlightRows,
      concurrency: this.#unitsInFlight(),
      dryRun: this.#options.dryRun,
      signal,
      maxRowBytes: this.#options.maxRowBytes,
      onSettled: (rows, position) => {
        rejects.add(rows.flatMap((settled) => rejectEntry(file.path, className, settled)));
        for (const settled of rows) countOutcome(state.tally, className, settled.outcome);
        checkpoint.offset = position.offset;
        checkpoint.line = position.line;
        state.rejectBytes = rejects.bytes;
        this.progress.rowsThisRun += rows.length;
        this.#saveState(state, firstSettled);
        firstSettled = false;
      },
      onRead: (offset) => {
        this.progress.readBytes = readStart + offset - from.offset;
      },
      onFileProblem: (problem) => summary.fileProblems.push({ file: file.path, problem }),
    });
    if (outcome === 'done') {
      checkpoint.done = true;
      this.#saveState(state, true);
    }
    return outcome;
  }

  /** Writes the checkpoint, at most once a second unless asked to now; never in a dry run. */
  #saveState(state: ImportState, now: boolean): void {
    if (this.#options.dryRun) return;
    const time = this.#deps.clock.now();
    if (!now && time - this.#lastStateWrite < stateIntervalMs) return;
    this.#lastStateWrite = time;
    writeImportState(this.#options.statePath, state);
  }
}

function rejectEntry(file: string, className: string, settled: SettledRow): RejectEntry[] {
  if (settled.outcome.kind !== 'rejected') return [];
  const entry: RejectEntry = {
    file,
    line: settled.raw.line,
    class: className,
    code: settled.outcome.code,
    reason: settled.outcome.reason,
    row: settled.row,
  };
  const objectId = settled.objectId ?? objectIdOf(settled.row);
  if (objectId !== undefined) entry.objectId = objectId;
  return [entry];
}

function objectIdOf(row: unknown): string | undefined {
  const objectId = row !== null && typeof row === 'object' ? (row as Record<string, unknown>).objectId : undefined;
  return typeof objectId === 'string' ? objectId : undefined;
}
