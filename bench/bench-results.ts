import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where the benchmarks write their results (gitignored; results worth keeping are added with `git add -f`). */
export const benchResultsDir = join(import.meta.dirname, 'results');

/** Writes a benchmark's report as indented JSON to `dir/name`, the folder made when missing, and says where. */
export function writeBenchResult(dir: string, name: string, report: unknown, out: (line: string) => void): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, name), `${JSON.stringify(report, null, 2)}\n`);
  out(`written to bench/results/${name}`);
}
