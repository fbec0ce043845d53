import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deliveryReasons, reasonsBySource } from '../../../src/push/gateways/delivery-reasons.ts';

const page = readFileSync(resolve(import.meta.dirname, '../../../docs/push-engine.md'), 'utf8');

interface Row {
  reasons: string[];
  cells: string[];
  line: string;
}

/** The rows of the operator's tables under "### Reasons": tables whose header is `| reason | outcome | what it means | what to do |`. */
function reasonRows(): Row[] {
  const start = page.indexOf('\n### Reasons\n');
  const end = page.indexOf('\n## ', start + 1);
  if (start === -1 || end === -1) throw new Error('docs/push-engine.md has no "### Reasons" section');
  const rows: Row[] = [];
  let inTable = false;
  for (const line of page.slice(start, end).split('\n')) {
    if (line === '| reason | outcome | what it means | what to do |') {
      inTable = true;
      continue;
    }
    if (!line.startsWith('|')) {
      inTable = false;
      continue;
    }
    if (!inTable || line.startsWith('|---')) continue;
    // Split on the pipes between cells; a backslash-escaped pipe never occurs in these tables.
    const cells = line.slice(1, -1).split(' | ').map((cell) => cell.trim());
    const reasons = [...(cells[0] ?? '').matchAll(/`([^`]+)`/g)].map((match) => match[1] as string);
    rows.push({ reasons, cells, line });
  }
  return rows;
}

describe('docs/push-engine.md, "Reasons"', () => {
  const rows = reasonRows();
  const documented = new Set(rows.flatMap((row) => row.reasons));

  it('has a row for every reason of every source in the catalogue', () => {
    const missing: string[] = [];
    for (const [source, words] of Object.entries(reasonsBySource)) {
      for (const word of words) if (!documented.has(word)) missing.push(`${source}: ${word}`);
    }
    if (!documented.has('Other')) missing.push('Other');
    expect(missing, 'reasons without a row in the operator tables of docs/push-engine.md, "Reasons"').toEqual([]);
  });

  it('names no reason the catalogue does not have', () => {
    const known = new Set<string>(deliveryReasons);
    expect([...documented].filter((word) => !known.has(word))).toEqual([]);
  });

  it('says for each row what it means and what to do', () => {
    expect(rows.length).toBeGreaterThan(40);
    for (const row of rows) {
      expect(row.cells, row.line).toHaveLength(4);
      expect(row.reasons.length, row.line).toBeGreaterThan(0);
      for (const cell of row.cells.slice(1)) expect(cell.length, row.line).toBeGreaterThan(3);
    }
  });
});
