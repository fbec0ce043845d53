import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMap, isScalar, parseDocument, type Pair, type YAMLMap } from 'yaml';

/**
 * The values table of charts/herald/README.md, made from the chart's
 * values.yaml: every value carries a `# -- description` comment (helm-docs'
 * convention), and the table between the README's `values:start` and
 * `values:end` markers lists each with its default. A value without a
 * description is an error, so the table cannot miss one.
 *
 * `npm run chart:readme` rewrites the table;
 * `npm run chart:readme -- --check` fails when it is stale.
 */

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const chartValuesFile = path.join(repoRoot, 'charts/herald/values.yaml');
export const chartReadmeFile = path.join(repoRoot, 'charts/herald/README.md');
const startMarker = '<!-- values:start (npm run chart:readme) -->';
const endMarker = '<!-- values:end -->';

export interface ValueRow {
  key: string;
  type: string;
  /** Absent for a group whose values have rows of their own. */
  default?: unknown;
  description: string;
}

/** The `-- ` block of a comment: its first line and the lines after it, joined. */
function description(comment: string | null | undefined): string | undefined {
  if (!comment) return undefined;
  const lines = comment.split('\n').map((line) => line.replace(/^ /, ''));
  const start = lines.findLastIndex((line) => line.startsWith('-- '));
  if (start < 0) return undefined;
  return lines
    .slice(start)
    .map((line, index) => (index === 0 ? line.slice(3) : line).trim())
    .filter(Boolean)
    .join(' ');
}

function typeOf(value: unknown): string {
  if (Array.isArray(value)) return 'list';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'object';
  return typeof value;
}

function hasDocumented(map: YAMLMap): boolean {
  return map.items.some((pair, index) => commentOf(pair, index, map) !== undefined || (isMap(pair.value) && hasDocumented(pair.value)));
}

/** The yaml parser gives the comment above a map's first key to the map itself. */
function commentOf(pair: Pair, index: number, parent: YAMLMap): string | undefined {
  const key = isScalar(pair.key) ? pair.key : undefined;
  return description(key?.commentBefore ?? (index === 0 ? parent.commentBefore : undefined));
}

function collect(map: YAMLMap, prefix: string, rows: ValueRow[], undocumented: string[]): void {
  map.items.forEach((pair, index) => {
    const name = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
    const key = prefix === '' ? name : `${prefix}.${name}`;
    const text = commentOf(pair, index, map);
    const value: unknown = isScalar(pair.value) || pair.value === null ? (pair.value?.value ?? null) : (pair.value as { toJSON(): unknown }).toJSON();
    const nested = isMap(pair.value) && hasDocumented(pair.value) ? pair.value : undefined;
    if (text !== undefined) rows.push(nested === undefined ? { key, type: typeOf(value), default: value, description: text } : { key, type: typeOf(value), description: text });
    if (nested !== undefined) collect(nested, key, rows, undocumented);
    else if (text === undefined) undocumented.push(key);
  });
}

/** Every documented value of values.yaml, in file order; throws naming the values without a description. */
export function valueRows(valuesYaml: string): ValueRow[] {
  const document = parseDocument(valuesYaml);
  if (!isMap(document.contents)) throw new Error('values.yaml must hold a map');
  const rows: ValueRow[] = [];
  const undocumented: string[] = [];
  collect(document.contents, '', rows, undocumented);
  if (undocumented.length > 0) throw new Error(`values without a "# -- " description in values.yaml: ${undocumented.join(', ')}`);
  return rows;
}

function cell(text: string): string {
  return text.replaceAll('|', '\\|');
}

/** The Markdown table of the values. */
export function valuesTable(rows: readonly ValueRow[]): string {
  const lines = ['| key | type | default | description |', '|---|---|---|---|'];
  for (const row of rows) {
    const value = row.default === undefined ? '' : `\`${cell(JSON.stringify(row.default))}\``;
    lines.push(`| \`${row.key}\` | ${row.type} | ${value} | ${cell(row.description)} |`);
  }
  return lines.join('\n');
}

/** The README with its table replaced by the one values.yaml makes. */
export function readmeWithTable(readme: string, table: string): string {
  const start = readme.indexOf(startMarker);
  const end = readme.indexOf(endMarker);
  if (start < 0 || end < start) throw new Error(`the chart README has no ${startMarker} … ${endMarker} section`);
  return `${readme.slice(0, start + startMarker.length)}\n${table}\n${readme.slice(end)}`;
}

function main(): void {
  const readme = readFileSync(chartReadmeFile, 'utf8');
  const expected = readmeWithTable(readme, valuesTable(valueRows(readFileSync(chartValuesFile, 'utf8'))));
  if (process.argv.includes('--check')) {
    if (expected !== readme) {
      process.stderr.write('charts/herald/README.md: the values table is stale; run npm run chart:readme\n');
      process.exitCode = 1;
    }
    return;
  }
  writeFileSync(chartReadmeFile, expected);
}

if (process.argv[1] !== undefined && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))) main();
