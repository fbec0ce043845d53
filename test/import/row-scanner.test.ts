import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeExportFile } from '../../src/import/export-file.ts';
import { readExportRows } from '../../src/import/export-rows.ts';
import { RowScanner, type ExportLayout, type RawRow, type ScanPosition } from '../../src/import/row-scanner.ts';

const dir = mkdtempSync(join(tmpdir(), 'herald-scan-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Feeds the text in chunks of `size` bytes (1: byte by byte, so every row spans chunks). */
function scan(layout: ExportLayout, text: string, size: number, from: ScanPosition = { offset: 0, line: 1 }): { rows: RawRow[]; problem?: string } {
  const bytes = Buffer.from(text, 'utf8').subarray(from.offset);
  const scanner = new RowScanner(layout, from, 64);
  const rows: RawRow[] = [];
  for (let start = 0; start < bytes.length; start += size) rows.push(...scanner.push(bytes.subarray(start, start + size)));
  const end = scanner.finish();
  return { rows: [...rows, ...end.rows], problem: end.problem };
}

function writeExport(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('JSON Lines', () => {
  const text = '#filetype:JSON-streaming {"type":"Class","class":"_User"}\n{"a":1}\r\n\n  {"b":"é"}\n{"c":3}';

  for (const size of [1, 3, 1024]) {
    it(`finds every row, its line and its byte range, whatever the chunks (${size} bytes)`, () => {
      const { rows } = scan('lines', text, size);
      expect(rows.map((row) => [row.text, row.line])).toEqual([
        ['{"a":1}', 2],
        ['{"b":"é"}', 4],
        ['{"c":3}', 5],
      ]);
      const bytes = Buffer.from(text);
      expect(bytes.toString('utf8', rows[1]?.start, rows[1]?.end)).toBe('  {"b":"é"}\n');
      // The last line has no newline: it ends at the end of the file.
      expect(rows[2]?.end).toBe(bytes.length);
    });
  }

  it('resumes after a row at the offset and line it recorded', () => {
    const first = scan('lines', text, 7).rows[0] as RawRow;
    const rest = scan('lines', text, 7, { offset: first.end, line: first.endLine }).rows;
    expect(rest.map((row) => [row.text, row.line])).toEqual([
      ['{"b":"é"}', 4],
      ['{"c":3}', 5],
    ]);
  });

  it('rejects a row larger than the limit without keeping it, and goes on with the next', () => {
    const { rows } = scan('lines', `{"big":"${'x'.repeat(200)}"}\n{"small":1}\n`, 16);
    expect(rows[0]).toMatchObject({ text: null, line: 1, problem: 'the row is larger than 64 bytes' });
    expect(rows[1]).toMatchObject({ text: '{"small":1}', line: 2 });
  });
});

describe('JSON arrays', () => {
  const text = '[\n {"a":"x,]}\\"{"},\n {"b":[1,{"c":2}]} , 7, "s",\n {"d":null}\n]';

  for (const size of [1, 5, 1024]) {
    it(`splits the elements, strings with brackets and escapes included (${size}-byte chunks)`, () => {
      const { rows, problem } = scan('array', text.slice(1), size, { offset: 0, line: 1 });
      expect(problem).toBeUndefined();
      expect(rows.map((row) => [row.text, row.line])).toEqual([
        ['{"a":"x,]}\\"{"}', 2],
        ['{"b":[1,{"c":2}]}', 3],
        ['7', 3],
        ['"s"', 3],
        ['{"d":null}', 4],
      ]);
    });
  }

  it('resumes between elements at the recorded offset', () => {
    const body = text.slice(1);
    const rows = scan('array', body, 4).rows;
    const second = rows[1] as RawRow;
    const rest = scan('array', body, 4, { offset: second.end, line: second.endLine }).rows;
    expect(rest.map((row) => [row.text, row.line])).toEqual([
      ['7', 3],
      ['"s"', 3],
      ['{"d":null}', 4],
    ]);
  });

  it('reports a file that ends inside a row, and an array that never closes', () => {
    const { rows, problem } = scan('array', '{"a":1},\n{"b":', 3);
    expect(rows.map((row) => row.text)).toEqual(['{"a":1}', null]);
    expect(rows[1]).toMatchObject({ line: 2, problem: 'the file ends inside this row (is it truncated?)' });
    expect(problem).toBe('the JSON array is not closed with ]: the file may be truncated');
  });
});

describe('export files', () => {
  it("reads the class from the console export's header and the layout from the content", async () => {
    const path = writeExport('anything.jsonl', '#filetype:JSON-streaming {"type":"Class","class":"_Installation"}\n{"objectId":"a"}\n');
    expect(await describeExportFile(path)).toMatchObject({ className: '_Installation', layout: 'lines', dataStart: { offset: 0, line: 1 } });
  });

  it('reads the class from the name <Class>.<n>.jsonl, and a JSON array, or {"results": [...]}, after a byte-order mark', async () => {
    expect(await describeExportFile(writeExport('_User.3.jsonl', '{"objectId":"a"}\n'))).toMatchObject({ className: '_User', layout: 'lines' });
    const array = await describeExportFile(writeExport('_User.json', '\ufeff\n[{"objectId":"a"}]'));
    expect(array).toMatchObject({ className: '_User', layout: 'array', dataStart: { offset: 5, line: 2 } });
    const wrapped = await describeExportFile(writeExport('_Installation_all.json', '{ "results" : [ {"objectId":"a"} ] }'));
    expect(wrapped).toMatchObject({ className: '_Installation', layout: 'array', dataStart: { offset: 15, line: 1 } });
    expect(await describeExportFile(writeExport('_User_schema.json', '{}'))).toMatchObject({ className: null });
  });

  it('streams the rows of a wrapped array and stops at its closing bracket', async () => {
    const path = writeExport('Todo.json', '{"results": [\n{"objectId":"a"},\n{"objectId":"b"}\n], "count": 2}');
    const file = await describeExportFile(path);
    const rows: RawRow[] = [];
    for await (const row of readExportRows(file, { from: file.dataStart })) rows.push(row);
    expect(rows.map((row) => [row.text, row.line])).toEqual([
      ['{"objectId":"a"}', 2],
      ['{"objectId":"b"}', 3],
    ]);
  });

  it('fingerprints the content, so a changed file is told apart', async () => {
    const path = writeExport('_User.9.jsonl', '{"objectId":"a"}\n');
    const before = (await describeExportFile(path)).fingerprint;
    writeFileSync(path, '{"objectId":"b"}\n');
    expect((await describeExportFile(path)).fingerprint).not.toBe(before);
  });
});
