import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RejectEntry } from '../../src/import/reject-log.ts';
import { maxNestingDepth } from '../../src/query/json-nesting.ts';
import type { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { exportDir, exportedInstallation, exportedUser, openTestStore, removeExportDirs, runImport, scannedInstallations, storedObjects, writeJsonLines } from './export-fixture.ts';

const appId = 'deeprows';
const opened: SqliteStore[] = [];

afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  removeExportDirs();
});

/** A row's JSON text with one more field holding a value `levels` arrays deep. */
function deepRow(row: Record<string, unknown>, field: string, levels: number): string {
  return JSON.stringify(row).replace(/}$/, `,"${field}":${'['.repeat(levels)}1${']'.repeat(levels)}}`);
}

function rejectsIn(dir: string): RejectEntry[] {
  return readFileSync(join(dir, 'rejects.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as RejectEntry);
}

const classes = {
  _User: { row: exportedUser, field: 'nickname' },
  _Installation: { row: exportedInstallation, field: 'ACL' },
} as const;

describe('a row nested deeper than the API takes', () => {
  for (const [className, { row, field }] of Object.entries(classes)) {
    for (const layout of ['lines', 'array'] as const) {
      it(`goes to the reject file and the rest of a ${className} file imports (${layout})`, async () => {
        const dir = exportDir();
        const store = openTestStore(dir);
        opened.push(store);
        const deep = deepRow(row(2), field, 200_000);
        const rows = [JSON.stringify(row(1)), deep, JSON.stringify(row(3))];
        const path = join(dir, layout === 'lines' ? `${className}.0.jsonl` : `${className}.json`);
        if (layout === 'lines') writeJsonLines(path, className, rows);
        else writeFileSync(path, `[\n${rows.join(',\n')}\n]\n`);

        const summary = await runImport(store, dir, appId, [path]);

        expect(summary.status).toBe('done');
        expect(summary.tally[className]).toEqual({ read: 3, imported: 2, present: 0, rejected: 1 });
        // Line 1 is the header of JSON Lines, the `[` of an array: the deep row is on line 3 either way.
        expect(rejectsIn(dir)).toEqual([{ file: path, line: 3, class: className, code: 107, reason: `the row nests deeper than ${maxNestingDepth} levels`, row: deep }]);
        const stored = className === '_User' ? await storedObjects(store, appId, className) : await scannedInstallations(store, appId);
        expect([...stored.keys()].sort()).toEqual([String(row(1).objectId), String(row(3).objectId)].sort());
      });
    }
  }

  it('takes a row exactly as deep as the limit', async () => {
    const dir = exportDir();
    const store = openTestStore(dir);
    opened.push(store);
    // The row is the first level; its field's arrays the rest.
    const path = writeJsonLines(join(dir, '_User.0.jsonl'), '_User', [deepRow(exportedUser(1), 'nickname', maxNestingDepth - 1)]);
    const summary = await runImport(store, dir, appId, [path]);
    expect(summary.tally._User).toEqual({ read: 1, imported: 1, present: 0, rejected: 0 });
  });
});
