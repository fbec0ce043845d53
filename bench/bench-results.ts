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

/**
 * The part of a result file's name that tells a run under non-default Node
 * flags apart (`--max-semi-space-size=32` → `-node-max-semi-space-size-32`),
 * so that it never overwrites the default run's file; '' without flags.
 */
export function nodeOptionsSuffix(nodeOptions: string | undefined): string {
  const slug = (nodeOptions ?? '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  return slug === '' ? '' : `-node-${slug}`;
}
