import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { isJsonObject } from '../query/json-value.ts';
import type { Tally } from './import-tally.ts';

/** How far an import got in one file. */
export interface FileCheckpoint {
  /** The file's fingerprint when the import began: a file that changed is not resumed. */
  fingerprint: string;
  /** Every row before this byte offset is settled (imported, present or rejected). */
  offset: number;
  /** The line that offset is on. */
  line: number;
  done: boolean;
}

/**
 * The checkpoint of an interrupted import, kept in a state file so that
 * running the same command again goes on where it stopped. Removed when an
 * import finishes.
 */
export interface ImportState {
  version: 1;
  appId: string;
  /** By the file's absolute path. */
  files: Record<string, FileCheckpoint>;
  /** The settled rows' outcomes so far. */
  tally: Tally;
  /** The reject file's length that matches the checkpoints: a resumed run cuts it back to this. */
  rejectBytes: number;
  /**
   * Most rows the run had in flight at once: after a checkpoint, that many
   * rows may have been written, or half written, by the run that stopped.
   */
  inFlightRows: number;
}

/** A state file that cannot be used; says what to do. */
export class ImportStateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImportStateError';
  }
}

/** The state of an interrupted import, or null when there is none. */
export function readImportState(path: string): ImportState | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  let state: unknown;
  try {
    state = JSON.parse(text);
  } catch {
    throw new ImportStateError(`the state file ${path} is not JSON; remove it (or pass --restart) to import from the start`);
  }
  if (!isJsonObject(state) || state.version !== 1 || typeof state.appId !== 'string' || !isJsonObject(state.files) || !isJsonObject(state.tally)) {
    throw new ImportStateError(`the state file ${path} is not one this version of herald import wrote; remove it (or pass --restart) to import from the start`);
  }
  return state as unknown as ImportState;
}

/** Writes the state whole or not at all (a new file renamed over the old), so an interruption never leaves half of one. */
export function writeImportState(path: string, state: ImportState): void {
  const next = `${path}.next`;
  writeFileSync(next, `${JSON.stringify(state)}\n`, { mode: 0o600 });
  renameSync(next, path);
}

export function removeImportState(path: string): void {
  rmSync(path, { force: true });
}
