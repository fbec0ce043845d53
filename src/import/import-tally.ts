import type { RowOutcome } from './class-writer.ts';

/** What became of the rows of one class. `read` is the sum of the other three. */
export interface ClassTally {
  read: number;
  imported: number;
  /** Left out because an object with the row's objectId is already stored. */
  present: number;
  rejected: number;
}

/** Tallies by class name. */
export type Tally = Record<string, ClassTally>;

export function emptyClassTally(): ClassTally {
  return { read: 0, imported: 0, present: 0, rejected: 0 };
}

/** Counts one row's outcome. */
export function countOutcome(tally: Tally, className: string, outcome: RowOutcome): void {
  const counts = (tally[className] ??= emptyClassTally());
  counts.read += 1;
  counts[outcome.kind] += 1;
}

/** The tallies of all classes added up. */
export function totalOf(tally: Tally): ClassTally {
  const total = emptyClassTally();
  for (const counts of Object.values(tally)) {
    total.read += counts.read;
    total.imported += counts.imported;
    total.present += counts.present;
    total.rejected += counts.rejected;
  }
  return total;
}
