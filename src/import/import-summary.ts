import type { ImportSummary } from './import-run.ts';
import { totalOf, type ClassTally } from './import-tally.ts';

/** Exit codes of `herald import`. */
export const ImportExit = {
  /** Every row was imported or found already stored. */
  done: 0,
  /** The store failed, or a file or state file could not be used. */
  failed: 1,
  /** Bad arguments. */
  usage: 2,
  /** Finished, but some rows were rejected: see the reject file. */
  rejected: 3,
  /** Stopped by a signal; running the same command again resumes. */
  interrupted: 130,
} as const;

export function exitCodeOf(summary: ImportSummary): number {
  if (summary.status === 'failed') return ImportExit.failed;
  if (summary.status === 'interrupted') return ImportExit.interrupted;
  return totalOf(summary.tally).rejected > 0 ? ImportExit.rejected : ImportExit.done;
}

/** The summary as the command prints it. */
export function formatSummary(summary: ImportSummary): string {
  const lines: string[] = [];
  const imported = summary.dryRun ? 'would import' : 'imported';
  lines.push(summary.dryRun ? 'Dry run: nothing was written.' : headline(summary));
  const rows = Object.entries(summary.tally).map(([className, tally]) => tallyRow(className, tally));
  if (rows.length > 0) {
    const header = ['class', 'read', imported, 'already present', 'rejected'];
    const total = tallyRow('total', totalOf(summary.tally));
    lines.push('', ...table([header, ...rows, ...(rows.length > 1 ? [total] : [])]));
  } else {
    lines.push('', 'No rows of users or installations were read.');
  }
  const rate = summary.seconds > 0 ? Math.round(summary.rowsThisRun / summary.seconds) : summary.rowsThisRun;
  lines.push('', `${count(summary.rowsThisRun)} rows in ${summary.seconds.toFixed(1)} s this run: ${count(rate)} rows/s.`);
  if (summary.resumedFiles.length > 0) lines.push(`Finished by the interrupted run this one resumed: ${summary.resumedFiles.join(', ')}.`);
  for (const skipped of summary.skippedFiles) {
    lines.push(`Skipped ${skipped.file}${skipped.className === null ? '' : ` (${skipped.className})`}: ${skipped.reason}.`);
  }
  for (const problem of summary.fileProblems) lines.push(`Problem with ${problem.file}: ${problem.problem}.`);
  const rejected = totalOf(summary.tally).rejected;
  if (rejected > 0 && summary.rejectsPath !== null) lines.push(`Rejected rows, with the reason for each: ${summary.rejectsPath}`);
  for (const entry of summary.sampleRejects) {
    lines.push(`  ${entry.file}:${entry.line}${entry.objectId === undefined ? '' : ` ${entry.objectId}`}: ${entry.code} ${entry.reason}`);
  }
  if (summary.dryRun && rejected > summary.sampleRejects.length) lines.push(`  … and ${count(rejected - summary.sampleRejects.length)} more.`);
  if (summary.statePath !== null) lines.push(`Checkpoint kept in ${summary.statePath}: run the same command again to go on from there.`);
  return `${lines.join('\n')}\n`;
}

function headline(summary: ImportSummary): string {
  if (summary.status === 'interrupted') return 'Import interrupted; every row before the checkpoint is settled.';
  if (summary.status === 'failed') return `Import stopped: ${summary.error ?? 'unknown error'}`;
  return 'Import finished.';
}

function tallyRow(className: string, tally: ClassTally): string[] {
  return [className, count(tally.read), count(tally.imported), count(tally.present), count(tally.rejected)];
}

function table(rows: string[][]): string[] {
  const widths = (rows[0] ?? []).map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
  return rows.map((row) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join('  '));
}

function count(value: number): string {
  return value.toLocaleString('en-US');
}
