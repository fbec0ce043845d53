import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { codeBlocksOf, substituted } from './support/code-blocks.ts';

const dir = mkdtempSync(join(tmpdir(), 'herald-code-blocks-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function blocksOf(markdown: string) {
  writeFileSync(join(dir, 'page.md'), markdown);
  return codeBlocksOf(dir, 'page.md');
}

describe("the documents' code blocks", () => {
  it('take their kind from the language, or from the marker above the fence, indented in a list too', () => {
    const blocks = blocksOf(['```sh', 'curl -s localhost:3000', '```', '', '1. Values:', '   <!-- example: helm-values; over charts/herald/ci/production-values.yaml -->', '   ```yaml', '   a: 1', '   ```', '```json', '{}', '```'].join('\n'));
    expect(blocks.map((block) => [block.line, block.kind, block.language, block.text])).toEqual([
      [1, 'shell', 'sh', 'curl -s localhost:3000'],
      [7, 'helm-values', 'yaml', 'a: 1'],
      [10, undefined, 'json', '{}'],
    ]);
    expect(blocks[1]?.over).toBe('charts/herald/ci/production-values.yaml');
  });

  it('read a skip with its reason, semicolons and all, and refuse one without a reason', () => {
    expect(blocksOf(['<!-- example: skip: output; not a command -->', '```', 'x', '```'].join('\n'))[0]?.skip).toBe('output; not a command');
    expect(() => blocksOf(['<!-- example: skip: -->', '```', 'x', '```'].join('\n'))).toThrow('a skip marker must say why');
  });

  it('refuse a marker part they cannot read, so a typo does not pass unnoticed', () => {
    expect(() => blocksOf(['<!-- example: shel -->', '```sh', 'x', '```'].join('\n'))).toThrow('cannot read "shel" in the example marker');
  });

  it('substitute quoted placeholders and the test\'s variables, and refuse a variable the test does not set', () => {
    const [block] = blocksOf(['<!-- example: sub "<hosted app id>" $APP_ID; sub myapp $APP_ID -->', '```sh', 'npm run import -- --app "<hosted app id>" myapp localhost:3000', '```'].join('\n'));
    if (block === undefined) throw new Error('no block');
    expect(substituted(block, [['localhost:3000', '127.0.0.1:4000']], { APP_ID: 'shop' })).toBe('npm run import -- --app "shop" shop 127.0.0.1:4000');
    expect(() => substituted(block, [], {})).toThrow('names $APP_ID, which the test does not set');
  });
});
